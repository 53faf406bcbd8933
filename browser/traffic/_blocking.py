"""What a reading tab need not load: images, media and fonts by file type, and requests to
known ad and tracker hosts. Patterns only; the tab applies them in the browser (no round trips).
"""

from __future__ import annotations

from collections.abc import Iterable

_EXTENSIONS = {
    "images": ("png", "jpg", "jpeg", "gif", "webp", "avif", "bmp", "ico", "svg"),
    "media": ("mp4", "webm", "ogg", "ogv", "mp3", "wav", "m4a", "mov", "m3u8", "mpd"),
    "fonts": ("woff", "woff2", "ttf", "otf", "eot"),
}
# Hosts that serve advertising and tracking and no page content (as ad blockers list them).
AD_HOSTS = (
    "doubleclick.net",
    "googlesyndication.com",
    "googleadservices.com",
    "google-analytics.com",
    "googletagmanager.com",
    "googletagservices.com",
    "adservice.google.com",
    "amazon-adsystem.com",
    "adnxs.com",
    "criteo.com",
    "criteo.net",
    "taboola.com",
    "outbrain.com",
    "scorecardresearch.com",
    "quantserve.com",
    "hotjar.com",
    "connect.facebook.net",
    "ads-twitter.com",
    "adsrvr.org",
    "rubiconproject.com",
    "pubmatic.com",
    "openx.net",
    "casalemedia.com",
    "moatads.com",
    "chartbeat.com",
)


def blocked_url_patterns(kinds: Iterable[str]) -> list[str]:
    """Chromium URL patterns (`*` wildcards) for the given kinds."""
    patterns: list[str] = []
    for kind in sorted(set(kinds)):
        if kind == "ads":
            patterns += [f"*://*.{host}/*" for host in AD_HOSTS]
            patterns += [f"*://{host}/*" for host in AD_HOSTS]
        else:
            for ext in _EXTENSIONS[kind]:
                patterns += [f"*.{ext}", f"*.{ext}?*", f"*.{ext}#*"]
    return patterns
