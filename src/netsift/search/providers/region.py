"""Query.region → the country and language each provider wants.

netsift accepts DuckDuckGo's `kl` form (`us-en`, `de-de`, `wt-wt` = worldwide) as documented
for `--region`, a BCP 47 tag with an upper-case country (`en-US`), or a bare language (`de`).
Providers differ in spelling (Brave `country=GB`, Google `gl=uk`...), so they ask this module
for the parts and spell them themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Region", "parse_region"]

_ISO_COUNTRY = {"uk": "gb"}  # DuckDuckGo's and Google's `uk` is ISO 3166's GB


@dataclass(frozen=True)
class Region:
    """Lower-case ISO 3166 country and ISO 639 language; either may be unknown."""

    country: str | None = None
    language: str | None = None
    kl: str | None = None  # DuckDuckGo's own spelling, when the input was in that form

    @property
    def bcp47(self) -> str | None:
        """`en-US`, or just `en`, or None."""
        if self.language and self.country:
            return f"{self.language}-{self.country.upper()}"
        return self.language


def parse_region(region: str | None) -> Region:
    """Split a region string; an unrecognised or worldwide one means no preference."""
    if not region:
        return Region()
    text = region.strip()
    parts = text.replace("_", "-").split("-")
    if not all(_is_code(p) for p in parts):
        return Region()
    if len(parts) == 1:
        return Region(language=parts[0].lower())
    if len(parts) != 2:
        return Region()
    first, second = parts
    if first.lower() == "wt":  # wt-wt: "no region" in DuckDuckGo's list
        return Region()
    if second.isupper() and not first.isupper():  # BCP 47: en-US
        return Region(country=_country(second), language=first.lower())
    kl = f"{first.lower()}-{second.lower()}"  # DuckDuckGo: us-en, de-de
    return Region(country=_country(first), language=second.lower(), kl=kl)


def _is_code(part: str) -> bool:
    """Two or three ASCII letters: `isalpha` alone takes "áé", which no provider knows and
    which cannot travel in an HTTP header (`Accept-Language`)."""
    return part.isascii() and part.isalpha() and len(part) in (2, 3)


def _country(code: str) -> str:
    lowered = code.lower()
    return _ISO_COUNTRY.get(lowered, lowered)
