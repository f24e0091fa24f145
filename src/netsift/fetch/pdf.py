"""PDF documents as text with pypdf: title, author, page count and the text page by page; pure.

Pages are separated by an HTML comment naming the page (`<!-- page 2 -->`): invisible when the
Markdown is rendered, but an agent quoting the text can still say which page a passage is on.
Work is bounded, and what is left unread is said in the text and in `warnings` (`Page.warnings`),
while `page_count` stays the document's true count:
- at most `MAX_PAGES` pages are read;
- at most `MAX_CONTENT_BYTES` of drawing instructions are interpreted, the pages' content streams
  and the forms they draw counted once per page that draws them: an 80 KB file can deflate to
  megabytes of text operators that all 500 of its pages draw again (pypdf interprets about
  1 MB a CPU second, so that file took 390 s); reading stops at the page that would pass it;
- pypdf's own limits are tightened for the same reason (`_LIMITS`): one stream decodes to at
  most `MAX_CONTENT_BYTES`, and a page invokes at most `MAX_FORMS` form XObjects.
Past all that, the compute pool's CPU budget ends the task (`too_complex`).

A page with no text layer (a scan) is read by OCR when the `ocr` extra and Tesseract are
installed (fetch/ocr.py, bounded in pages and seconds); `ocr_pages` names the pages whose
text came from it, and a warning says when such pages could not be read.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from pypdf import PageObject, PdfReader, apply_configuration, get_configuration
from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError
from pypdf.generic import DictionaryObject, IndirectObject, StreamObject

from ..errors import DecodeError
from .ocr import OcrResult, ocr_missing, ocr_pages, page_ranges

__all__ = ["MAX_CONTENT_BYTES", "MAX_FORMS", "MAX_PAGES", "PdfContent", "extract_pdf"]

# Pages read: a long report or a book; past it an agent wants a search, not the whole file.
MAX_PAGES = 500
# Decoded drawing instructions interpreted per document: pypdf's text extraction reads about
# 1.1 MB of them a CPU second, so this is ~3.5 CPU s, a quarter of the default task budget,
# while a text page draws some kilobytes (hundreds of ordinary pages fit).
MAX_CONTENT_BYTES = 4 * 1024 * 1024
# Form XObject invocations per page (pypdf allows 5,000, each of which may be megabytes).
MAX_FORMS = 200
_LIMITS = get_configuration().with_overwrites(
    zlib_maximum_output_length=MAX_CONTENT_BYTES,
    lzw_maximum_output_length=MAX_CONTENT_BYTES,
    run_length_maximum_output_length=MAX_CONTENT_BYTES,
    brotli_maximum_output_length=MAX_CONTENT_BYTES,
    xform_maximum_invocations_per_extraction=MAX_FORMS,
)

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
    warnings: tuple[str, ...] = ()
    ocr_pages: tuple[int, ...] = ()  # the pages whose text came from OCR


def extract_pdf(body: bytes, *, max_content_bytes: int = MAX_CONTENT_BYTES) -> PdfContent:
    """Read a PDF's text and document info; DecodeError for broken or password-protected files.

    `max_content_bytes` is the drawing budget (tests lower it to stay quick)."""
    with apply_configuration(_LIMITS):
        return _extract(body, max_content_bytes)


def _extract(body: bytes, max_content_bytes: int) -> PdfContent:
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

    texts: dict[int, str] = {}
    warnings: list[str] = []
    budget = max_content_bytes
    for number in range(1, min(page_count, MAX_PAGES) + 1):
        try:
            page = reader.pages[number - 1]
            cost = _drawing_bytes(page)
            if cost > budget:
                warnings.append(
                    f"netsift read the first {number - 1} of {page_count} pages: page {number} "
                    f"would pass the {max_content_bytes / 2**20:g} MB of drawing instructions "
                    "a PDF may make it read"
                )
                break
            budget -= cost
            text = page.extract_text()
        except _BROKEN:
            text = f"*[page {number} could not be read]*"
        texts[number] = _tidy(text)
    if not warnings and page_count > MAX_PAGES:
        warnings.append(f"netsift read the first {MAX_PAGES} of {page_count} pages")
    ocr = _ocr([number for number, text in texts.items() if not text], body)
    texts.update({number: _tidy(text) for number, text in ocr.texts.items()})
    warnings.extend(ocr.warnings)
    parts = [f"<!-- page {number} -->\n\n{text}".rstrip() for number, text in texts.items()]
    parts.extend(f"*[{warning}]*" for warning in warnings)
    return PdfContent(
        text="\n\n".join(parts),
        title=title,
        author=author,
        page_count=page_count,
        warnings=tuple(warnings),
        ocr_pages=tuple(sorted(ocr.texts)),
    )


def _ocr(blank: list[int], body: bytes) -> OcrResult:
    """OCR of the pages without a text layer, or a warning naming them when OCR is not here."""
    if not blank:
        return OcrResult(texts={})
    missing = ocr_missing()
    if missing is not None:
        return OcrResult(
            texts={},
            warnings=(
                f"pages {page_ranges(blank)} have no text layer (scanned images?) and were not "
                f"read: {missing}",
            ),
        )
    return ocr_pages(body, blank)


def _drawing_bytes(page: PageObject) -> int:
    """The decoded bytes text extraction interprets for `page`: its content streams and the
    form XObjects its resources name (each once; a form drawn many times is bounded by
    MAX_FORMS)."""
    contents = page.get_contents()
    total = len(contents.get_data()) if contents is not None else 0
    resources = _resolved(page.get("/Resources"))
    xobjects = (
        _resolved(resources.get("/XObject")) if isinstance(resources, DictionaryObject) else None
    )
    if isinstance(xobjects, DictionaryObject):
        for ref in xobjects.values():
            xobject = ref.get_object()
            if isinstance(xobject, StreamObject) and xobject.get("/Subtype") == "/Form":
                total += len(xobject.get_data())
    return total


def _resolved(value: object) -> object:
    return value.get_object() if isinstance(value, IndirectObject) else value


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
