"""Forum threads: every post is content, each with its author and date.

Article extractors treat replies as comments and drop them; on a thread they are the point.
Posts are found by structure — the largest group of same-shaped blocks classed as posts,
messages, replies or answers that name an author — so any forum engine with semantic markup
(Discourse, phpBB, vBulletin, XenForo, Stack Exchange, Reddit) reads the same way.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from lxml import etree

from ..models import ContentFormat
from .boilerplate import prune_boilerplate
from .dom import own_copy, render_node
from .markdown import TextFormat, render
from .measure import node_text
from .tags import HEADING_TAGS
from .tree import drop

__all__ = ["Post", "extract_posts", "find_posts", "read_forum", "render_posts"]

_POST = re.compile(
    r"(?:^|[-_\s])(post|message|reply|comment|answer|topic-post|postbit|forum-post|"
    r"thread-item|usertext|entry)(?:$|[-_\s\d])"
    # or a camelCase word ("cPost", "ipsComment", "postItem")
    r"|(?-i:[a-z](?:Post|Message|Reply|Comment|Answer)(?=$|[-_\sA-Z\d]))"
    r"|(?-i:(?:^|[-_\s])(?:post|message|reply|comment|answer)(?=[A-Z]))",
    re.IGNORECASE,
)
_NOT_POST = re.compile(
    r"(?:^|[-_\s])(body|content|text|header|footer|meta|info|actions|controls|signature|"
    r"author|user|avatar|date|time|list|stream|form|count|title|link|"
    r"menu|share|vote|votes|tools)(?:$|[-_\s])"
    r"|(?-i:[a-z](?:Body|Content|Text|Header|Footer|Meta|Info|Actions|Controls|Signature|"
    r"Author|User|Avatar|Date|Time|List|Title|Link|Menu|Share|Votes?|Tools|Buttons?|Toolbar)"
    r"(?=$|[-_\sA-Z\d]))",
    re.IGNORECASE,
)
_AUTHOR = re.compile(
    r"(?:^|[-_\s])(author|[a-z]*username|user-name|name|poster|postauthor|creator|user-details|"
    r"user-info|member-name|uname|nickname|byline)(?:$|[-_\s])",
    re.IGNORECASE,
)
_NAME = re.compile(
    r"(?:^|[-_\s])(name|username|user-name|member-name|author-name|display-name|nickname|"
    r"uname)(?:$|[-_\s])",
    re.IGNORECASE,
)
_AVATAR = re.compile(r"avatar|photo|picture", re.IGNORECASE)
_DATE = re.compile(r"(?:^|[-_\s])(date|time|timestamp|post-date|posted|published)", re.I)
_BODY = re.compile(
    r"(?:^|[-_\s])(cooked|post-?body|post-?content|post-?text|post[-_]?message|message-?body|"
    r"message-?content|"
    r"messagetext|content|entry-content|usertext-body|s-prose|js-post-body|bbwrapper|"
    r"comment-?body|comment-?content|answer-?body|text)(?:$|[-_\s])"
    # camelCase: userContent, richText (not a layout's primaryContent)
    r"|(?-i:(?:user|post|message|comment|reply|rich)(?:Body|Content|Text)(?=$|[-_\s]))",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Post:
    author: str | None
    date: str | None
    body: etree._Element


def _names(node: etree._Element) -> str:
    return f"{node.get('class') or ''} {node.get('id') or ''} {node.get('itemprop') or ''}"


def _key(node: etree._Element) -> str:
    classes = (node.get("class") or "").split()
    post_classes = [c for c in classes if _POST.search(c) and not _NOT_POST.search(c)]
    return f"{node.tag}.{post_classes[0] if post_classes else ''}"


def _is_post_candidate(node: etree._Element) -> bool:
    itemtype = node.get("itemtype")
    if itemtype and any(
        t in itemtype for t in ("Comment", "Answer", "DiscussionForumPosting", "Question")
    ):
        return True
    names = _names(node)
    if not _POST.search(names):  # one search settles most nodes
        return False
    words = names.split()
    if any(_is_part(n) for n in words):
        return False
    return any(_POST.search(n) and not _NOT_POST.search(n) for n in words)


def _is_part(name: str) -> bool:
    """A class naming a post's part ("message-cell--user", "post-body"): the part word comes
    after the post word ("h-content-post-box" is a post of content, not a part)."""
    post, part = _POST.search(name), _NOT_POST.search(name)
    return bool(post and part and part.start() > post.start())


def _find_author(node: etree._Element) -> str | None:
    found = _author_block(node)
    return None if found is None else found[1]


def _author_block(node: etree._Element) -> tuple[etree._Element, str] | None:
    """The block naming the post's author (with its titles and post counts), and the name."""
    for el in node.iter():
        if not isinstance(el.tag, str):
            continue
        if (
            el.get("itemprop") == "author"
            or el.get("rel") == "author"
            or _AUTHOR.search(el.get("class") or "")
        ):
            text = _author_name(el)
            if 0 < len(text) <= 60:
                return el, text
    return None


