"""The choices of main-content selection (`Rules`, _selection's): each rule a field, kept in the
shipped rules only when cross-validation supports it (bench/content.py, bench/content_wcxb_tune.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ._voters import VOTERS

VOTES = 3  # a block is kept when this many of the four voters voted for it


@dataclass(frozen=True)
class Rules:
    """The choices of the selection, each kept only when it raises the cross-validated F1 of
    bench/content.py: the page clean-ups run first (names from _boilerplate.CLEANUPS), the
    votes a block needs, and whether short blocks are judged by their neighbours."""

    cleanups: tuple[str, ...] = ()
    votes: int = VOTES
    context: bool = True
    voters: tuple[str, ...] = VOTERS
    # How trafilatura's two modes vote, as they read one shared parse and fail together:
    # "apart" (a vote each), "either" (one vote when either holds the block), "both" (one
    # vote when both do).
    pair: str = "apart"
    # A long block whose link text is more than this share of its characters (a "Read more:
    # <other story>" line) is kept only when every voter voted for it; None: no such rule.
    links: float | None = None
    # Only such a line with a few words of its own before or after its link ("Read more:",
    # "Related:") needs every vote; a line that is all link is judged as any block.
    labelled: bool = False
    # Which blocks use up the extractors' text they hold: "all" (every long block, in page
    # order, kept or not), "kept" (only the kept ones: a repeated text's votes stay for its
    # next copy when the first is rejected) or "run" (as "kept", then again with the blocks
    # between kept ones first: the body's copy of a text wins over a caption's or a box's).
    spend: str = "all"
    # The votes a long block between two kept long blocks (inside the article's run) needs,
    # when it is mostly plain text (run_votes) or mostly link text (run_links); None: as any.
    run_votes: int | None = None
    run_links: int | None = None
    # A kept block inside a figure (a caption, a photo credit) of fewer words than this is
    # dropped; 0: kept.
    captions: int = 0
    # Kept lines after the article's last prose that are mostly links or a few words (tags,
    # categories) are dropped.
    tags: bool = False
    # Kept stretches before the article's main run of fewer words than this (a box, a lead
    # caption, a breadcrumb or a dateline above the body) are dropped; 0: kept.
    islands: int = 0
    # Where those small stretches are dropped: before the main run ("main": the stretch with
    # the most words) or only before the article starts ("start": the first stretch of at least
    # `islands` words; the small stretches between long ones, as in a text cut by formulas or
    # figures, are kept).
    islands_before: str = "main"
    # A long block repeating word for word the long block before it, which is kept, is kept:
    # extractors return a text the page repeats only once (trafilatura's rescue of pages
    # without a container deduplicates), so the copy's votes were used up by the first.
    repeats: bool = False
    # Blocks of a quotation or an embedded post (a blockquote) between kept long blocks outside
    # quotations (inside the article) are kept: extractors leave embedded posts out.
    quotes: bool = False
    # The first kept block, when it is a heading that repeats the page's <title> (the answer's
    # title says it already), is dropped.
    title_heading: bool = False
    # Pages of many items (_items.widen): the group of same-shaped siblings with the most plain
    # words, holding a kept block and over `items` times the answer's, kept (links: item_links).
    items: float | None = None
    item_links: bool = False
    # Only a group none of whose items holds most of its words (a page's few wrappers, one of
    # them the whole page, are no items of equal standing).
    item_even: bool = False
    # A thread's posts (_items.kin): the elements of the shape of the answer's container
    # elsewhere on the page, when they hold over `kin` times the answer's plain words.
    kin: float | None = None
    # An answer under this share of the page's plain words: the widest region (_items.fallback)
    least: float | None = None
    # ... and only when the region holds more words than the answer, link text counted (a
    # listing's answer of linked titles stays); False: plain words.
    least_words: bool = False
    # A product's description from its JSON-LD, added when the answer lacks most of it.
    offers: bool = False
    # A thread's posts and replies from its JSON-LD (schema.org DiscussionForumPosting,
    # SocialMediaPosting or Question), added when the answer lacks most of their words.
    posts: bool = False
    # (voter, share): when the voted answer holds fewer words than `share` of that one voter's
    # text, the blocks that voter returned are kept too (the voters disagree: one item kept).
    # Kept blocks inside an element named as a cookie or consent banner dropped after the vote
    # (never when they are most of the answer: a page about cookies).
    consent_kept: bool = False
    lone: tuple[str, float] | None = None
    # When readability returned more than this many times the words of `lone`'s voter, it is
    # the lone voter instead (trafilatura's own choice between its text and readability's).
    rival: float | None = None
    # Only the lone voter's blocks after the answer's first (never a headline above it) ...
    lone_after: bool = False
    # ... when the answer holds at least this many words (fewer: a stray line anchors nothing).
    lone_anchor: int = 0
    # ... and not its link lines of fewer words than this (a menu, an archive); 0: all of them.
    # Either way, what is left must still hold more than the answer by its share.
    lone_links: int = 0
    # jusText's good blocks on the page's own blocks kept too when the answer holds fewer words
    # than this share of theirs (its short link lines left out as `lone_links` says); None: not.
    lone_justext: float | None = None
    # A listing's entries (_items.teasers): the group of same-shaped siblings with the most words,
    # link text counted, none kept and over `teasers` times the answer's words, kept.
    teasers: float | None = None
    # Only a group of entries for `teasers`: most of its items hold a link and none holds most
    # of its words (a page's few big sections, a review filter's rows are no listing).
    entries: bool = False
    # Headings after the answer's start over a kept block (a section's, a card's title) kept.
    headings: bool = False
    # Blocks of at least this many words inside the element holding the whole answer (not the
    # body), not link lines nor chrome, kept (_filling.fill); None: not.
    fill: int | None = None
    # Which region: "common" (the nearest element holding the answer), "main" (the page's
    # <main> around it) or "column" (that <main>, or without one the content column between the
    # page's header and footer around the answer).
    fill_region: str = "common"
    # ... only when the blocks added hold more than this many times the answer's words.
    fill_grow: float = 0
    # With "column", the region of a page without <main> nor a frame (header, footer, menus):
    # "common" (the nearest element holding the answer), "page" (the body's child holding it);
    # "": none. Only for an answer of fewer words than `fill_else_words` (one section of many,
    # not an article's prose); 0: any.
    fill_else: str = ""
    fill_else_words: int = 0
    # ... that limit only on a page whose markup declares an article (og:type, itemtype); any
    # other page's answer of any length reads the region.
    fill_else_articles: bool = False
    # The region around the answer's prose: its link lines (a menu item the vote kept, far from
    # the answer) left out of the nearest element holding it.
    fill_prose: bool = False
    # Items of a group of same-shaped siblings (_groups.groups) of which at least `complete`
    # hold a kept block: their other blocks kept, link lines too (a card's linked title and
    # price beside its kept text); None: not.
    complete: int | None = None
    # ... only items of at most this many words (a card; a thread's posts are read by the vote).
    complete_size: int | None = None
    # ... and with `complete_all`, the group's items holding no kept block as well, of at most
    # `complete_size` words (the one step of a guide's grid, the one section of a service's row
    # of sections the voters passed over: items of equal standing); False: not.
    complete_all: bool = False
    # ... on a page whose markup declares an article (og:type, an article's itemtype) too: there
    # the groups around the story are its teasers of other stories; False: not there.
    complete_all_articles: bool = True
    # Link lines between kept prose (the nearest long blocks that are not link lines, on both
    # sides, kept), inside the element holding both and outside the chrome (a list of forms and
    # permits inside a service page's text) kept; False: not.
    inner_links: bool = False
    # Each item's labels (_items.labels): kept blocks of at most `labels` words whose words are
    # those of at least `label_times` kept blocks (a post's "Share", "Quote", "Member") dropped;
    # with `label_links`, only link lines counted (a table's repeated values stay).
    labels: int | None = None
    label_times: int = 3
    label_links: bool = False
    # ... and with `label_lines`, short lines outside tables, lists and code too ("Member",
    # "Share on other sites" under every post).
    label_lines: bool = False
    # A page of entries read as its intro (_items.titles): its linked headings kept when they
    # hold more than `titles` times the answer's words.
    titles: float | None = None
    # A reply's quotation of an earlier post (_items.quoted): a kept block in a blockquote whose
    # words the kept blocks before it already hold dropped.
    quoted: bool = False
    # A card's title said again (_items.echoes): a kept block of at most `echoes` words (two or
    # more) repeating one of the few kept blocks just before it dropped; None: kept.
    echoes: int | None = None
    # A text said again (_items.said_again): a kept block of at least `again` words repeating
    # word for word an earlier kept block, never code nor a table's cell, dropped; None: kept.
    again: int | None = None
    # ... only a copy held by another element than its first (not an article's own repeat).
    again_apart: bool = False
    # The kinds of page (pageType; "*" any) where a list item or heading said again stays (a
    # tutorial's steps: "Reset the view", "Press Enter"); (): dropped as any text.
    again_steps: tuple[str, ...] = ()
    # The kinds of page (pageType: "product", ...; "*" any) where a section whose heading says
    # it lists other things than the page's own ("Similar items") goes before the vote
    # (_related.py); (): kept on every page.
    related: tuple[str, ...] = ()
    # The kinds of page (pageType; "*" any) where a group of panels a reader opens one at a time
    # (tabs, an accordion's answers) is read whole when the answer holds one of them
    # (_layers.read_panels_whole; a product's tabs are its reviews and terms); (): nowhere.
    panels: tuple[str, ...] = ()
    # (kind of page, clean-up) pairs: the clean-ups that do not run on pages of that kind (a
    # service page's testimonials are its pitch and a listing's reviews its entries, not a
    # product's customer reviews; the sections or entries of one class of a service, a listing
    # or a product are theirs, not an article body split by ad rows; a thread's posts nested in
    # an <article> are its posts, not a story's teasers); (): all run.
    spared: tuple[tuple[str, str], ...] = ()
    # The kinds of page (pageType; "*" any) where a link holding a card (two or more elements
    # of text: a tile's name and price, a card's heading and summary) is read as text, not as
    # a link (_blocks.blocks): a shop's whole tile is one link; (): a link everywhere.
    cards: tuple[str, ...] = ()
    # A list a kept block introduces (its text ends with a colon, the list comes next) kept,
    # its link lines left out (_filling.introduced).
    introduced: bool = False
    # The kinds of page (pageType; "*" any) where the prose between the page's h1 and the
    # answer is kept (_filling.lead: a service page's pitch, a collection's intro); (): nowhere.
    leads: tuple[str, ...] = ()
