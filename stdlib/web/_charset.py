"""Which text encoding an HTML answer is in, found as browsers find it (the HTML standard's
sniffing, then Firefox's guess). Reads bytes only: no network, no pages.
"""

from __future__ import annotations

import re
from typing import Any

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
SNIFF_BYTES = 4096  # what <meta> charsets are looked for in
GUESS_BYTES = 65_536  # what an unlabelled page's encoding is guessed from (a browser's first reads)


def decode(data: bytes, content_type: str) -> tuple[str, str]:
    """The text of an HTML answer and its codec, found as the HTML standard's encoding sniffing
    finds it: a BOM, the Content-Type's charset, a <meta> one (labels the Encoding standard
    knows; others are passed over, as browsers pass them), else guessed as Firefox
    guesses. Bytes that do not decode are replaced, as browsers replace them."""
    import webencodings

    encoding = _labelled(content_type, data)
    if encoding is None:
        encoding = webencodings.lookup(_guessed(data)) or webencodings.lookup("windows-1252")
    text, used = webencodings.decode(data, encoding, errors="replace")
    return text, used.codec_info.name


def _labelled(content_type: str, data: bytes) -> Any:
    """The encoding the header, else the first <meta> with a known label, names (None: none)."""
    import webencodings

    header = re.search(r"charset\s*=\s*[\"']?([^\s;\"']+)", content_type, re.I)
    if header and (encoding := webencodings.lookup(header.group(1))) is not None:
        return encoding
    for meta in _META_CHARSET.finditer(data[:SNIFF_BYTES]):
        encoding = webencodings.lookup(meta.group(1).decode("ascii", "replace"))
        if encoding is None:
            continue
        if encoding.name in ("utf-16be", "utf-16le"):  # the page could not be read to say so
            return webencodings.lookup("utf-8")
        if encoding.name == "x-user-defined":
            return webencodings.lookup("windows-1252")
        return encoding
    return None


def _guessed(data: bytes) -> str:
    """The label of an unlabelled page's encoding, as Firefox guesses it (chardetng, which
    falls back to windows-1252) and Chromium reads it: never UTF-8 for a page off the web."""
    from chardetng_py import detect

    guess: str = detect(data[:GUESS_BYTES], allow_utf8=False)
    return guess
