"""Healing selectors: fingerprints of what a template's selectors matched (`_fingerprints`), how
alike a live element is to one (`_match`), where a lost element went (`_relocate`), the model as
a tie-breaker (`_tiebreak`), and a run's healer (`_healer`). `dsl test --suggest` (cases/) and
runs share them.
"""

from ._fingerprints import (
    MAX_BYTES,
    Candidate,
    Seen,
    attr_reading,
    kept_without_secrets,
    selector_of,
    with_selector,
)
from ._healer import MODES, Healer, narrowed, place_key, place_of
from ._lists import learned_list, regrown
from ._match import LEAST_SCORE, brittle, excluding, likeness, ranked, selectors_for
from ._relocate import MARGIN, Option, relocate

__all__ = [
    "LEAST_SCORE",
    "MARGIN",
    "MAX_BYTES",
    "MODES",
    "Candidate",
    "Healer",
    "Option",
    "Seen",
    "attr_reading",
    "brittle",
    "excluding",
    "kept_without_secrets",
    "learned_list",
    "likeness",
    "narrowed",
    "place_key",
    "place_of",
    "ranked",
    "regrown",
    "relocate",
    "selector_of",
    "selectors_for",
    "with_selector",
]
