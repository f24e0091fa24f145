"""Filling a schema without a model: from what a page states in a machine-readable way.

Publishers put the facts an agent asks for (a price, a date, a job's salary, an event's venue)
in JSON-LD, microdata and OpenGraph, and lay out specifications and people in tables and
definition lists. Each of those is read as (key path, value) facts; a schema's field takes
the fact whose key is its name (`startDate` is `start_date`), a synonym a vocabulary uses for
it (a job's `company` is schema.org's `hiringOrganization`), or a key ending in its words,
and whose value has the field's type. An array of objects takes the rows of the table whose
header names its items' properties. Every value's evidence is what the page says, checked
verbatim: structured data against the body as served, tables and lists against the reading.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from lxml import etree
from lxml import html as lxml_html

from ..models import Page
from .evidence import found_in, number_of
from .model import Evidence, Origin
from .schema import FieldSpec, words_of

__all__ = ["DECLARED", "HEAD", "Fact", "Filled", "facts_of", "fill"]

# Origins in the order a field takes them: what the publisher declared for machines first,
# then the page's own layout, then its head.
ORIGIN_ORDER: tuple[Origin, ...] = (
    "json_ld",
    "microdata",
    "opengraph",
    "definition_list",
    "table",
    "head",
)
# The head's `<title>` and `<meta name=…>` describe the whole page, often with the site's name
# ("Trail Runner 3 | Shop"): they fill a field only when its name is theirs exactly, and only
# what the model (when there is one) left null: read from the page's text, a model names the
# thing itself.
HEAD_META = ("description", "author")
DECLARED: frozenset[Origin] = frozenset(ORIGIN_ORDER) - {"head"}
HEAD: frozenset[Origin] = frozenset({"head"})
# The words vocabularies use for what a schema names otherwise (schema.org, OpenGraph, job
# boards); each field name (its words, joined) → the keys that mean it.
SYNONYMS: dict[str, frozenset[str]] = {
    "title": frozenset({"name", "headline"}),
    "name": frozenset({"title", "headline"}),
    "headline": frozenset({"name", "title"}),
    "company": frozenset({"hiring organization", "organization", "employer"}),
    "employer": frozenset({"hiring organization", "organization", "company"}),
    "location": frozenset({"job location", "address locality", "place", "venue"}),
    "city": frozenset({"address locality", "locality"}),
    "country": frozenset({"address country"}),
    "venue": frozenset({"location", "place"}),
    "date": frozenset({"start date", "date published", "published time"}),
    "published": frozenset({"date published", "published time", "date created"}),
    "published date": frozenset({"date published", "published time"}),
    "start": frozenset({"start date"}),
    "end": frozenset({"end date"}),
    "author": frozenset({"creator", "by"}),
    "salary": frozenset({"base salary", "pay"}),
    "rating": frozenset({"rating value", "average rating"}),
    "reviews": frozenset({"review count", "rating count"}),
    "currency": frozenset({"price currency"}),
    "phone": frozenset({"telephone", "tel"}),
    "role": frozenset({"job title", "position"}),
    "job title": frozenset({"title", "role", "position"}),
    "position": frozenset({"job title", "role"}),
    "summary": frozenset({"description"}),
    "description": frozenset({"summary"}),
    "employment type": frozenset({"type"}),
    "organizer": frozenset({"organiser", "host"}),
    "price": frozenset({"low price", "amount", "price amount"}),
    "in stock": frozenset({"availability"}),
    "available": frozenset({"availability"}),
}
# Fact keys as schema.org nests them: a value under one of these is the thing itself, so
# `author.name` answers `author`, `offers.price` answers `price`.
TRANSPARENT = frozenset({"name", "value", "@value", "text", "amount"})
EXACT = 3.0  # _match's score for a key that is the field's own name
MAX_FACTS = 2_000  # a page's facts, read at most (a hostile page's thousand-row table)
MAX_ROWS = 200  # rows of one table kept for an array field
MAX_CELL_CHARS = 300


@dataclass(frozen=True)
class Fact:
    """One value the page states, under its key path (`offers`, `price`)."""

    path: tuple[str, ...]  # each key's words, joined by spaces
    value: Any
    origin: Origin
    quote: str  # the value as the page writes it, checked verbatim


@dataclass(frozen=True)
class Filled:
    value: Any
    evidence: list[Evidence]


def _key(name: str) -> str:
    return " ".join(words_of(name))


def _json_facts(node: Any, path: tuple[str, ...], origin: Origin, out: list[Fact]) -> None:
    if len(out) >= MAX_FACTS:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("@context", "@id"):
                continue
            if key == "@graph":
                _json_facts(value, path, origin, out)
            else:
                _json_facts(value, (*path, _key(key)), origin, out)
        if path:
            out.append(Fact(path, node, origin, ""))  # the whole object, for object fields
    elif isinstance(node, list):
        for item in node:
            _json_facts(item, path, origin, out)
        if path and node and all(isinstance(v, str | int | float) for v in node):
            out.append(Fact(path, node, origin, ""))
    elif isinstance(node, str | int | float) and not isinstance(node, bool) and path:
        text = str(node).strip()
        if text:
            out.append(Fact(path, node, origin, text))
    elif isinstance(node, bool) and path:
        out.append(Fact(path, node, origin, str(node).lower()))


def _cell(element: Any) -> str:
    return " ".join(element.text_content().split())[:MAX_CELL_CHARS]


def _microdata(tree: Any, out: list[Fact]) -> None:
    for element in tree.iter():
        if not isinstance(element.tag, str):
            continue
        prop = element.get("itemprop")
        if not prop:
            continue
        value = (
            element.get("content")
            or element.get("datetime")
            or (
                element.get("href")
                if element.tag == "a" and "itemscope" not in element.attrib
                else None
            )
            or element.get("src")
            or _cell(element)
        )
        scope = element.getparent()
        parents: list[str] = []
        while scope is not None:
            if scope.get("itemprop") and scope.get("itemscope") is not None:
                parents.insert(0, _key(scope.get("itemprop")))
            scope = scope.getparent()
        if element.get("itemscope") is not None:
            continue  # a nested item: its own properties are the facts
        for name in prop.split():
            out.append(Fact((*parents, _key(name)), value, "microdata", value))
        if len(out) >= MAX_FACTS:
            return


def _rows(table: Any) -> list[list[str]]:
    rows = []
    for row in table.iter("tr"):
        cells = [_cell(c) for c in row if isinstance(c.tag, str) and c.tag in ("td", "th")]
        if any(cells):
            rows.append(cells)
    return rows


def _tables(tree: Any, out: list[Fact]) -> list[list[list[str]]]:
    """Label/value tables as facts; every table's rows, for array fields."""
    tables = []
    for table in tree.iter("table"):
        rows = _rows(table)
        tables.append(rows)
        for cells in rows:
            if len(cells) == 2 and cells[0] and cells[1]:
                out.append(Fact((_key(cells[0]),), cells[1], "table", cells[1]))
    return tables