def _author_name(el: etree._Element) -> str:
    """The name in an author block: its name property or name-classed part, else its first
    link that is no avatar, else all its text (which also holds titles and post counts)."""
    named = _named_part(el)
    while named is not None:  # the innermost: "name-with-badges" may wrap "name"
        inner = _named_part(named)
        if inner is None:
            text = named.get("content") or node_text(named)
            if text:
                return text
            break
        named = inner
    for link in el.iter("a"):
        text = node_text(link)
        if len(text) > 1 and not any(_AVATAR.search(n.get("class") or "") for n in link.iter()):
            return text
    return node_text(el)


def _named_part(el: etree._Element) -> etree._Element | None:
    for node in el.iter():
        if node is not el and isinstance(node.tag, str):
            if node.get("itemprop") == "name" or _NAME.search(node.get("class") or ""):
                return node
    return None


def _find_date(node: etree._Element) -> str | None:
    for el in node.iter("time"):
        text = node_text(el)
        return text or el.get("datetime") or el.get("title")
    for el in node.iter():
        if isinstance(el.tag, str) and _DATE.search(el.get("class") or ""):
            text = node_text(el)
            if 0 < len(text) <= 40:
                return text
    return None


def _find_body(node: etree._Element) -> etree._Element:
    """The post's text: the largest body-classed block, narrowed to a body-classed block
    inside it that holds nearly all its text (a post body wrapping the subject line and the
    "by author » date" line around the message)."""
    sizes: list[tuple[int, etree._Element]] = []
    for el in node.iter():
        if el is node or not isinstance(el.tag, str):
            continue
        names = f"{el.get('class') or ''} {el.get('id') or ''}"
        if el.get("itemprop") in ("text", "articleBody") or _BODY.search(names):
            sizes.append((len("".join(el.itertext())), el))
    if not sizes:
        return node
    size, best = max(sizes, key=lambda x: x[0])
    inner = [(n, el) for n, el in sizes if el is not best and n >= _NARROW * size]
    while inner:
        inside = [(n, el) for n, el in inner if best in el.iterancestors()]
        if not inside:
            break
        size, best = max(inside, key=lambda x: x[0])
        inner = [(n, el) for n, el in inside if el is not best]
    return best


_NARROW = 0.6  # of the outer body's text: the inner block is the message


def _has_author_and_text(node: etree._Element) -> bool:
    """A post names its author and says something: an author line alone is only a part."""
    author = _find_author(node)
    if author is None:
        return False
    return len(node_text(node)) > len(author) + 8


