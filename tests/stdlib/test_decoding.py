"""The bounded Content-Encoding decoder: each coding read right in any chunking, stacked ones
in turn, a bomb cut at the limit a step at a time, broken data and over-stacking refused."""

from __future__ import annotations

import gzip
import zlib

import brotli
import pytest

from taskplate.stdlib.web._decoding import STEP, Decoding, DecodingError, decoded
from tests.fixtures.hostile_site import ENCODINGS, bomb, zstd

TEXT = b"<p>" + b"".join(b"line %d of a page, " % n for n in range(20_000)) + b"</p>"


def raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


ENCODED = {
    "gzip": gzip.compress(TEXT),
    "deflate": zlib.compress(TEXT),
    "br": brotli.compress(TEXT),
    "zstd": zstd.compress(TEXT[:1000]) + zstd.compress(TEXT[1000:]),  # two frames
    "gzip, br": brotli.compress(gzip.compress(TEXT)),
    "identity": TEXT,
    "compress": TEXT,  # a coding nobody reads passes as it is, as httpx and browsers pass it
}


@pytest.mark.parametrize("coding", ENCODED)
@pytest.mark.parametrize("chunk", [1, 977, 1 << 20])
def test_each_coding_reads_whole_in_any_chunking(coding: str, chunk: int) -> None:
    data = ENCODED[coding]
    if chunk == 1:
        data = data[:3000]  # byte by byte is slow in Python; the start shows it
    decoding = Decoding(coding, len(TEXT))
    out = b"".join(b"".join(decoding.feed(data[i : i + chunk])) for i in range(0, len(data), chunk))
    assert TEXT.startswith(out) and not decoding.over
    assert chunk == 1 or out == TEXT


def test_raw_deflate_reads_as_deflate() -> None:
    assert decoded(raw_deflate(TEXT), "deflate", len(TEXT)) == (TEXT, False)


@pytest.mark.parametrize("name", ENCODINGS)
def test_a_bomb_stops_at_the_limit_in_small_pieces(name: str) -> None:
    decoding = Decoding(ENCODINGS[name], 3_000_000)
    data, pieces = bomb(name), []
    for i in range(0, len(data), 1 << 16):
        pieces.extend(decoding.feed(data[i : i + (1 << 16)]))
        if decoding.over:
            break
    assert decoding.over and decoding.size == 3_000_000 == sum(map(len, pieces))
    assert max(map(len, pieces)) <= 2 * STEP  # brotli stops growing its buffer past the room
    assert decoding.feed(b"more") == []  # nothing more is read


def test_broken_data_and_too_many_codings_are_refused() -> None:
    for coding in ("gzip", "deflate", "br", "zstd"):
        with pytest.raises(DecodingError, match="broken"):
            decoded(b"\x00not compressed at all" * 10, coding, 1000)
    with pytest.raises(DecodingError, match="encoded 4 times over"):
        Decoding("gzip, gzip, br, gzip", 1000)
    assert decoded(gzip.compress(TEXT), "gzip", 10) == (TEXT[:10], True)