def _head(tree: Any, out: list[Fact]) -> None:
    """The head's title and named meta tags, under their own names."""
    title = " ".join((tree.findtext(".//title") or "").split())[:MAX_CELL_CHARS]
    if title:
        out.append(Fact(("title",), title, "head", title))
    for name in HEAD_META:
        for meta in tree.iterfind(f".//meta[@name='{name}']"):
            content = " ".join((meta.get("content") or "").split())[:MAX_CELL_CHARS]
            if content:
                out.append(Fact((name,), content, "head", content))
                break


def _definitions(tree: Any, out: list[Fact]) -> None:
    for dl in tree.iter("dl"):
        term = None
        for child in dl.iter("dt", "dd"):
            if child.tag == "dt":
                term = _cell(child)
            elif term:
                value = _cell(child)
                if value:
                    out.append(Fact((_key(term),), value, "definition_list", value))


@dataclass(frozen=True)
class PageFacts:
    url: str
    facts: list[Fact]
    tables: list[list[list[str]]]
    source: str  # the body as served: structured data is checked against it
    text: str  # the page as read: tables and lists are checked against it


def facts_of(page: Page) -> PageFacts:
    """Everything `page` states in a machine-readable way (its source must be kept)."""
    facts: list[Fact] = []
    meta = page.metadata
    for obj in meta.json_ld:
        _json_facts(obj, (), "json_ld", facts)
    tables: list[list[list[str]]] = []
    source = page.source or ""
    if source.strip():
        try:
            tree = lxml_html.fromstring(source)
        except (etree.ParserError, ValueError):
            tree = None
        if tree is not None:
            _microdata(tree, facts)
            _definitions(tree, facts)
            _head(tree, facts)
            tables = _tables(tree, facts)
    for key, value in meta.opengraph.items():
        name = key.split(":")[-1] if ":" in key else key
        parts = tuple(_key(p) for p in key.split(":") if p not in ("og",))
        facts.append(Fact(parts or (_key(name),), value, "opengraph", value))
    return PageFacts(page.final_url, facts[:MAX_FACTS], tables, source, page.content)


def _match(field_words: str, path: tuple[str, ...]) -> float:
    """How well a fact's key path names a field: 3 its own name, 2.5 under a transparent key
    (`author.name`), 2 a synonym, 1.5 the path's last words (`profile:last_name`), 1 a key
    ending in the field's words or qualified by a unit (`Height (m)` for `height`), 0.5 a
    key the field's words end in (`date` for `start_date`); 0 none."""
    if not path:
        return 0.0
    leaf = path[-1]
    owner = path[-2] if len(path) > 1 and leaf in TRANSPARENT else None
    synonyms = SYNONYMS.get(field_words, frozenset())
    if leaf == field_words:
        return EXACT
    if owner is not None and owner == field_words:
        return 2.5
    if leaf in synonyms or (owner is not None and owner in synonyms):
        return 2.0
    if len(path) > 1 and " ".join(path).endswith(" " + field_words):
        return 1.5
    if leaf.endswith(" " + field_words) or leaf.startswith(field_words + " "):
        return 1.0
    if field_words.endswith(" " + leaf):
        return 0.5
    return 0.0


