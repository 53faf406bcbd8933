"""Generated callers, profile ids and template names against ownership: a principal's folder is
one path component of its own; a profile id is one of the caller's (or refused, coded, nothing
made), never another's; a saved template is seen by its principal only, another's answered as
one nobody saved; the cap holds whatever is asked."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taskplate.browser import OwnProfiles, ProfileStore
from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import TemplateLibrary, space_of
from taskplate.stdlib import REGISTRY
from tests.fuzzing import fuzz_settings

names = st.one_of(
    st.none(),
    st.text(max_size=80),
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}", fullmatch=True),  # a token's principal=
    st.from_regex(r"(token|session):[0-9a-f]{20,24}", fullmatch=True),  # the server's own
    st.sampled_from(["", ".", "..", "a/b", "../x", "~", "a~b", "a:b", ":", "@anyone", "local"]),
)
profile_ids = st.one_of(
    st.text(max_size=70),
    st.from_regex(r"[a-zA-Z0-9._-]{1,64}", fullmatch=True),
    st.sampled_from(["master", ".", "..", "a/b", "@x", "", " ", "x" * 65, "shared"]),
)
template_names = st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True)


@pytest.mark.fuzz
@fuzz_settings(300)
@given(names, names)
def test_each_principal_has_one_folder_of_its_own(one: str | None, other: str | None) -> None:
    for name in (one, other):
        folder = space_of(name)
        assert folder not in ("", ".", "..") and "/" not in folder and "\0" not in folder
        assert len(folder.encode()) <= 255
    assert (space_of(one) == space_of(other)) == (one == other)


@pytest.mark.fuzz
@fuzz_settings(60)
@given(names, names, st.lists(profile_ids, max_size=8))
def test_a_profile_id_reaches_its_callers_own_or_is_refused(
    one: str | None, other: str | None, ids: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as folder:  # each example its own data home
        home = Path(folder)
        operator = ProfileStore(home / "profiles")
        mine = OwnProfiles(home / "p" / space_of(one), operator, frozenset({"shared"}), most=3)
        theirs = OwnProfiles(home / "p" / space_of(other), operator, frozenset(), most=3)
        for profile_id in ids:
            for profiles in (mine, theirs):
                try:
                    made = profiles.ensure(profile_id)
                except TaskplateError as error:
                    assert error.code is ErrorCode.INVALID_PARAMETER, error
                    assert str(home) not in error.message
                    continue
                owner = (
                    operator.root if profile_id == "shared" and profiles is mine else profiles.root
                )
                assert made.parent == owner.resolve(), (profile_id, made)
                assert profiles.read(profile_id).version == 0
        for profiles in (mine, theirs):
            own = (
                [p for p in profiles.root.glob("*") if p.is_dir()] if profiles.root.exists() else []
            )
            assert len(own) <= 3  # the cap, whatever was asked
        if space_of(one) != space_of(other):
            assert not (theirs.root / "shared").exists() or "shared" in ids


TEMPLATE = "template: {name}\nversion: 1.0.0\nsteps:\n  - {{id: v, action: set, with: {{a: 1}}}}\n"


@pytest.mark.fuzz
@fuzz_settings(40)
@given(names, names, template_names, template_names)
def test_a_saved_template_is_seen_by_its_principal_only(
    one: str | None, other: str | None, saved: str, never: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        library = TemplateLibrary(REGISTRY).load([], home=home)
        path = home / "principals" / space_of(one) / "templates" / f"{saved}.yaml"
        path.parent.mkdir(parents=True)
        path.write_text(TEMPLATE.format(name=saved), encoding="utf-8")
        library.add_file(path, space_of(one))
        assert library.get(saved, space=space_of(one)).id == saved
        assert [t.id for t in library.all(space_of(one))] == [saved]
        if space_of(one) == space_of(other) or saved == never:
            return
        assert not library.all(space_of(other)) and not library.all()
        for space in (space_of(other), None):
            answers = []
            for name in (saved, never):
                with pytest.raises(TaskplateError) as refused:
                    library.get(name, space=space)
                answers.append(refused.value.to_json())
            assert answers[0]["errorCode"] == "TEMPLATE_NOT_FOUND"
            assert answers[0].pop("error") == f'no template "{saved}"'
            assert answers[1].pop("error") == f'no template "{never}"'
            assert answers[0] == answers[1]  # its hint names no one's saved template
        library._reload()  # read again from disk: still its principal's only
        assert library.get(saved, space=space_of(one)).id == saved
        assert not library.all(space_of(other))
