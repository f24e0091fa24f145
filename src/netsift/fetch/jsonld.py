"""JSON-LD, read once the same way for every reader: the classifier's schema.org types, the
product facts and the metadata card.

A page's JSON-LD blocks are hostile input and often broken: a CDATA or HTML-comment wrapper, a
trailing comma, nesting past the stack. Each block is repaired when that is easy, else skipped;
`@graph` members count as objects of their own; the count and size of blocks are bounded.
Tree walking stays with the reader (lxml or lexbor): this module takes the blocks' texts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the metadata card reads with lexbor: lxml is not loaded for it
    from lxml import etree

__all__ = [
    "MAX_JSON_LD_BLOCKS",
    "MAX_JSON_LD_BYTES",
    "is_json_ld",
    "json_ld_objects",
    "read_json_ld",
    "type_names",
]

MAX_JSON_LD_BLOCKS = 20  # blocks read per page, and objects kept: more is a generated flood
MAX_JSON_LD_BYTES = 100_000  # a larger block is a data dump, not a description of the page
# a block wrapped for old browsers: `<!-- … -->` or `<![CDATA[ … ]]>`, maybe behind `//`
_LD_WRAPPER = re.compile(r"^\s*(?://\s*)?(?:<!--|<!\[CDATA\[)|(?://\s*)?(?:-->|\]\]>)\s*$")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")  # `{"a": 1,}`: JSON forbids it, pages write it


def is_json_ld(script_type: str | None) -> bool:
    """Whether a `<script>`'s `type` attribute names JSON-LD."""
    return (script_type or "").strip().lower() == "application/ld+json"


def json_ld_objects(tree: etree._Element) -> list[dict[str, Any]]:
    """Every JSON-LD object of an lxml tree (the classifier's and the product reader's)."""
    scripts = tree.iter("script")
    return read_json_ld(s.text for s in scripts if s.text and is_json_ld(s.get("type")))


def read_json_ld(blocks: Iterable[str]) -> list[dict[str, Any]]:
    """Every JSON-LD object of the blocks' texts, in page order, `@graph` flattened; broken
    blocks repaired when easy, else skipped; bounded in count and size."""
    items: list[dict[str, Any]] = []
    for count, raw in enumerate(blocks, 1):
        if count > MAX_JSON_LD_BLOCKS:
            break
        if len(raw) > MAX_JSON_LD_BYTES:
            continue
        items.extend(_flatten(_parse_loose_json(raw)))
    return items[:MAX_JSON_LD_BLOCKS]


def type_names(item: dict[str, Any]) -> list[str]:
    """An object's `@type` names as written (a string or a list of them)."""
    kind = item.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return [k for k in kinds if isinstance(k, str)]


def _parse_loose_json(raw: str) -> Any:
    text = _LD_WRAPPER.sub("", raw.strip())
    for attempt in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            return json.loads(attempt, strict=False)
        except (ValueError, RecursionError):  # unparsable or nested past the stack
            continue
    return None


def _flatten(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        for item in value:
            yield from _flatten(item)
    elif isinstance(value, dict):
        graph = value.get("@graph")
        if isinstance(graph, list):
            yield from (item for item in graph if isinstance(item, dict))
        else:
            yield value
