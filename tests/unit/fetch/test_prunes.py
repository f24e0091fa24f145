"""fetch/prunes.py selects exactly what trafilatura's XPaths select: compared on trees built
from every token of the patterns, in every attribute they read, in both orders of id and
class (XPath's `@id|@class` is the first written), on every tag the XPaths name and a few
others. A release that changes an XPath fails here and in test_trafilatura_release.py."""

from __future__ import annotations

import random

import pytest
from lxml import etree
from trafilatura.htmlprocessing import prune_unwanted_nodes
from trafilatura.settings import BASIC_CLEAN_XPATH
from trafilatura.xpaths import (
    _CONSENT_ID_CLASS_TOKENS,
    _OVERALL_DISCARD_BOTH_TOKENS,
    _OVERALL_DISCARD_CLASS_TOKENS,
    _OVERALL_DISCARD_ID_TOKENS,
    OVERALL_DISCARD_XPATH,
    RAW_TREE_PRUNE_XPATH,
    REMOVE_COMMENTS_AND_LISTS_XPATH,
    REMOVE_COMMENTS_XPATH,
)

from netsift.fetch import prunes
from netsift.fetch.html import parse_html

PAIRS = [
    (OVERALL_DISCARD_XPATH, prunes.OVERALL_DISCARD),
    (REMOVE_COMMENTS_XPATH, prunes.REMOVE_COMMENTS),
    (REMOVE_COMMENTS_AND_LISTS_XPATH, prunes.REMOVE_COMMENTS_AND_LISTS),
    (RAW_TREE_PRUNE_XPATH, prunes.RAW_TREE_PRUNE),
    ([BASIC_CLEAN_XPATH], (prunes.BASIC_CLEAN,)),
]
# the raw-tree and comment prunes' words, drawn more often: among all words they would seldom
# fall on the few tags those prunes read
RARE = ("mvp-post-add-box", "x mvp-post-add-wrap", "infinite-scroll", "infinitescroll",
        "elementor-share-buttons", "comments", "Comment-x", "x post-comments", "disqus_thread",
        "commentary", "cookie-banner", "x CookieBot", "consent_manager", "site-footer")  # fmt: skip
RARE_SHARE = 0.3
NODES = 3000
SEEDS = range(6)  # elements a tree: enough for each pattern to select some (checked below)
TAGS = ("div", "item", "list", "p", "section", "span", "details", "ol", "ul", "aside", "li",
        "a", "article", "h1", "table", "footer", "svg", "template", "fencedframe")  # fmt: skip


def _words() -> list[str]:
    """Strings that match and nearly match each pattern's tokens (regex syntax spelled out)."""
    tokens = (
        *_CONSENT_ID_CLASS_TOKENS, *_OVERALL_DISCARD_BOTH_TOKENS, *_OVERALL_DISCARD_ID_TOKENS,
        *_OVERALL_DISCARD_CLASS_TOKENS,
    )  # fmt: skip
    plain = ["sharing", "social", "newsletter", "tags", "sidebar", "breadcrumb", "bread-crumb",
             "author", "jp-x", "dpsp-content", "footer", "Footer", "Share", "nav", "Nav", "menu",
             "related", "premium", "ad-x", "x ad y", "x-ad-y", "dfpAd", "paid-content", "widget",
             "byline", "share-x", "embed", "tag-list", "consent", "elated", "next-x", "meta",
             "slide", "options", "comment", "comments", "Comment", "commentary", "comol",
             "disqus_thread", "dsq-comments", "article-comments", "post-comments", "reply-x",
             "hidden", "x hidden", "hide-x", "x-hide-y", "noprint", "reader-comments",
             "akismet", "comments-title", "message", "mvp-post-add-box", "mvp-post-add-wrap",
             "infinite-scroll", "infinitescroll", "elementor-share-buttons", "content", "main",
             "article", "cookie", "x cookie", "Cookies", "shar", "xshar", ""]  # fmt: skip
    return plain + [t.replace("^", "").replace("?:", "") for t in tokens]


