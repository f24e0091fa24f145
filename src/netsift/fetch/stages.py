"""trafilatura's `extract` (2.3.1) stage by stage, with the same calls and settings, minus
work whose result it would discard: the copy of the tree when nothing in it is pruned, the
raw-tree prunes when no id or class carries their words, and readability's rival extraction
when it cannot be preferred. Outputs are byte-identical to `extract` (the tests compare them);
on any other trafilatura release `SUPPORTED` is false and `dom` calls `extract` itself.

This is the one module that calls trafilatura's private names (`PRIVATE`, each with the
signature it is called with; `prunes.py` holds the prune patterns it runs as walks);
tests/unit/fetch/test_trafilatura_release.py fails loudly when a release moves any of them.
The comments marked "trafilatura:" are its own, from `core.trafilatura_sequence` and
`external.compare_extraction`, kept beside the lines they
explain; netsift's changes are said as such."""

from __future__ import annotations

import logging
from copy import copy
from typing import Any

import trafilatura
from lxml import etree
from lxml.etree import tostring

from ..models import ContentFormat
from .fallback import Fallback, read_fallback
from .prunes import (
    OVERALL_DISCARD,
    RAW_TREE_PRUNE,
    REMOVE_COMMENTS,
    REMOVE_COMMENTS_AND_LISTS,
    basic_cleaning,
    prune,
)

RELEASE = "2.3.1"  # the trafilatura release whose private stages this module runs

try:  # trafilatura's own stages, run in its order (see `_sequence`)
    from trafilatura.baseline import _spaced_text
    from trafilatura.core import (
        ESCALATION_ACCEPT_RATIO,
        ESCALATION_JUSTEXT_RATIO,
        ESCALATION_MAX_LENGTH,
        ESCALATION_PAGE_SHARE,
        TXT_FORMATS,
        _forum_thread_page,
        _prepare_tree,
        _recall_retry,
        determine_returnstring,
    )
    from trafilatura.deduplication import content_fingerprint
    from trafilatura.external import (
        JUSTEXT_OVERRIDE_RATIO,
        SANITIZED_XPATH,
        sanitize_tree,
        try_justext,
        try_readability,
    )
    from trafilatura.htmlprocessing import convert_tags
    from trafilatura.main_extractor import _elem_text, extract_comments, extract_content
    from trafilatura.metadata import Document
    from trafilatura.settings import Extractor
    from trafilatura.utils import trim
except ImportError:  # another trafilatura release: `dom` uses its public call
    SUPPORTED = False
else:
    SUPPORTED = trafilatura.__version__ == RELEASE

__all__ = ["PRIVATE", "RELEASE", "SUPPORTED", "extract"]

# The private callables this module runs, with the parameters it passes them (by position,
# in order): a release that renames, removes or reorders one breaks the byte-identical copy.
PRIVATE: dict[str, tuple[str, ...]] = {
    "trafilatura.core._forum_thread_page": ("tree",),
    "trafilatura.core._prepare_tree": ("tree", "options", "url"),
    "trafilatura.core._recall_retry": ("esc_tree", "r_options", "url"),
    "trafilatura.core.determine_returnstring": ("document", "options"),
    "trafilatura.core.trafilatura_sequence": ("tree", "options", "url"),  # what _sequence copies
    "trafilatura.external.compare_extraction": (
        "cleaned_tree", "raw_tree", "body", "text", "options"
    ),
    "trafilatura.external.try_justext": ("tree", "url", "target_language"),
    "trafilatura.external.sanitize_tree": ("tree", "options"),
    "trafilatura.external.try_readability": ("htmlinput",),
    "trafilatura.htmlprocessing.convert_tags": ("tree", "options", "url"),
    "trafilatura.utils.trim": ("string",),
    "trafilatura.main_extractor._elem_text": ("element",),
    "trafilatura.main_extractor.extract_comments": ("tree", "options"),
    "trafilatura.main_extractor.extract_content": ("cleaned_tree", "options"),
    "trafilatura.baseline._spaced_text": ("element",),
    "trafilatura.deduplication.content_fingerprint": ("content",),
}  # fmt: skip

LOGGER = logging.getLogger(__name__)
_OUTPUT: dict[ContentFormat, str] = {"markdown": "markdown", "text": "txt", "html": "html"}
_FORMATS: dict[str, ContentFormat] = {v: k for k, v in _OUTPUT.items()}


