"""A feed of stories that name their authors is a listing, not a thread: its cards head pages
of their own; a thread's posts are on the page itself, however many of them there are."""

from __future__ import annotations

from lxml import etree

from netsift.fetch.html import extract_html, parse_html
from netsift.fetch.pagetype import classify_page

STORIES = [
    "Drift to determinism in agent loops",
    "The women who helped me grow as a developer",
    "Why friction is an engineering prerequisite",
    "Rebuilding a tunnel tool over one weekend",
    "Screen reader experience on a chat app",
    "Decisions about architecture in small teams",
    "Packaging your code for language model prompts",
]


def _tree(html: str) -> etree._Element:
    tree = parse_html(html)
    assert tree is not None
    return tree


def _feed() -> str:
    """A developer site's home feed: each story card names its author, like a post would."""
    cards = "".join(
        f"<article class='post-card'><div class='post-card__meta'>"
        f"<a class='post-card__author-name' href='/writer{n}'>Writer {n}</a>"
        f"<time datetime='2026-03-0{n + 1}'>Mar {n + 1}</time></div>"
        f"<h2 class='post-card__title'><a href='/writer{n}/story-{n}'>{title}</a></h2>"
        f"<div class='post-card__tags'><a href='/t/ai'>#ai</a> "
        f"<a href='/t/webdev'>#webdev</a></div>"
        f"<span>{n + 2} min read</span></article>"
        for n, title in enumerate(STORIES)
    )
    return (
        "<html><head><title>Community</title></head><body><nav><a href='/'>Home</a></nav>"
        f"<main><h1>Posts</h1><div class='feed'>{cards}</div></main>"
        "<footer>Copyright</footer></body></html>"
    )


def _thread(subject: str, link: str) -> str:
    """A board's thread: each post has a subject heading linking to its permalink, as many
    posts as there are same-shaped blocks (the card run and the posts are one count)."""
    posts = "".join(
        f"<div class='post'><div class='postbody'><h3><a href='{link.format(n=n)}'>"
        f"{subject if n == 0 else 'Re: ' + subject}</a></h3>"
        f"<p class='author'>by <a class='username' href='/member{n}'>member{n}</a> » Mar {n}</p>"
        f"<div class='content'>Answer {n}: the pump hums because the impeller is worn out, "
        f"replace it and check the seal.</div></div></div>"
        for n in range(7)
    )
    return (
        "<html><head><title>Pump hums</title></head><body>"
        f"<main><h1>{subject}</h1><div class='topic'>{posts}</div></main></body></html>"
    )


def test_a_feed_of_authored_story_cards_is_a_listing() -> None:
    result = classify_page(_tree(_feed()), "https://community.test/")
    assert result.type == "listing", result.evidence
    assert [e.seen for e in result.evidence if e.signal == "dom:feed-items"] == ["7/7"]


def test_a_feed_reads_every_story_not_posts_by_author() -> None:
    page = extract_html(_feed(), url="https://community.test/", format="markdown")
    assert page.page_type == "listing"
    for title in STORIES:
        assert title in page.content
    assert "### Writer" not in page.content  # a thread's post heading, one per author


def test_a_thread_whose_subjects_link_to_permalinks_stays_a_thread() -> None:
    for link in ("/viewtopic.php?p={n}#p{n}", "#post-{n}"):
        html = _thread("Pump hums at night", link)
        result = classify_page(_tree(html), "https://board.test/viewtopic.php?t=7")
        assert result.type == "forum", (link, result.evidence)
        seen = {e.signal: e.seen for e in result.evidence}
        assert seen["dom:posts"] == "7"
        assert seen["dom:cards"] == "7"  # counts are equal
        # the same at an address that says nothing
        assert classify_page(_tree(html), "https://x.test/page").type == "forum"


def test_a_thread_whose_headings_name_the_author_stays_a_thread() -> None:
    posts = "".join(
        f"<article class='message'><h4 class='message-name'><a class='username' "
        f"href='/members/{n}'>Member number {n} here</a></h4><div class='message-content'>"
        f"Reply {n}: I had the same noise, a new impeller fixed it within the hour.</div></article>"
        for n in range(7)
    )
    html = f"<html><body><main><div class='thread'>{posts}</div></main></body></html>"
    result = classify_page(_tree(html), "https://x.test/page")
    assert result.type == "forum", result.evidence


def _book_list() -> str:
    """A list of books, each a schema.org Book, with the list's comment thread under it."""
    rows = "".join(
        f"<tr itemscope itemtype='http://schema.org/Book'><td>{n + 1}</td><td>"
        f"<a href='/book/{n}' itemprop='url'><span itemprop='name'>Book number {n}</span></a>"
        f" by <a href='/author/{n}'>Author {n}</a> 4.{n} avg rating, {n + 3},120 ratings, score "
        f"{n + 1},381 and {n + 40} people voted</td></tr>"
        for n in range(10)
    )
    comments = "".join(
        f"<div class='comment'><span class='commentAuthor'><a href='/user/{n}'>reader{n}"
        f"</a></span><div class='reviewText'>Comment {n}: misses my favourite.</div></div>"
        for n in range(10)
    )
    return (
        "<html><body><main><h1>Best books ever</h1>"
        f"<table>{rows}</table><div class='comments'>{comments}</div></main></body></html>"
    )


def test_a_list_of_declared_items_above_its_comments_is_a_listing() -> None:
    """The comments are authored posts, as many as the rows, but the page is the list."""
    result = classify_page(_tree(_book_list()), "https://books.test/list/show/1")
    assert result.type == "listing", result.evidence
    items = [e for e in result.evidence if e.signal == "schema:items"]
    assert [(e.seen, e.where) for e in items] == [("10 book", "microdata")]


def test_a_listing_reads_its_items_without_the_comments_under_them() -> None:
    page = extract_html(_book_list(), url="https://books.test/list/show/1", format="text")
    assert page.page_type == "listing"
    for n in range(10):
        assert f"Book number {n}" in page.content
    assert "misses my favourite" not in page.content


def test_comments_holding_most_of_a_block_page_stay() -> None:
    """A page that is mostly its comments (a listing of readers' remarks) keeps them."""
    comments = "".join(
        f"<div class='comment'><span class='commentAuthor'><a href='/user/{n}'>reader{n}"
        f"</a></span><div class='reviewText'>Comment {n}: a long remark about the list, "
        f"saying much more than the short list above it does about any book.</div></div>"
        for n in range(8)
    )
    html = (
        "<html><body><main><h1>Remarks</h1><p>Two books.</p>"
        f"<div class='comments'>{comments}</div></main></body></html>"
    )
    page = extract_html(html, url="https://books.test/remarks", format="text", page_type="listing")
    assert "Comment 7: a long remark" in page.content
