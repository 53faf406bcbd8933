"""Content-Encoding undone as the bytes arrive, never more than a bound out: gzip, deflate, br and
zstd, stacked ones in turn (a small compressed chunk can stand for gigabytes: each step is capped).

Reads no network and knows no page; what the bound means (refuse, or keep what fits) is the
caller's. The one decoder of HTTP answers and of gzip files (sitemaps).
"""

from __future__ import annotations

import sys
import zlib
from typing import Protocol

import brotli

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    from backports import zstd

# What the client asks for, and so what it reads (as browsers do, in their order).
ACCEPT_ENCODING = "gzip, deflate, br, zstd"
MAX_STACKED = 3  # encodings applied one over another that are undone; more are refused
STEP = 1 << 18  # at most this much out of a stage at a time (a bomb is cut in such pieces)
# RFC 9659: a zstd window above 8 MB may be refused (so browsers do); it bounds the memory.
ZSTD_WINDOW_LOG_MAX = 23


class DecodingError(ValueError):
    """The body is not what its Content-Encoding says, or is encoded more than we undo."""


class _Stage(Protocol):
    def step(self, data: bytes, room: int) -> bytes:
        """`data` decoded, about `room` bytes out at most (brotli's buffer may pass it by a
        block, under twice it); input it could not take yet is kept."""
        ...

    def pending(self) -> bool:
        """More output is there without more input."""
        ...


class _Zlib:
    """gzip, or deflate (zlib-wrapped, or raw as some servers send it: httpx reads both)."""

    def __init__(self, wbits: int) -> None:
        self._wbits = wbits
        self._obj = zlib.decompressobj(wbits)
        self._started = self._filled = False

    def step(self, data: bytes, room: int) -> bytes:
        tail = self._obj.unconsumed_tail
        if self._obj.eof:
            return b""  # what follows the stream is ignored, as httpx and browsers ignore it
        try:
            out = self._obj.decompress(tail + data if tail else data, room)
        except zlib.error as exc:
            if self._started or self._wbits != zlib.MAX_WBITS:
                raise DecodingError(f"the compressed data is broken ({exc})") from None
            self._wbits = -zlib.MAX_WBITS  # raw deflate, without the zlib wrapper
            self._obj = zlib.decompressobj(self._wbits)
            return self.step(data, room)
        self._started, self._filled = True, len(out) >= room
        return out

    def pending(self) -> bool:
        # Input left over, or a step that filled its room (inflate may hold output back).
        return (bool(self._obj.unconsumed_tail) or self._filled) and not self._obj.eof


class _Brotli:
    def __init__(self) -> None:
        self._obj = brotli.Decompressor()
        self._filled = False

    def step(self, data: bytes, room: int) -> bytes:
        if self._obj.is_finished():
            return b""
        try:
            out: bytes = self._obj.process(data, output_buffer_limit=room)
        except brotli.error as exc:
            raise DecodingError(f"the brotli data is broken ({exc})") from None
        self._filled = len(out) >= room
        return out

    def pending(self) -> bool:
        # The decoder may take more input while it still holds output (can_accept_more_data
        # says nothing of that): an answer that filled its room may have more behind it.
        return not self._obj.is_finished() and (
            self._filled or not self._obj.can_accept_more_data()
        )


class _Zstd:
    def __init__(self) -> None:
        self._obj = self._new()

    @staticmethod
    def _new() -> zstd.ZstdDecompressor:
        window = {int(zstd.DecompressionParameter.window_log_max): ZSTD_WINDOW_LOG_MAX}
        return zstd.ZstdDecompressor(options=window)

    def step(self, data: bytes, room: int) -> bytes:
        if self._obj.eof:  # a next frame follows (RFC 8878 allows several)
            data, self._obj = self._obj.unused_data + data, self._new()
            if not data:
                return b""
        try:
            return self._obj.decompress(data, max_length=room)
        except zstd.ZstdError as exc:
            raise DecodingError(f"the zstd data is broken ({exc})") from None

    def pending(self) -> bool:
        if self._obj.eof:
            return bool(self._obj.unused_data)
        return not self._obj.needs_input


def _stage(coding: str) -> _Stage | None:
    """The decoder of one coding; None for identity and for codings nobody defined (httpx and
    browsers pass those through as they are)."""
    if coding in ("gzip", "x-gzip"):
        return _Zlib(16 + zlib.MAX_WBITS)
    if coding == "deflate":
        return _Zlib(zlib.MAX_WBITS)
    if coding == "br":
        return _Brotli()
    if coding == "zstd":
        return _Zstd()
    return None


class Decoding:
    """A body's bytes decoded as they come (`feed`), `limit` bytes out at most: past it, `over`
    is true and what was fed beyond it is dropped unread. `content_encoding` as the header
    says it (codings in the order they were applied)."""

    def __init__(self, content_encoding: str, limit: int) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
        stages = [s for s in map(_stage, reversed(codings)) if s is not None]
        if len(stages) > MAX_STACKED:
            raise DecodingError(
                f"the answer is encoded {len(stages)} times over ({content_encoding});"
                f" at most {MAX_STACKED} are read"
            )
        self._stages = stages
        self.limit = limit
        self.size = 0  # bytes out so far
        self.over = False
        self._out: list[bytes] = []

    def feed(self, data: bytes) -> list[bytes]:
        """What `data` decodes to, within the limit, in pieces (joined once by the caller)."""
        if self.over or not data:
            return []
        if not self._stages:
            self._take(data)
        else:
            self._run(0, data)
        out, self._out = self._out, []
        return out

    def _run(self, index: int, data: bytes) -> None:
        stage, last = self._stages[index], index == len(self._stages) - 1
        while not self.over:
            # One byte more than room is asked for: a body that has it is over the limit.
            out = stage.step(data, min(STEP, self.limit - self.size + 1) if last else STEP)
            fed, data = bool(data), b""
            if last:
                self._take(out)
            elif out:
                self._run(index + 1, out)
            if not stage.pending() or not (out or fed):  # a stage that gives nothing is done
                break

    def _take(self, out: bytes) -> None:
        room = self.limit - self.size
        if len(out) > room:
            out, self.over = out[:room], True
        self.size += len(out)
        if out:
            self._out.append(out)


def decoded(data: bytes, content_encoding: str, limit: int) -> tuple[bytes, bool]:
    """Bytes at hand decoded: at most `limit` of them, and whether there was more."""
    decoding = Decoding(content_encoding, limit)
    return b"".join(decoding.feed(data)), decoding.over