def extract(
    tree: etree._Element, url: str | None, fmt: ContentFormat, options: dict[str, Any]
) -> str:
    """`trafilatura.extract` of `tree` (left untouched) with tables, without images or
    deduplication, and `options` among include_comments and favor_precision."""
    extractor = Extractor(
        output_format=_OUTPUT[fmt],
        precision=options.get("favor_precision", False),
        comments=options.get("include_comments", True),
        formatting=fmt != "text",
        links=fmt != "text",
        images=False,
        tables=True,
        url=url,
    )
    return _extract(tree, extractor)


_NAMES = etree.XPath(".//@id|.//@class", smart_strings=False)
_RAW_PRUNE_WORDS = ("scroll", "mvp-post-add-", "elementor-share-buttons")
_COMMENT_WORDS = ("omment", "comol", "disqus_thread", "dsq-comments")


def _extract(tree: etree._Element, options: Any) -> str:
    """`trafilatura.extract` of `tree` (left untouched) with `options`, "" for nothing."""
    try:
        body, text, comments_body, comments, fallback = _sequence(tree, options)
    except (TypeError, ValueError):
        return ""
    if len(text) < options.min_output_size and len(comments) < options.min_output_comm_size:
        return ""
    if fallback is not None:
        return fallback.content
    document = Document()
    document.raw_text, document.commentsbody, document.body = text, comments_body, body
    if options.format not in TXT_FORMATS:
        document.fingerprint = content_fingerprint(f"{document.title} {text}")
    return str(determine_returnstring(document, options) or "").strip()


