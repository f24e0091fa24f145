"""Product pages: the product's own description, without the shop's reviews and suggestions,
and its schema.org facts (name, brand, price, availability, SKU).

Shops put the facts an agent needs (what it costs, whether it is in stock) in JSON-LD or
microdata far more reliably than in their visible layout; the visible description still
comes from the page itself. Around it a shop page carries customer reviews, ratings, sign-in
and cart dialogs and "recommended for you" blocks that read as prose to an article extractor
but are not the product's content; the shops name those blocks in their classes, so the
lines they hold are dropped from the extraction.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from copy import deepcopy
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from lxml import etree

from ..models import ContentFormat
from .boilerplate import prune_boilerplate
from .dom import body_of
from .jsonld import json_ld_objects, type_names
from .markdown import TextFormat, normalize_space, render
from .measure import word_count, words_in
from .prices import PRICE

__all__ = [
    "ProductFacts",
    "card_text",
    "extract_product_facts",
    "noise_text",
    "read_product",
    "render_facts",
    "without_copies",
    "without_noise",
]


@dataclass(frozen=True)
class ProductFacts:
    name: str | None = None
    brand: str | None = None
    price: str | None = None
    availability: str | None = None
    sku: str | None = None
    description: str | None = None

    def items(self) -> list[tuple[str, str]]:
        pairs = [
            ("Brand", self.brand),
            ("Price", self.price),
            ("Availability", self.availability),
            ("SKU", self.sku),
        ]
        return [(k, v) for k, v in pairs if v]


def _text(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("name") or value.get("@id")
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str | dict)), None)
        return _text(value)
    if isinstance(value, str | int | float) and str(value).strip():
        return normalize_space(str(value)).strip()
    return None


def _offer(offers: Any) -> dict[str, Any]:
    if isinstance(offers, list):
        offers = next((o for o in offers if isinstance(o, dict)), {})
    return offers if isinstance(offers, dict) else {}


def _price(offer: dict[str, Any]) -> str | None:
    amount = offer.get("price") or offer.get("lowPrice")
    if amount is None:
        spec = offer.get("priceSpecification")
        spec = _offer(spec)
        amount = spec.get("price")
    text = _text(amount)
    if text is None:
        return None
    currency = _text(offer.get("priceCurrency"))
    high = _text(offer.get("highPrice"))
    price = f"{text}–{high}" if high and high != text else text
    return f"{price} {currency}" if currency else price


def extract_product_facts(tree: etree._Element) -> ProductFacts | None:
    """Facts of the first schema.org Product (JSON-LD first, then microdata); None if absent."""
    for obj in json_ld_objects(tree):
        types = [t.lower() for t in type_names(obj)]
        if not {"product", "productgroup", "individualproduct"} & set(types):
            continue
        offer = _offer(obj.get("offers"))
        availability = _text(offer.get("availability"))
        return ProductFacts(
            name=_text(obj.get("name")),
            brand=_text(obj.get("brand")),
            price=_price(offer),
            availability=availability.rsplit("/", 1)[-1] if availability else None,
            sku=_text(obj.get("sku") or obj.get("mpn")),
            description=_text(obj.get("description")),
        )
    for node in tree.xpath("//*[@itemtype][contains(@itemtype, 'schema.org/Product')]")[:1]:

        def prop(name: str, scope: etree._Element = node) -> str | None:
            for el in scope.xpath(f".//*[@itemprop='{name}']")[:1]:
                value = el.get("content") or el.get("href") or " ".join(el.itertext())
                return normalize_space(value).strip() or None
            return None

        price, currency = prop("price"), prop("priceCurrency")
        availability = prop("availability")
        return ProductFacts(
            name=prop("name"),
            brand=prop("brand"),
            price=f"{price} {currency}" if price and currency else price,
            availability=availability.rsplit("/", 1)[-1] if availability else None,
            sku=prop("sku"),
            description=prop("description"),
        )
    return None


def render_facts(facts: ProductFacts, fmt: TextFormat) -> str:
    """A fact list: `- **Price:** 12.99 USD` in Markdown, `Price: 12.99 USD` in text."""
    if fmt == "markdown":
        return "\n".join(f"- **{k}:** {v}" for k, v in facts.items())
    return "\n".join(f"{k}: {v}" for k, v in facts.items())


_NOISE = re.compile(
    r"(?:^|[-_\s])(?:reviews?|ratings?|feedback|recently-?viewed|upsells?|cross-?sells?|"
    r"recommendations?|modal|dialog|popup)(?:$|[-_\s])",
    re.IGNORECASE,
)
_OWN = re.compile(
    r"(?:^|[-_\s])(?:testimonials?|description|details|specs|specifications|measurements|"
    r"dimensions|features|size-?guide)(?:$|[-_\s])",
    re.IGNORECASE,
)
_NOISE_SHARE = 0.5  # a "review" block holding this share of the page is its layout, not reviews
_MIN_WORDS = 2  # single words ("Size", "Reviews") also occur in the description itself
_KEPT_SHARE = 0.1  # dropping more than this leaves nothing: the extraction was the noise's own
_BOX_CHARS = 3000  # a block around the h1 larger than this is the page, not its buy box
_MIN_COPY_WORDS = 3  # shorter repeated lines ("Size", "In stock") are labels, not copies
_LAYOUTS = 3  # copies of one block a page renders for its layouts; more are item cards
_LONGEST_NAME = 150  # characters: a longer h1 is a slogan or a page's whole header
# link text holds no brackets: a text that may hold "[" tried every "[" of "[[[[…]" up to the
# "]" (quadratic); the target is only sought before the line's last ")" (`_plain`)
_MD_LINK = re.compile(r"\[([^\[\]]*)\]\([^)]*\)")
_MD_MARKS = re.compile(r"[*_#|>`\\]+|^\s*(?:[-+]|\d+\.)\s+")
_SPACES = re.compile(r"\s+")
_UNMARKED = re.compile(r"[*_#|>`\\\s]+")  # what _plain removes from a line, in page text


def _h1(tree: etree._Element) -> etree._Element | None:
    return tree.find(".//body//h1")


def noise_text(tree: etree._Element) -> str:
    """The text of the blocks whose class or id says reviews, ratings, feedback,
    recommendations or dialogs (sign-in, cart, consent), whitespace removed so it matches
    however an extractor spaced it. The h1's ancestors never count (shops wrap whole pages
    in such classes), nor blocks named as the product's own (details, specifications, size
    guide, seller testimonials), dialogs included: shops open those in a popup."""
    body = body_of(tree)
    h1 = _h1(tree)
    chain = set(h1.iterancestors()) if h1 is not None else set()
    total = len("".join(body.itertext()))
    found: list[str] = []
    inside: set[etree._Element] = set()  # within a block already taken or exempted
    for node in body.iter():
        if not isinstance(node.tag, str) or node in chain or node in inside:
            continue
        names = f"{node.get('class') or ''} {node.get('id') or ''}"
        if _OWN.search(names):
            inside.update(node.iterdescendants())
        elif names.strip() and _NOISE.search(names):
            text = "".join(node.itertext())
            if len(text) < _NOISE_SHARE * total:
                found.append(_SPACES.sub("", text))
                inside.update(node.iterdescendants())
    return "\n".join(found)


def card_text(tree: etree._Element) -> str:
    """The text of the rows of other products' cards, whitespace removed (as noise_text);
    not the h1's own blocks. Rows are sought only above the prices: a walk of every block
    would cost more than the rest of the reader."""
    h1 = _h1(tree)
    chain = set(h1.iterancestors()) if h1 is not None else set()
    priced: dict[etree._Element, set[etree._Element]] = {}
    for el in body_of(tree).iter():
        if isinstance(el.tag, str) and el.text and PRICE.search(el.text):
            _count_priced(el, priced)
        if el.tail and PRICE.search(el.tail) and el.getparent() is not None:
            _count_priced(el.getparent(), priced)
    rows = [n for n, kids in priced.items() if len(kids) >= _CARDS and n not in chain]
    found: list[str] = []
    taken: set[etree._Element] = set()
    for row in sorted(rows, key=lambda n: sum(1 for _ in n.iterancestors())):
        if not taken.intersection(row.iterancestors()) and _is_card_list(row):
            row = _with_title(row, chain)
            found.append(_UNMARKED.sub("", "".join(row.itertext())))
            taken.add(row)
    return "\n".join(found)


def _with_title(row: etree._Element, chain: set[etree._Element]) -> etree._Element:
    """The row with the blocks around it that add only a few words: its title ("Similar
    items") and controls."""
    words = word_count(row)
    for parent in row.iterancestors():
        if parent in chain or parent.tag == "body":
            break
        size = word_count(parent)
        if size - words > _TITLE_WORDS:
            break
        row, words = parent, size
    return row


def _count_priced(child: etree._Element, priced: dict[etree._Element, set[etree._Element]]) -> None:
    """Note, for each block above a price, which of its children holds it."""
    for parent in child.iterancestors():
        priced.setdefault(parent, set()).add(child)
        child = parent


def _is_card_list(node: etree._Element) -> bool:
    """A row of other products' cards ("similar items", "customers also viewed"): most of
    its children link elsewhere and show a price beside a name of a few words."""
    children = [c for c in node if isinstance(c.tag, str)]
    if len(children) < _CARDS:
        return False
    needed = max(_CARDS, _CARD_SHARE * len(children))
    misses = 0
    for child in children:
        if not _is_card(child):
            misses += 1
            if misses > len(children) - needed:
                return False
    return True


def _is_card(node: etree._Element) -> bool:
    if not any((a.get("href") or "#")[:1] != "#" for a in node.iter("a")):
        return False
    text = " ".join(node.itertext())
    return words_in(text) >= _CARD_WORDS and PRICE.search(text) is not None


_TITLE_WORDS = 12  # a row's title and arrows ("Customers also viewed", "Next") say less
_CARDS = 3  # fewer priced links in a row are options or bundles of the product itself
_CARD_SHARE = 0.6
_CARD_WORDS = 5  # a variant's swatch or size button ("48 x 24 +$60") says less


def _plain(line: str) -> str:
    """A line of text or Markdown output as page text: no list marks, emphasis or link URLs."""
    end = line.rfind(")") + 1  # past it a link's "](" would scan to the end and fail
    line = _MD_LINK.sub(r"\1", line[:end]) + line[end:]
    return _SPACES.sub("", _MD_MARKS.sub(" ", line))


def without_noise(content: str, noise: str, keep: float = _KEPT_SHARE) -> str:
    """`content` without the lines of at least a few words found in the noise blocks, nor
    the short lines (a reviewer's initial, a vote count, "Report") and blank lines between
    two such; whole when that would leave less than `keep` of it (the reviews are its
    content)."""
    if not noise:
        return content
    lines = content.split("\n")
    noisy = [words_in(line) >= _MIN_WORDS and _in_noise(_plain(line), noise) for line in lines]
    if not any(noisy):
        return content
    long_lines = [i for i, line in enumerate(lines) if words_in(line) >= _MIN_WORDS]
    drop = {i for i, n in enumerate(noisy) if n}
    for before, after in pairwise(long_lines):
        if noisy[before] and noisy[after]:
            drop.update(range(before + 1, after))
    kept: list[str] = []
    last = -1
    for i, line in enumerate(lines):
        if i in drop:
            continue
        if not line.strip() and kept and not kept[-1].strip() and i - last > 1:
            continue  # the blank lines on both sides of a dropped run
        kept.append(line)
        last = i
    trimmed = "\n".join(kept)
    return trimmed if words_in(trimmed) >= keep * words_in(content) else content


def _in_noise(line: str, noise: str) -> bool:
    """Whether the noise holds the line, or nearly all of a long one: an extractor leaves
    out a badge or a hidden word ("Verified Purchase") inside a review's line."""
    if line in noise:
        return True
    chunks = [line[i : i + _CHUNK] for i in range(0, len(line) - _CHUNK + 1, _CHUNK)]
    if len(chunks) < _MIN_CHUNKS:
        return False
    return sum(1 for c in chunks if c in noise) >= _CHUNK_SHARE * len(chunks)


_CHUNK = 30  # characters of a line sought in the noise one by one
_MIN_CHUNKS = 3  # a shorter line must be found whole
_CHUNK_SHARE = 0.8


def without_copies(content: str) -> str:
    """`content` without the second and third copy of a line of a few words: shops render a
    product's blocks once per layout (phone, desktop, zoom view), and the extractor keeps
    every copy. A line repeated more often is the attribute every item card shares."""
    lines = content.split("\n")
    counts = Counter(_plain(line) for line in lines)
    seen: set[str] = set()
    kept = []
    for line in lines:
        key = _plain(line)
        if key in seen and words_in(line) >= _MIN_COPY_WORDS and counts[key] <= _LAYOUTS:
            continue
        seen.add(key)
        kept.append(line)
    return "\n".join(kept)


def _buy_box(tree: etree._Element, fmt: TextFormat) -> list[str]:
    """The lines of the h1's smallest surrounding block that shows a price: name, price,
    options and the short pitch the page leads with, which an article extractor skips as
    too short to be prose. None when no block that small shows a price (no buy box)."""
    h1 = _h1(tree)
    if h1 is None:
        return []
    for node in h1.iterancestors():
        text = "".join(node.itertext())
        if len(text) > _BOX_CHARS or node.tag in ("body", "html"):
            return []
        if PRICE.search(text):
            work = deepcopy(node)
            prune_boilerplate(work)
            return [line for line in render(work, fmt).split("\n") if line.strip()]
    return []


def _missing_name(content: str, tree: etree._Element) -> str | None:
    """The product's name (its h1) when the extraction lost it: the page leads with it."""
    h1 = _h1(tree)
    name = normalize_space(" ".join(h1.itertext())).strip() if h1 is not None else ""
    if not name or len(name) > _LONGEST_NAME or name in normalize_space(content):
        return None
    return name


def _is_about(facts: ProductFacts | None, tree: etree._Element) -> bool:
    """Whether the page's h1 names its schema.org Product: the page sells that one product
    (a category page's h1 names the category, or a product it features among many)."""
    h1 = _h1(tree)
    if facts is None or not facts.name or h1 is None:
        return False
    name = normalize_space(html.unescape(facts.name)).strip().lower()
    shown = normalize_space(" ".join(h1.itertext())).strip().lower()
    return bool(name and shown) and (name in shown or shown in name)


def _lead(content: str, tree: etree._Element, fmt: TextFormat) -> str:
    """What the page leads with and the extraction lost: the buy box's lines it lacks, or at
    least the product's name."""
    seen = "\n".join(_plain(line) for line in content.split("\n"))
    box = [line for line in _buy_box(tree, fmt) if _plain(line) not in seen]
    if box:
        return ("\n\n" if fmt == "markdown" else "\n").join(box)
    name = _missing_name(content, tree)
    if name is None:
        return ""
    return f"# {name}" if fmt == "markdown" else name


def read_product(
    tree: etree._Element, url: str | None, fmt: ContentFormat, generic: str
) -> str | None:
    """The generic extraction without review, recommendation and dialog lines, other
    products' cards (on a page about one product: all of them, however many) or layout
    copies, led by the buy box (name, price, options) when it lost it; in Markdown the
    schema.org facts as a list below that (text keeps to what the page shows). None for
    HTML: its markup stays as the generic extraction made it."""
    if fmt == "html":
        return None
    content = without_noise(generic, noise_text(tree))
    facts = extract_product_facts(tree)
    if _is_about(facts, tree):  # one product's page: other products' cards are suggestions
        content = without_noise(content, card_text(tree), 0.0)
    content = without_copies(content).strip("\n")  # a dropped first line leaves its blank
    lead = _lead(content, tree, fmt)
    if fmt == "text":
        return f"{lead}\n{content}" if lead else content
    parts = [lead]
    if facts is not None and facts.items():
        parts.append(render_facts(facts, fmt))
        if facts.description and facts.description[:60] not in content:
            parts.append(facts.description)
    return "\n\n".join(p for p in [*parts, content] if p)
