"""Profile snapshots on disk: safe ids, modes, atomic compare-and-set publishing."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from taskplate.browser import ProfileStore
from taskplate.contract import ErrorCode, TaskplateError


@pytest.mark.parametrize("bad", ["../x", "a/b", "..", ".", "a\\b", "x" * 65, "", "ünï", None, 7])
def test_bad_profile_ids_are_refused_and_touch_nothing(tmp_path: Path, bad: object) -> None:
    store = ProfileStore(tmp_path / "profiles")
    with pytest.raises(TaskplateError) as caught:
        store.ensure(bad)  # type: ignore[arg-type]
    assert caught.value.code is ErrorCode.INVALID_PARAMETER
    assert not (tmp_path / "profiles").exists()
    assert list(tmp_path.iterdir()) == []


def test_a_symlinked_profile_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "profiles"
    root.mkdir()
    (root / "evil").symlink_to(outside)
    with pytest.raises(TaskplateError) as caught:
        ProfileStore(root).ensure("evil")
    assert caught.value.code is ErrorCode.INVALID_PARAMETER
    assert list(outside.iterdir()) == []


def test_first_use_creates_version_0_with_private_modes(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path / "profiles")
    snapshot = store.read("master")
    assert snapshot.version == 0 and snapshot.state == {"cookies": [], "origins": []}
    folder = tmp_path / "profiles" / "master"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for name in ("state.json", "meta.json"):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600


def test_publishing_is_compare_and_set(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path / "profiles")
    state = {"cookies": [{"name": "sid", "value": "v1"}], "origins": []}
    assert store.publish_state("p", state, 0) == (True, 1)
    newer = {"cookies": [{"name": "sid", "value": "v2"}], "origins": []}
    assert store.publish_state("p", newer, 1) == (True, 2)
    stale = {"cookies": [{"name": "sid", "value": "stale"}], "origins": []}
    assert store.publish_state("p", stale, 1) == (False, 2)  # started from 1, but 2 is out
    assert store.read("p").state == newer
    assert os.listdir(tmp_path / "profiles" / "p" / "tmp") == []


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        ("state.json", "state.json is missing"),
        ("meta.json garbage", "cannot be read"),
        ("state.json garbage", "does not match its checksum"),
        ("state.json list", "not a storageState"),
    ],
)
def test_a_damaged_snapshot_is_refused_clearly(tmp_path: Path, damage: str, why: str) -> None:
    """A snapshot file missing or damaged (by hand, a full disk) is an error naming the profile
    and the way out, never a traceback and never its content."""
    import hashlib
    import json

    store = ProfileStore(tmp_path)
    folder = store.ensure("work")
    store.publish_state("work", {"cookies": [{"name": "sid", "value": "s3cret"}]}, 0)
    name, _, kind = damage.partition(" ")
    if kind == "":
        (folder / name).unlink()
    elif kind == "garbage":
        (folder / name).write_bytes(b"{not json s3cret")
    else:  # valid JSON of the wrong shape, with a checksum to match
        data = b'["s3cret"]'
        meta = json.loads((folder / "meta.json").read_bytes())
        meta["checksum"] = hashlib.sha256(data).hexdigest()
        (folder / "state.json").write_bytes(data)
        (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(TaskplateError) as caught:
        store.read("work")
    assert caught.value.code is ErrorCode.EXECUTION_ERROR and why in caught.value.message
    assert "profile work" in caught.value.message and "s3cret" not in caught.value.message
    assert "dsl login --profile work" in caught.value.recover_hint