def _tree(seed: int) -> etree._Element:
    rng = random.Random(seed)
    words = _words()
    parts = []
    for _ in range(NODES):
        attrs = []
        names = ["id", "class", "style", "role", "aria-hidden", "data-component",
                 "data-lp-replacement-content"]  # fmt: skip
        rng.shuffle(names)
        for name in names[: rng.randint(0, 4)]:
            value = rng.choice(RARE if rng.random() < RARE_SHARE else words)
            if name == "style":
                value = rng.choice(["display:none", "display: none", "color:red", "hidden"])
            elif name == "role":
                value = rng.choice(["Navigation", "nav", "main", "NAV"])
            elif name == "aria-hidden":
                value = rng.choice(["true", "false"])
            elif name == "data-component":
                value = rng.choice(["MostPopularStories", "x"])
            attrs.append(f'{name}="{value}"')
        tag = rng.choice(TAGS)
        inner = "<h1>t</h1>" if rng.random() < 0.2 else ""
        parts.append(f"<{tag} {' '.join(attrs)}>w{inner}")
        if rng.random() < 0.5:
            parts.append(f"</{tag}> tail ")
    tree = parse_html("<html><body>" + "".join(parts) + "</body></html>")
    assert tree is not None
    return tree


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("xpaths", "walks"), PAIRS)
def test_each_walk_selects_what_its_xpath_selects(
    seed: int, xpaths: list[etree.XPath], walks: tuple[prunes.Prune, ...]
) -> None:
    tree = _tree(seed)
    for xpath, walk in zip(xpaths, walks, strict=True):
        assert walk.select(tree) == xpath(tree)


@pytest.mark.parametrize(("xpaths", "walks"), PAIRS)
def test_the_trees_hold_what_each_xpath_selects(
    xpaths: list[etree.XPath], walks: tuple[prunes.Prune, ...]
) -> None:
    trees = [_tree(seed) for seed in SEEDS]
    for xpath in xpaths:
        assert any(xpath(tree) for tree in trees), "the comparison above would prove nothing"


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("xpaths", "walks"), PAIRS)
def test_pruning_leaves_the_tree_trafilatura_leaves(
    seed: int, xpaths: list[etree.XPath], walks: tuple[prunes.Prune, ...]
) -> None:
    theirs, ours = _tree(seed), _tree(seed)
    prune_unwanted_nodes(theirs, xpaths)
    prunes.prune(ours, walks)
    assert etree.tostring(ours) == etree.tostring(theirs)


def test_id_or_class_is_the_first_written() -> None:
    tree = parse_html('<body><div class="x" id="cookie">a</div><div id="cookie" class="x">b</div>')
    assert tree is not None
    (chrome, _) = prunes.OVERALL_DISCARD
    assert [n.text for n in chrome.select(tree)] == ["b"]
    assert [n.text for n in OVERALL_DISCARD_XPATH[0](tree)] == ["b"]


_BODIES = (
    "<body><p>one</p><p>two</p></body>",
    "<body><p><hi>styled</hi></p></body>",
    "<body><p></p><table><tr><td>a</td></tr></table></body>",
    "<body><table><tr><td>a</td></tr></table><table><tr><td>b</td></tr></table><p>x</p></body>",
    "<body><head>Title</head><list><item>a</item></list></body>",
    "<body></body>",
)


@pytest.mark.parametrize("body", _BODIES)
@pytest.mark.parametrize("focus", ["balanced", "recall", "precision"])
@pytest.mark.parametrize(("len_text", "len_algo"), [(0, 600), (100, 600), (300, 700), (900, 600)])
def test_the_copied_readability_preference_decides_as_trafilatura(
    body: str, focus: str, len_text: int, len_algo: int
) -> None:
    """stages._prefer_readability (its paragraph test a walk: libxml2's `.//p//text()` is
    quadratic in the paragraphs) decides as trafilatura's on every rule's case."""
    from trafilatura.external import _prefer_readability
    from trafilatura.settings import Extractor

    from netsift.fetch import stages

    options = Extractor()
    options.focus = focus
    ours = etree.fromstring(body)
    algo = etree.fromstring("<div><h2>Head</h2><p>text</p></div>")
    for algo_text in ("plain words", "{json}"):
        args = (algo, algo_text, len_text, len_algo, options)
        assert bool(stages._prefer_readability(ours, *args)) == bool(
            _prefer_readability(ours, *args)
        )