def _coerce(value: Any, spec: FieldSpec) -> Any:
    """`value` as the field's type, or None when it is not one."""
    kind = spec.type
    if isinstance(value, dict):
        inner = next((value[k] for k in ("name", "@value", "value", "text") if k in value), None)
        if kind == "object":
            return value
        return _coerce(inner, spec) if inner is not None else None
    if kind == "array":
        if isinstance(value, list):
            return value
        return None
    if isinstance(value, list):
        return _coerce(value[0], spec) if len(value) == 1 else None
    if kind in ("number", "integer"):
        number = value if isinstance(value, int | float) else number_of(str(value))
        if number is None or isinstance(number, bool):
            return None
        if kind == "integer":
            return int(number) if float(number).is_integer() else None
        return number
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower().rsplit("/", 1)[-1]
        truth = {
            "true": True,
            "yes": True,
            "instock": True,
            "false": False,
            "no": False,
            "outofstock": False,
            "soldout": False,
            "discontinued": False,
        }
        return truth.get(text, truth.get(text.replace(" ", "")))
    if kind in ("string", ""):
        return value if isinstance(value, str) else str(value)
    return None


def _table_rows(spec: FieldSpec, page: PageFacts) -> Filled | None:
    """An array of objects from the table whose header names most of its items' fields."""
    items = spec.item_fields
    if not items:
        return None
    best: tuple[int, list[list[str]], dict[int, FieldSpec]] | None = None
    for rows in page.tables:
        if len(rows) < 2:
            continue
        header = [_key(cell) for cell in rows[0]]
        columns: dict[int, FieldSpec] = {}
        for item in items:
            words = " ".join(item.words)
            scores = [_match(words, (cell,)) for cell in header]
            if scores and max(scores) > 0:
                columns.setdefault(scores.index(max(scores)), item)
        if len(columns) * 2 >= len(items) and (best is None or len(columns) > best[0]):
            best = (len(columns), rows, columns)
    if best is None:
        return None
    _, rows, columns = best
    values, evidence = [], []
    for cells in rows[1 : MAX_ROWS + 1]:
        record = {
            item.name: _coerce(cells[i], item) if i < len(cells) and cells[i] else None
            for i, item in columns.items()
        }
        quote = " | ".join(cells)
        if not any(v is not None for v in record.values()):
            continue
        if not all(found_in(cells[i], page.text) for i in columns if i < len(cells) and cells[i]):
            continue
        values.append(record)
        evidence.append(Evidence(url=page.url, quote=quote, origin="table"))
    return Filled(values, evidence) if values else None


def fill(
    spec: FieldSpec, pages: list[PageFacts], origins: frozenset[Origin] = DECLARED
) -> Filled | None:
    """The field's value and evidence from the best fact of `origins` any page states, or
    None (the head's facts count only under the field's own name)."""
    words = " ".join(spec.words)
    for page in pages:
        if "table" in origins and spec.type == "array" and spec.item_fields:
            if (rows := _table_rows(spec, page)) is not None:
                return rows
    candidates: list[tuple[float, int, int, Fact, PageFacts]] = []
    for p, page in enumerate(pages):
        for fact in page.facts:
            if fact.origin not in origins:
                continue
            score = _match(words, fact.path)
            if fact.origin == "head" and score < EXACT:
                continue
            if score > 0:
                rank = ORIGIN_ORDER.index(fact.origin)
                candidates.append((-score, rank, p, fact, page))
    candidates.sort(key=lambda c: (c[0], c[1], c[2]))
    for _, _, _, fact, page in candidates:
        value = _coerce(fact.value, spec)
        if value is None:
            continue
        quotes = _quotes(fact, value)
        if not quotes or not all(found_in(q, _where(fact, page)) for q in quotes):
            continue
        evidence = [Evidence(url=page.url, quote=q, origin=fact.origin) for q in quotes]
        return Filled(value, evidence)
    return None


def _where(fact: Fact, page: PageFacts) -> str:
    return page.text if fact.origin in ("table", "definition_list") else page.source


def _quotes(fact: Fact, value: Any) -> list[str]:
    """What the page writes for the value: the fact's own text, or a structured value's
    strings (an object's name, a list's items)."""
    if fact.quote:
        return [fact.quote]
    strings = [html.unescape(str(v)) for v in _strings(value)]
    return [s for s in strings if s.strip()][:20]


def _strings(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str | int | float) and not isinstance(value, bool) else []
