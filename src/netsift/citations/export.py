"""A citation bundle as CSL-JSON, BibTeX or Markdown references (pure).

CSL-JSON is what Zotero, Pandoc and citeproc read (type `webpage`, dates as `date-parts`);
BibTeX uses `@online` (biblatex's entry for web pages: `url`, `urldate`) with a `@misc`-safe
`howpublished` so classic BibTeX styles still show the link.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from .source import CitationSource

__all__ = ["bibtex", "csl_json", "markdown", "render"]

_DATE = re.compile(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?")
_BIBTEX_SPECIAL = str.maketrans({c: f"\\{c}" for c in "&%$#_{}"})


def _date_parts(value: str | None) -> list[int] | None:
    found = _DATE.match(value or "")
    return [int(part) for part in found.groups() if part] if found else None


def _name(author: str) -> dict[str, str]:
    """CSL's name: family and given when the name splits plainly, else a literal."""
    if "," in author:
        family, _, given = author.partition(",")
        return {"family": family.strip(), "given": given.strip()}
    parts = author.split()
    if len(parts) >= 2:
        return {"family": parts[-1], "given": " ".join(parts[:-1])}
    return {"literal": author}


def csl_json(sources: list[CitationSource]) -> list[dict[str, Any]]:
    items = []
    for source in sources:
        item: dict[str, Any] = {
            "id": _key(source),
            "type": "webpage",
            "URL": source.canonical_url,
            "title": source.title or source.canonical_url,
        }
        if source.authors:
            item["author"] = [_name(author) for author in source.authors]
        if source.site:
            item["container-title"] = source.site
        if issued := _date_parts(source.published):
            item["issued"] = {"date-parts": [issued]}
        if source.accessed:
            accessed = source.accessed
            item["accessed"] = {"date-parts": [[accessed.year, accessed.month, accessed.day]]}
        if source.archived_url:
            item["archive"] = "Internet Archive"
            item["archive_location"] = source.archived_url
        if source.passages:
            item["note"] = "\n".join(f"“{passage}”" for passage in source.passages)
        items.append(item)
    return items


def bibtex(sources: list[CitationSource]) -> str:
    entries = []
    for source in sources:
        fields = {
            "title": f"{{{_tex(source.title or source.canonical_url)}}}",
            "author": " and ".join(_tex(a) for a in source.authors) or None,
            "organization": _tex(source.site) if source.site else None,
            "date": _iso_date(source.published),
            "url": source.canonical_url,
            "urldate": source.accessed.date().isoformat() if source.accessed else None,
            "howpublished": f"\\url{{{source.canonical_url}}}",
            "note": f"Archived at \\url{{{source.archived_url}}}" if source.archived_url else None,
        }
        body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
        entries.append(f"@online{{{_key(source)},\n{body}\n}}")
    return "\n\n".join(entries) + ("\n" if entries else "")


def markdown(sources: list[CitationSource]) -> str:
    lines = []
    for source in sources:
        who = ", ".join(source.authors)
        when = f" ({source.published[:10]})" if source.published else ""
        title = source.title or source.canonical_url
        parts = [f"{who}{when}." if who else (f"{when.strip()}." if when else "")]
        parts.append(f"*{title}*.")
        if source.site:
            parts.append(f"{source.site}.")
        parts.append(f"<{source.canonical_url}>")
        if source.accessed:
            parts.append(f"(accessed {source.accessed.date().isoformat()})")
        if source.archived_url:
            parts.append(f"[archived]({source.archived_url})")
        lines.append(f"{source.n}. " + " ".join(p for p in parts if p))
        lines.extend(f"   > {passage}" for passage in source.passages)
    return "\n".join(lines) + ("\n" if lines else "")


def render(sources: list[CitationSource], format: str) -> str:
    """The bundle in `format` (csl-json, bibtex or markdown) as text."""
    if format == "bibtex":
        return bibtex(sources)
    if format == "markdown":
        return markdown(sources)
    return json.dumps(csl_json(sources), ensure_ascii=False, indent=2) + "\n"


def _key(source: CitationSource) -> str:
    """A citation key: first author's family name (or the site), year, number: lovelace2024-3."""
    first = source.authors[0] if source.authors else (source.site or "source")
    word = _name(first).get("family") or first
    ascii_word = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()
    stem = re.sub(r"[^a-z0-9]", "", ascii_word.lower()) or "source"
    parts = _date_parts(source.published)
    return f"{stem}{parts[0] if parts else ''}-{source.n}"


def _iso_date(value: str | None) -> str | None:
    parts = _date_parts(value)
    return "-".join(f"{p:02d}" if i else str(p) for i, p in enumerate(parts)) if parts else None


def _tex(text: str) -> str:
    return text.translate(_BIBTEX_SPECIAL)