def _sequence(tree: etree._Element, options: Any) -> tuple[Any, str, Any, str, Fallback | None]:
    """trafilatura's `trafilatura_sequence`; its raw-tree prunes run on a copy, and only when
    some id or class holds a word their patterns need (a search without Python callbacks).
    Where it would fall back to its `baseline`, netsift's structured fallback reads the page
    (returned last: trafilatura's body is then unused)."""
    url = options.url
    is_forum = _forum_thread_page(tree)
    names = "\n".join(_NAMES(tree))
    owned = False
    # trafilatura: raw-tree prune so the external extractors inherit it too: readability
    # would otherwise pick the longest appended article over the real one
    # (netsift: on a copy, and only when some id or class holds one of its words)
    if any(word in names for word in _RAW_PRUNE_WORDS):
        tree, owned = prune(copy(tree), RAW_TREE_PRUNE), True
    # trafilatura: comments off: prune the raw tree so all stages inherit it, lists are still
    # ol/ul here
    if (
        not options.comments
        and (options.focus == "precision" or not is_forum)
        and any(word in names for word in _COMMENT_WORDS)
    ):
        tree = prune(tree if owned else copy(tree), REMOVE_COMMENTS_AND_LISTS)
    cleaned_tree, cleaned_tree_backup = _prepare_tree(tree, options, url)

    commentsbody, temp_comments = etree.Element("body"), ""
    forum_posts = None
    if options.comments:
        commentsbody, temp_comments, cleaned_tree = extract_comments(cleaned_tree, options)
        if temp_comments and is_forum:
            # trafilatura: thread-forum: the "comments" are the posts -> route into the body
            # (backup predates capture); keep the capture aside, salvaged below if the cascade
            # drops the posts
            forum_posts = commentsbody
            commentsbody, temp_comments = etree.Element("body"), ""
            cleaned_tree = convert_tags(copy(cleaned_tree_backup), options, url)
    if options.focus == "precision" and not is_forum:
        # trafilatura: NOT redundant with the raw-tree prune above: this runs POST-conversion,
        # where lists are <list> and match the xpath's self::list (dl lists, disqus ids, and all
        # lists if comments are on)
        cleaned_tree = prune(cleaned_tree, REMOVE_COMMENTS)

    # trafilatura: cascade stages 1-2: main extractor, then the external comparison (netsift
    # never sets `fast`, so the comparison always runs, through `_compare`)
    postbody, temp_text = extract_content(cleaned_tree, options)
    postbody, temp_text = _compare(cleaned_tree_backup, tree, postbody, temp_text, options)

    # trafilatura: 3. rescue: baseline on the original tree, accepted only if it adds text
    fallback: Fallback | None = None
    if len(temp_text) < options.min_extracted_size and options.focus != "precision":
        # netsift's reading of last resort instead of trafilatura's `baseline` (see fallback.py)
        found = read_fallback(tree, _FORMATS[options.format])
        # as long as trafilatura's short pick (the same words): the fallback kept their shape
        if found.text and len(found.text) >= len(temp_text):
            fallback, temp_text = found, found.text
            # trafilatura: the dump saw the whole page: missing posts are boilerplate, not lost
            forum_posts = None

    # trafilatura: 4. recall escalation: a short extraction covering little of the page
    # suggests under-extraction (non-article layout) — retry in recall mode, keep if clearly
    # bigger. NOTE: the page measure html2txt(tree) is coupled to BASIC_CLEAN_XPATH — see
    # settings.py.
    if (
        options.focus == "balanced"
        and 0 < len(temp_text) < ESCALATION_MAX_LENGTH
        and len(temp_text) < ESCALATION_PAGE_SHARE * len(html2txt(tree))
    ):
        # trafilatura: a copy so a shared Extractor never leaks the "recall" focus back to the
        # caller
        r_options = copy(options)
        r_options.focus = "recall"
        # trafilatura: strip comment containers from the escalation input (dup risk if
        # captured, reader comments if not), ol/ul comment lists only if captured (#881). Not
        # on a thread-forum, where the retry rescues the posts. Comments off: already pruned
        esc_tree = (
            tree
            if is_forum or not options.comments
            else prune(copy(tree), REMOVE_COMMENTS_AND_LISTS if temp_comments else REMOVE_COMMENTS)
        )
        r_text = ""
        try:
            r_body, r_text = _recall_retry(esc_tree, r_options, url)
        except Exception as err:  # as trafilatura: a failed retry is no candidate
            LOGGER.warning("recall retry failed: %s %s", err, url)
        # trafilatura: justext reaches div-buried content the rule retry misses (gated:
        # ungated regressed own-fallback). No region scoping of its own -> esc_tree is
        # comment-pruned above (its `if not options.fast` gate: netsift never sets `fast`)
        j_text = ""
        try:
            j_body, j_text = justext_rescue(copy(esc_tree), options)
        except Exception as err:
            LOGGER.warning("justext candidate failed: %s %s", err, url)
        # trafilatura: floor on the retry: a result below the pipeline's own minimum is noise
        # (the retry's former internal baseline used to displace such outputs). cookie/consent
        # banners justext could pick up are pruned from its input in basic_cleaning. An
        # accepted candidate saw the full page, so its exclusions are deliberate -> drop the
        # forum-post salvage (netsift: and its own fallback's reading)
        len_text, r_len, j_len = len(temp_text), len(r_text), len(j_text)
        if j_len > r_len and j_len > ESCALATION_JUSTEXT_RATIO * len_text:
            postbody, temp_text, forum_posts, fallback = j_body, j_text, None, None
        elif r_len >= options.min_extracted_size and r_len > ESCALATION_ACCEPT_RATIO * len_text:
            postbody, temp_text, forum_posts, fallback = r_body, r_text, None, None

    if forum_posts is not None:
        # trafilatura: a gate (escalation length, precision) blocked the cascade from restoring
        # the posts: append the ones missing from the body
        existing = "\n".join(filter(None, (_elem_text(el) for el in postbody)))
        salvaged = [el for el in forum_posts if (t := _elem_text(el)) and t not in existing]
        if salvaged:
            postbody.extend(salvaged)
            temp_text = " ".join(postbody.itertext()).strip()
    return postbody, temp_text, commentsbody, temp_comments, fallback