def find_posts(root: etree._Element) -> list[etree._Element]:
    """The largest group of same-shaped post blocks that carry an author (outermost only)."""
    groups: dict[str, list[etree._Element]] = defaultdict(list)
    candidates: list[etree._Element] = []
    for node in root.iter():
        if isinstance(node.tag, str) and len(node) and _is_post_candidate(node):
            groups[_key(node)].append(node)
            candidates.append(node)
    outers = []
    for nodes in groups.values():
        members = set(nodes)
        outers.append([n for n in nodes if not any(a in members for a in n.iterancestors())])
    # the largest group that is authored; on a tie the first (outer) one, as sort is stable
    for outer in sorted(outers, key=len, reverse=True):
        if len(outer) < 2:
            break
        authored = sum(1 for n in outer if _has_author_and_text(n))
        if authored >= 2 and authored >= 0.5 * len(outer):
            return _with_siblings(outer, candidates)
    return []


def _with_siblings(
    posts: list[etree._Element], candidates: list[etree._Element]
) -> list[etree._Element]:
    """The posts plus authored post blocks of the same tag beside them: engines class the
    starter's posts ("topic-owner-post") or the opening post apart from the replies."""
    parents = {p.getparent() for p in posts}
    chosen = set(posts)
    tag = posts[0].tag
    extra = {
        n
        for n in candidates
        if n not in chosen and n.tag == tag and n.getparent() in parents and _has_author_and_text(n)
    }
    if extra:  # a block that repeats a post (a summary of the opening post) adds nothing
        said = " ".join(node_text(_find_body(p)) for p in posts)
        extra = {n for n in extra if node_text(_find_body(n))[:200] not in said}
    return [n for n in candidates if n in chosen or n in extra]


_QA = re.compile(r"schema\.org/(Question|Answer)$", re.IGNORECASE)


def _own_prop(scope: etree._Element, names: tuple[str, ...]) -> etree._Element | None:
    """The first element under `scope` with one of these itemprops that belongs to `scope`
    itself, not to an item nested in it (an answer's comments carry their own text)."""
    for el in scope.iter():
        if el is scope or not isinstance(el.tag, str) or el.get("itemprop") not in names:
            continue
        owner = next((a for a in el.iterancestors() if a.get("itemscope") is not None), None)
        if owner is scope:
            return el
    return None


def _prop_text(el: etree._Element | None) -> str | None:
    if el is None:
        return None
    return el.get("content") or node_text(el) or None


def _item_author(item: etree._Element) -> str | None:
    """The author's name: its name property, else its first link (a user card's text also
    holds reputation and badge counts)."""
    author = _own_prop(item, ("author",))
    if author is None:
        return None
    name = _own_prop(author, ("name",))
    if name is None:
        name = next((a for a in author.iter("a") if "".join(a.itertext()).strip()), author)
    return _prop_text(name)


def _qa_posts(root: etree._Element) -> list[Post] | None:
    """A question and its answers marked up as schema.org items (Stack Exchange and the many
    Q&A engines that follow it): each item's own text, author and date, comments left out."""
    items = [
        el
        for el in root.xpath("//*[@itemscope][@itemtype]")
        if _QA.search(el.get("itemtype") or "")
    ]
    kinds = {(el.get("itemtype") or "").rpartition("/")[2].lower() for el in items}
    if kinds != {"question", "answer"}:
        return None
    posts = []
    for item in items:
        body = _own_prop(item, ("text",))
        if body is None:
            continue
        date = _own_prop(item, ("dateCreated", "datePublished"))
        _prune_post(body)
        # the date a reader sees; a machine date only in an attribute is no part of the text
        shown = node_text(date) if date is not None else ""
        posts.append(Post(_item_author(item), _dated(shown), body))
    return posts


def extract_posts(root: etree._Element) -> list[Post]:
    """Each post's author, date and body (pruned of buttons, signatures and chrome)."""
    qa = _qa_posts(root)
    if qa and len(qa) >= 2:
        return qa
    nodes = find_posts(root)
    bodies = [_find_body(n) for n in nodes]
    opening = _opening_post(nodes, bodies)
    if opening is not None:
        nodes, bodies = [opening[0], *nodes], [opening[1], *bodies]
    posts = []
    for node, body in zip(nodes, bodies, strict=True):
        author, date = _find_author(node), _dated(_find_date(node))
        if body is node:
            _drop_profile(node)
        _prune_post(body)
        for said in (author, date):
            if said:
                _drop_restated(body, said)
        posts.append(Post(author, date, body))
    _drop_repeated_chrome(posts)
    _drop_requoted(posts)
    return posts


