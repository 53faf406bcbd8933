"""Profiles: named login states stored as Playwright storageState snapshots under the data home,
shared by every process without a daemon. Publishing is compare-and-set under a short lock;
writes go through tmp/ and an atomic rename; state content is never logged.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import re
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from taskplate.contract import ErrorCode, TaskplateError

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext

log = logging.getLogger("taskplate.profiles")
PROFILE_ID = re.compile(r"^[a-zA-Z0-9._-]{1,64}$")
EMPTY_STATE: dict[str, Any] = {"cookies": [], "origins": []}
# A writer holds the lock for two small fsync'd writes; on a busy disk or a loaded machine that
# can take seconds, and polling for a lock is not fair, so "busy" is said only after 10 s.
LOCK_TIMEOUT_S = 10.0
WRITER = f"{os.uname().nodename}:{os.getpid()}"


def _invalid(profile_id: object, why: str) -> TaskplateError:
    return TaskplateError(
        ErrorCode.INVALID_PARAMETER,
        f"profileId {json.dumps(profile_id)} is not allowed: {why}",
        "Use 1–64 letters, digits, dots, dashes or underscores, e.g. master.",
    )


def _unreadable(profile_id: str, why: str) -> TaskplateError:
    """A snapshot that cannot be read (a file missing, damaged or edited by hand); its content
    is never quoted."""
    return TaskplateError(
        ErrorCode.EXECUTION_ERROR,
        f"profile {profile_id} cannot be read: {why}",
        f"Retry; if it persists, log in again (dsl login --profile {profile_id}).",
        {"profileId": profile_id},
    )


class ProfiledSession(Protocol):
    """What publishing reads and sets of a browser session (`_session.Session`, which imports
    this module, so it is named here by what it has)."""

    context: BrowserContext | None
    profile_id: str | None
    profile_version: int
    seed: dict[str, Any] | None

    async def ensure_open(self) -> BrowserContext: ...


def with_indexed_db() -> bool:
    """IndexedDB goes into snapshots only when configured (TASKPLATE_PROFILE_INDEXEDDB=1)."""
    return os.environ.get("TASKPLATE_PROFILE_INDEXEDDB") == "1"


def _checksum(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Snapshot:
    profile_id: str
    version: int
    state: dict[str, Any]


class ProfileStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._publishing: set[str] = set()  # folders with a publish in flight in this process

    # -- paths --------------------------------------------------------------------------------
    def folder(self, profile_id: Any) -> Path:
        """The profile's folder; INVALID_PARAMETER (and nothing touched) for a bad id."""
        if not isinstance(profile_id, str) or not PROFILE_ID.match(profile_id):
            raise _invalid(profile_id, "it must match ^[a-zA-Z0-9._-]{1,64}$")
        if profile_id in (".", ".."):
            raise _invalid(profile_id, "it names a folder, not a profile")
        root = self.root.resolve()
        folder = (self.root / profile_id).resolve()
        if folder.parent != root:
            raise _invalid(profile_id, "its folder lies outside the profiles folder")
        return folder

    def ensure(self, profile_id: str) -> Path:
        """The profile's folder, created on first use: version 0, empty state, modes 700/600."""
        folder = self.folder(profile_id)
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        if (self.root / profile_id).is_symlink():
            raise _invalid(profile_id, "its folder is a symbolic link")
        folder.mkdir(exist_ok=True, mode=0o700)
        (folder / "tmp").mkdir(exist_ok=True, mode=0o700)
        if not (folder / "meta.json").exists():
            with self._lock(folder, "publish.lock"):
                if not (folder / "meta.json").exists():
                    self._write(folder, EMPTY_STATE, 0)
        return folder

    # -- reading ------------------------------------------------------------------------------
    def read(self, profile_id: str) -> Snapshot:
        """The latest snapshot; a state that does not match its meta (mid-publish) is read again."""
        folder = self.ensure(profile_id)
        for _ in range(50):
            try:
                meta = json.loads((folder / "meta.json").read_bytes())
                data = (folder / "state.json").read_bytes()
                if _checksum(data) == meta["checksum"]:
                    state = json.loads(data)
                    if isinstance(state, dict) and isinstance(state.get("cookies", []), list):
                        return Snapshot(profile_id, int(meta["version"]), state)
                    raise ValueError("its state is not a storageState")
            except FileNotFoundError as exc:
                raise _unreadable(profile_id, f"{Path(exc.filename).name} is missing") from None
            except OSError as exc:  # unreadable: permissions, a failing disk
                raise _unreadable(
                    profile_id, f"{Path(exc.filename or '').name}: {exc.strerror}"
                ) from None
            except (ValueError, KeyError, TypeError) as exc:  # JSON's errors are ValueErrors
                raise _unreadable(profile_id, str(exc) or type(exc).__name__) from None
            time.sleep(0.01)
        raise _unreadable(profile_id, "its state does not match its checksum (or is mid-write)")

    def snapshot(self, profile_id: str) -> Snapshot:
        return self.read(profile_id)

    # -- writing ------------------------------------------------------------------------------
    def _atomic(self, folder: Path, name: str, data: bytes) -> None:
        temporary = folder / "tmp" / f"{name}.{uuid.uuid4().hex}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, folder / name)
        finally:
            temporary.unlink(missing_ok=True)

    def _write(self, folder: Path, state: dict[str, Any], version: int) -> None:
        data = json.dumps(state, separators=(",", ":")).encode()
        meta = {
            "profileId": folder.name,
            "version": version,
            "updatedAt": time.time(),
            "writerId": WRITER,
            "checksum": _checksum(data),
        }
        self._atomic(folder, "state.json", data)  # state first: readers check it against meta
        self._atomic(folder, "meta.json", json.dumps(meta).encode())

    @contextmanager
    def _lock(self, folder: Path, name: str, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
        fd = os.open(folder / name, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() > deadline:
                        raise TaskplateError(
                            ErrorCode.EXECUTION_ERROR,
                            f"profile {folder.name} is busy",
                            "Retry in a moment.",
                        ) from None
                    time.sleep(0.005)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def publish_state(
        self, profile_id: str, state: dict[str, Any], based_on: int
    ) -> tuple[bool, int]:
        """Write state as the next version if the current one is still `based_on`.

        Answers (published, current version); a stale publisher's state is dropped."""
        folder = self.ensure(profile_id)
        with self._lock(folder, "publish.lock"):
            current = int(json.loads((folder / "meta.json").read_bytes())["version"])
            if current != based_on:
                log.info(
                    "profile %s: dropped a stale publish (based on version %d, current %d)",
                    profile_id,
                    based_on,
                    current,
                )
                return False, current
            self._write(folder, state, current + 1)
            return True, current + 1

    # -- sessions -----------------------------------------------------------------------------
    async def publish(self, session: ProfiledSession, profile_id: str) -> dict[str, Any]:
        """save_profile: the session's storageState, published against the version it started from."""
        context = await session.ensure_open()
        state = await context.storage_state(indexed_db=with_indexed_db())
        based_on = (
            session.profile_version
            if session.profile_id == profile_id
            else self.read(profile_id).version
        )
        published, version = self.publish_state(profile_id, dict(state), based_on)
        if published and session.profile_id == profile_id:
            session.profile_version, session.seed = version, dict(state)  # the new baseline
        return {"profileId": profile_id, "version": version, "published": published}

    async def settle(self, session: ProfiledSession) -> bool:
        """After a run: publish what the run changed (refreshed cookies, say) to its profile.

        Compare-and-set against the version the session started from, so a newer login is never
        overwritten; single-flight per profile in this process (a publish already in flight
        stands for this one); nothing is written when the state did not change."""
        profile_id = session.profile_id
        if profile_id is None or session.context is None:
            return False
        key = str(self.folder(profile_id))  # a principal's profile and the operator's are apart
        if key in self._publishing:
            return False
        self._publishing.add(key)
        try:
            state = dict(await session.context.storage_state(indexed_db=with_indexed_db()))
            if json.dumps(state, sort_keys=True) == json.dumps(
                session.seed or EMPTY_STATE, sort_keys=True
            ):
                return False
            published, version = self.publish_state(profile_id, state, session.profile_version)
            if published:
                session.profile_version, session.seed = version, state
            return published
        except Exception:  # a crashed browser has nothing to publish; the profile stays as it was
            log.info("profile %s: nothing published after the run", profile_id)
            return False
        finally:
            self._publishing.discard(key)
