"""A page's counts (_groups): made once a page and shared by every rule that reads them, with
only the kept words counted at each call; a list of blocks made by hand is counted the same."""

from __future__ import annotations

from taskplate.stdlib.content import _groups as counts
from tests.stdlib.content_pages import parsed_page as parsed

CARD = (
    "<div class='card card-{n}'><h3>Plan {n}</h3><p>Plan {n} fits a team of {n} people.</p></div>"
)
PAGE = (
    "<main><p>Compare the plans before you choose one.</p>"
    + "".join(CARD.format(n=n) for n in range(1, 5))
    + "</main><nav><a href='/a'>Home</a><a href='/b'>About</a><a href='/c'>Help</a></nav>"
)


def test_the_counts_are_made_once_a_page_and_the_kept_words_each_call() -> None:
    _, page_blocks = parsed(PAGE)
    none = [False] * len(page_blocks)
    first = counts.groups(page_blocks, none)
    layout = page_blocks.layout
    assert layout is not None and set(layout.counted) == {False}
    cards = [g for g in first if g.parent.tag == "main"]
    assert len(cards) == 1 and len(cards[0].members) == 4 and cards[0].kept == 0
    kept = [("plan 2" in " ".join(b.words)) for b in page_blocks]
    again = counts.groups(page_blocks, kept)
    assert page_blocks.layout is layout  # not counted again
    card = next(g for g in again if g.parent.tag == "main")
    assert card.members is cards[0].members and card.kept == sum(
        counts.plain(b) for b, k in zip(page_blocks, kept, strict=True) if k
    )
    assert cards[0].kept == 0  # the earlier answer is not changed by the later one
    counts.groups(page_blocks, kept, links=True)
    assert set(layout.counted) == {False, True}


def test_a_list_made_by_hand_is_counted_as_the_page_blocks_are() -> None:
    _, page_blocks = parsed(PAGE)
    kept = [i % 2 == 0 for i in range(len(page_blocks))]
    for links in (False, True):
        by_page = counts.groups(page_blocks, kept, links)
        by_hand = counts.groups(list(page_blocks), kept, links)
        assert [(g.parent, g.members, g.plain, g.kept, g.linked) for g in by_page] == [
            (g.parent, g.members, g.plain, g.kept, g.linked) for g in by_hand
        ]
        assert counts.tallies(page_blocks, kept, links) == counts.tallies(
            list(page_blocks), kept, links
        )
    assert not any(g.parent.tag == "nav" for g in counts.groups(page_blocks, kept, True))


def test_a_group_in_a_landmark_of_the_chrome_is_no_group() -> None:
    links = "".join(
        f"<div class='entry'><a href='/{n}'>Entry {n} of the menu</a></div>" for n in range(5)
    )
    for frame in (
        "<div role='navigation'>{}</div>",
        "<div role='search'>{}</div>",
        "<nav>{}</nav>",
    ):
        _, page_blocks = parsed(f"<main>{frame.format(links)}</main>")
        assert counts.groups(page_blocks, [False] * len(page_blocks), links=True) == []
    _, page_blocks = parsed(f"<main><div role='list'>{links}</div></main>")
    assert len(counts.groups(page_blocks, [False] * len(page_blocks), links=True)) == 1