def _drop_requoted(posts: list[Post]) -> None:
    """Remove quotes of what the thread already said: a reply quoting an earlier post repeats
    its words, and the earlier post is there to read in full."""
    said = ""
    for post in posts:
        for quote in post.body.xpath(".//blockquote | .//*[contains(@class, 'quote')]"):
            text = node_text(quote)
            if len(text) > _QUOTE_MIN and text[-_QUOTE_TAIL:] in said:
                drop(quote)
        said += " " + node_text(post.body)


_QUOTE_MIN = 40  # characters: a quote shorter than this is kept, a few words repeat nothing
_QUOTE_TAIL = 80  # characters: a quote ending in words said earlier repeats them


_RELATIVE = re.compile(r"\bago\s*$", re.IGNORECASE)


def _dated(date: str | None) -> str | None:
    """A date as the page states it; a relative one ("3 hours ago") is dropped, it is stale as
    soon as the text is stored."""
    return None if not date or _RELATIVE.search(date) else date


def _drop_restated(body: etree._Element, said: str) -> None:
    """Remove the short line in the body that restates the post's author or date ("Posted
    March 3", "by ana"), with the short byline around it ("submitted 3 hours ago by ana"),
    which would read "by" alone: the post's heading says it once."""
    limit = len(said.split()) + 2
    for el in body.iter():
        if el is body or not isinstance(el.tag, str):
            continue
        text = node_text(el)
        if said in text and len(text.split()) <= limit:
            drop(_line_of(el, body))
            return


def _line_of(el: etree._Element, body: etree._Element) -> etree._Element:
    """The element with the short byline around it ("submitted 3 hours ago by ana")."""
    line = el
    for parent in el.iterancestors():
        if parent is body or not _is_byline(parent):
            break
        line = parent
    return line


def _drop_profile(node: etree._Element) -> None:
    """Remove the author's card from a post that has no separate body (name, rank, post
    count, "Logged"): the post's heading names the author, the rest is the engine's."""
    found = _author_block(node)
    if found is None or found[0] is node:
        return
    words = len(node_text(found[0]).split())
    if words <= _PROFILE_WORDS and words < _PROFILE_SHARE * len(node_text(node).split()):
        drop(_line_of(found[0], node))


_PROFILE_WORDS = 30  # an author's card: name, rank, badges and counts
_PROFILE_SHARE = 0.5  # of the post's words: a larger "author" block holds the post


def _is_byline(el: etree._Element) -> bool:
    """A short line of inline text (no paragraphs or blocks in it): a byline, not a post."""
    return len(node_text(el).split()) <= _BYLINE_WORDS and all(
        c.tag in _INLINE for c in el if isinstance(c.tag, str)
    )


_BYLINE_WORDS = 8  # a line this short around the author's name is the byline
_INLINE = frozenset("a abbr b bdi br cite em font i img small span strong sub sup time u".split())


def _opening_post(
    nodes: list[etree._Element], bodies: list[etree._Element]
) -> tuple[etree._Element, etree._Element] | None:
    """The thread's first post when the engine marks it apart from the replies (a discussion
    above its comments): the one earlier block whose body is shaped like the replies' bodies,
    widened to the largest block around it that holds no reply."""
    if not nodes or bodies[0] is nodes[0] or not bodies[0].get("class"):
        return None
    first, body = nodes[0], bodies[0]
    inside = set(nodes)
    found = []
    for el in first.getroottree().iter():
        if el is first:
            break
        if (
            el.tag == body.tag
            and el.get("class") == body.get("class")
            and not any(a in inside for a in el.iterancestors())
        ):
            found.append(el)
    if len(found) != 1:
        return None
    block = found[0]
    for parent in found[0].iterancestors():
        if any(n in inside for n in parent.iter()) or parent.tag in ("body", "main"):
            break
        block = parent
    return (block, found[0]) if _has_author_and_text(block) else None


