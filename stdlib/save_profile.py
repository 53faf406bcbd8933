"""The `save_profile` action: publish the session's login state as a profile snapshot.

Declaration only until the profile layer lands.
"""

from dsl import ActionSpec, Level

from ._schemas import BOOLEAN, INTEGER, STRING, args, result

ACTION = ActionSpec(
    name="save_profile",
    level=Level.L1,
    summary="Publish the session's cookies and storage as the profile's newest snapshot.",
    args_schema=args(
        {"profileId": {"type": "string", "pattern": "^[a-zA-Z0-9._-]{1,64}$", "default": "master"}}
    ),
    result_schema=result({"profileId": STRING, "version": INTEGER, "published": BOOLEAN}),
)
