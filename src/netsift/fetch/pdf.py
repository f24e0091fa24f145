"""PDF documents as text with pypdf: title, author, page count and the text page by page; pure.

Pages are separated by an HTML comment naming the page (`<!-- page 2 -->`): invisible when the
Markdown is rendered, but an agent quoting the text can still say which page a passage is on.
Work is bounded: at most `MAX_PAGES` pages are read, and the text says so when it stops early.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError

from ..errors import DecodeError

__all__ = ["MAX_PAGES", "PdfContent", "extract_pdf"]

MAX_PAGES = 500

# What pypdf raises on hostile or damaged input, beyond its own error classes.
_BROKEN = (PyPdfError, ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError,
           AssertionError, OverflowError, ZeroDivisionError, NotImplementedError)  # fmt: skip
_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


@dataclass(frozen=True)
class PdfContent:
    """The text of a PDF and the document information a reader shows."""

    text: str
    title: str | None
    author: str | None
    page_count: int


def extract_pdf(body: bytes) -> PdfContent:
    """Read a PDF's text and document info; DecodeError for broken or password-protected files."""
    try:
        reader = PdfReader(io.BytesIO(body))
        if reader.is_encrypted and not reader.decrypt(""):
            raise DecodeError("the PDF is encrypted and needs a password to read")
        page_count = len(reader.pages)
        info = reader.metadata
        title = _info(info.title if info else None)
        author = _info(info.author if info else None)
    except FileNotDecryptedError as exc:
        raise DecodeError("the PDF is encrypted and needs a password to read") from exc
    except DependencyError as exc:
        raise DecodeError(f"the PDF uses a feature netsift cannot read here: {exc}") from exc
    except _BROKEN as exc:
        raise DecodeError(f"the PDF could not be read: {_reason(exc)}") from exc

    parts: list[str] = []
    for number in range(1, min(page_count, MAX_PAGES) + 1):
        try:
            text = reader.pages[number - 1].extract_text()
        except _BROKEN:
            text = f"*[page {number} could not be read]*"
        parts.append(f"<!-- page {number} -->\n\n{_tidy(text)}".rstrip())
    if page_count > MAX_PAGES:
        parts.append(f"*[netsift read the first {MAX_PAGES} of {page_count} pages]*")
    return PdfContent(text="\n\n".join(parts), title=title, author=author, page_count=page_count)


def _info(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    cleaned = " ".join(value.replace("\x00", "").split())
    return cleaned[:500] or None


def _tidy(text: str) -> str:
    text = text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")
    return _BLANK_RUNS.sub("\n\n", text).strip()


def _reason(exc: BaseException) -> str:
    detail = " ".join(str(exc).split())[:200]
    return f"it is damaged or not a PDF ({detail})" if detail else "it is damaged or not a PDF"