_SIGN_OFF = re.compile(r"signature|last-?edit|edited-?by", re.IGNORECASE)  # and edit notes


def _prune_post(body: etree._Element) -> None:
    """A post's text without the page chrome, its controls ("Click to expand...") and its
    author's signature (the same sign-off under every post, not what the post says)."""
    for el in body.xpath(".//*[@role='button'] | .//a[not(@href)]"):
        if el.tag != "a" or len(node_text(el).split()) <= _CONTROL_WORDS:
            drop(el)
    for el in body.xpath(".//*[@class or @id or @data-role]"):
        if _SIGN_OFF.search(" ".join(el.get(a) or "" for a in ("class", "id", "data-role"))):
            drop(el)
        elif "label-hidden" in (el.get("class") or ""):  # a field whose label is hidden, shown
            el.set("class", _LABEL_HIDDEN.sub(" ", el.get("class") or ""))
    prune_boilerplate(body)


_CONTROL_WORDS = 4  # a script-driven link without a target ("Click to shrink...") is this short
# from a class name's start only: from every character of a long name it was quadratic
_LABEL_HIDDEN = re.compile(r"(?<!\S)\S*label-hidden\S*")


_REPLY_PREFIX = re.compile(r"^(?:re\s*:\s*)+", re.IGNORECASE)
_CHROME_WORDS = 6  # a button or label ("Reply with quote", "Click to expand...") is this short


def _drop_repeated_chrome(posts: list[Post]) -> None:
    """Remove short texts that recur across the thread's posts: the same words in a third of
    the posts are the engine's buttons and labels, not what anyone wrote; so is a subject
    heading repeating the thread's ("Re: Pump hums at night")."""
    if len(posts) < 3:
        return
    seen: dict[str, list[etree._Element]] = defaultdict(list)
    for post in posts:
        texts: dict[str, etree._Element] = {}
        for el in post.body.iter():
            if el is post.body or not isinstance(el.tag, str):
                continue
            text = node_text(el)
            if el.tag in HEADING_TAGS:
                text = _REPLY_PREFIX.sub("", text)
            elif len(text.split()) > _CHROME_WORDS:
                continue
            if text and text not in texts:
                texts[text] = el
        for text, el in texts.items():
            seen[text].append(el)
    floor = max(3, len(posts) / 3)
    for els in seen.values():
        if len(els) >= floor:
            for el in els:
                drop(el)


def render_posts(posts: list[Post], fmt: TextFormat, title: str | None = None) -> str:
    """A thread as posts: author and date, then the post's text, for each post in order."""
    parts: list[str] = []
    if title and fmt == "markdown":
        parts.append(f"# {title}")
    for post in posts:
        text = render(post.body, fmt)
        if not text.strip():
            continue
        head = " · ".join(x for x in (post.author, post.date) if x)
        if fmt == "markdown":
            parts.append((f"### {head}\n\n" if head else "") + text)
        else:
            lines = [x for x in (post.author, post.date) if x]
            parts.append("\n".join([*lines, "", text]) if lines else text)
    sep = "\n\n---\n\n" if fmt == "markdown" else "\n\n"
    return sep.join(parts)


def read_forum(tree: etree._Element, url: str | None, fmt: ContentFormat) -> str | None:
    """The thread as its posts, or None when the page holds fewer than two (read it generically)."""
    posts = extract_posts(own_copy(tree, url))
    if len(posts) < 2:
        return None
    if fmt == "html":
        return "\n".join(render_node(p.body, "html") for p in posts)
    return render_posts(posts, fmt).strip() or None
