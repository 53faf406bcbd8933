"""What one extractor returned, as the vote on a page's blocks reads it (_selection.choose): its
words, their 4-word shingles, used up block by block so a repeated block counts once.
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

from ._blocks import WORD, shingles

# An extractor "returned" a block when it holds at least this share of the block's 4-word
# shingles (the votes a block needs: _rules.VOTES).
COVERAGE = 0.5


class VoterText:
    """What one extractor returned, consumed block by block so a repeated block counts once."""

    def __init__(self, text: str) -> None:
        words = WORD.findall(text.lower())
        self.words = len(words)
        self.shingles = shingles(words)
        self.joined = f" {' '.join(words)} "
        self.vocabulary = set(words)

    def fresh(self) -> VoterText:
        """The same reading with none of its shingles used up (counting them again is most of
        a large page's cost)."""
        again = object.__new__(VoterText)
        again.words, again.joined, again.vocabulary = self.words, self.joined, self.vocabulary
        again.shingles = self.shingles.copy()
        return again

    def holds(self, words: list[str], wanted: Counter[tuple[str, ...]]) -> dict[Any, int] | None:
        """The shingles of a block this reading holds when it holds most of the block (its
        words and their shingles), else None; nothing is used up yet (`spend`)."""
        if not wanted:  # fewer than four words: the exact run of words
            vocabulary = self.vocabulary
            found = all(w in vocabulary for w in words) and f" {' '.join(words)} " in self.joined
            return {} if found else None
        have = self.shingles
        got = {s: min(n, have[s]) for s, n in wanted.items() if have.get(s, 0) > 0}
        return got if sum(got.values()) >= COVERAGE * (len(words) - 3) else None

    def spend(self, got: dict[Any, int]) -> None:
        """Use up the shingles a block took, so a repeated block counts once."""
        have = self.shingles
        for shingle, count in got.items():
            have[shingle] -= count


@functools.lru_cache(maxsize=8)
def read(text: str) -> VoterText:
    """A text's reading, made once for one page (_selection.main_region empties this when it
    is done): two extractors often return the same text, and _lone reads them again. Never
    spent: a decision spends a `fresh` copy."""
    return VoterText(text)
