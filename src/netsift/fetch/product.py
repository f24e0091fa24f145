"""Product facts: name, brand, price, availability and SKU from schema.org data on the page.

Shops put the facts an agent needs (what it costs, whether it is in stock) in JSON-LD or
microdata far more reliably than in their visible layout; the visible description still
comes from the page itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lxml import etree

from ..models import ContentFormat
from .markdown import TextFormat, normalize_space
from .pagetype import json_ld_objects

__all__ = ["ProductFacts", "extract_product_facts", "read_product", "render_facts"]


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
        raw = obj.get("@type")
        types = [t.lower() for t in (raw if isinstance(raw, list) else [raw]) if isinstance(t, str)]
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


def read_product(
    tree: etree._Element, url: str | None, fmt: ContentFormat, generic: str
) -> str | None:
    """In Markdown, the schema.org facts as a list above the visible description and the
    generic extraction; text and HTML keep to what the page shows (None: use `generic`)."""
    facts = extract_product_facts(tree)
    if facts is None or not facts.items() or fmt != "markdown":
        return None
    parts = [render_facts(facts, fmt), generic]
    if facts.description and facts.description[:60] not in generic:
        parts.insert(1, facts.description)
    return "\n\n".join(p for p in parts if p)