def _compare(
    backup: Any, tree: etree._Element, body: Any, text: str, options: Any
) -> tuple[Any, str]:
    """trafilatura's `compare_extraction` on a copy of `tree`, readability skipped when it
    cannot win: its pick is part of the page, so its text is no longer than the page's, and
    when our extraction holds half of that, has paragraphs and is not mostly tables, no rule
    prefers readability. Its precision prune of the raw tree is `prunes.py`'s walk."""
    len_text = len(text)
    # trafilatura: bypass for recall
    if options.focus == "recall" and len_text > options.min_extracted_size * 10:
        return body, text
    use_readability = False
    if not _readability_loses(tree, body, text, options):
        raw_tree = copy(tree)
        # trafilatura: prior cleaning
        if options.focus == "precision":
            raw_tree = prune(raw_tree, OVERALL_DISCARD)
        # trafilatura: try with readability
        algo_body = try_readability(raw_tree)
        # trafilatura: unicode fix necessary on certain systems (#331)
        algo_text = trim(tostring(algo_body, method="text", encoding="utf-8").decode("utf-8"))
        len_algo = len(algo_text)
        use_readability = _prefer_readability(
            body, algo_body, algo_text, len_text, len_algo, options
        )
        if use_readability:
            body, text, len_text = algo_body, algo_text, len_algo
    # trafilatura: override faulty extraction: try with justext
    unclean = bool(body.xpath(SANITIZED_XPATH))
    if unclean or len_text < options.min_extracted_size:
        body2, text2 = justext_rescue(backup, options)
        len_text2 = len(text2)
        # trafilatura: unclean: allow shorter (boilerplate dropped), guard image-heavy pages;
        # merely short: must add text, len_text2 > len_text is implied (#896)
        if unclean:
            accept = len_text <= JUSTEXT_OVERRIDE_RATIO * len_text2 and (
                len_text2 > len_text or not options.images or body.find(".//graphic") is None
            )
        else:
            accept = len_text < len_text2
        if text2 and accept:
            body, text, len_text = body2, text2, len_text2
            use_readability = False
    # trafilatura: post-processing: remove unwanted sections
    if use_readability:
        body, text = sanitize_tree(body, options)
    return body, text


def _prefer_readability(
    body: Any, algo_body: Any, algo_text: str, len_text: int, len_algo: int, options: Any
) -> bool:
    """trafilatura's `_prefer_readability`: whether readability's pick replaces our extraction.
    netsift: its `.//p//text()` test by `_has_paragraph_text`, linear where it was quadratic."""
    # trafilatura: readability empty, or same length as the own extraction (same content)
    if len_algo in (0, len_text):
        return False
    # trafilatura: own extraction much longer
    if len_text > 2 * len_algo:
        return False
    return bool(
        # trafilatura: own text empty
        len_text == 0
        # trafilatura: readability much longer, unless it grabbed raw JSON (#632)
        or (len_algo > 2 * len_text and not algo_text.startswith("{"))
        # trafilatura: own extraction structurally deficient: no paragraph text or
        # table-dominated
        or (
            len_algo > options.min_extracted_size * 2
            and (
                not _has_paragraph_text(body)
                or len(body.findall(".//table")) > len(body.findall(".//p"))
            )
        )
        # trafilatura: recall mode: readability output substantially longer
        or (
            options.focus == "recall"
            and len_algo > 1.5 * len_text
            and not algo_text.startswith("{")
        )
        # trafilatura: recall mode: readability recovers a headed article (#354)
        or (
            options.focus == "recall"
            and not body.xpath(".//head")
            and next(algo_body.iter("h2", "h3", "h4"), None) is not None
            and len_algo > len_text
        )
    )


def justext_rescue(tree: Any, options: Any) -> tuple[Any, str]:
    """trafilatura's `justext_rescue`, its cleaning `prunes.basic_cleaning`."""
    body = try_justext(basic_cleaning(tree), options.url, options.lang)
    return body, trim(" ".join(body.itertext()))


def html2txt(tree: etree._Element) -> str:
    """trafilatura's `html2txt` of a parsed tree (left untouched), its cleaning
    `prunes.basic_cleaning`."""
    tree = copy(tree)
    body = tree.find(".//body")
    return str(_spaced_text(basic_cleaning(body if body is not None else tree)))


# an upper bound on the page's text as trafilatura trims it (normalize-space keeps non-ASCII
# spaces that str.split() drops), plus the "VIDEO" readability writes into each frame it keeps,
# counted by libxml2 without building the text in Python
_PAGE_TEXT = etree.XPath("string-length(normalize-space(.)) + 6 * count(.//iframe)")


def _has_paragraph_text(body: etree._Element) -> bool:
    """`body.xpath(".//p//text()")` is not empty, found without building that node set: libxml2
    merges the text nodes of each `<p>` into it one set at a time, checking each against all
    before (quadratic: 4.8 CPU s for 50,000 paragraphs, bench/hostile.py's "paragraphs")."""
    return any(next(p.itertext(), None) is not None for p in body.iterdescendants("p"))


def _readability_loses(tree: etree._Element, body: Any, text: str, options: Any) -> bool:
    """Whether `compare_extraction` would keep our extraction whatever readability found (see
    `_compare`); false whenever a rule could prefer readability's pick."""
    if options.focus == "recall" or not text or not _has_paragraph_text(body):
        return False
    if len(body.findall(".//table")) > len(body.findall(".//p")):
        return False
    return 2 * len(text) >= float(_PAGE_TEXT(tree))
