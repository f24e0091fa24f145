"""OCR for PDF pages that have no text layer (scans, photographed pages): Tesseract, bounded.

An optional extra (`pip install 'netsift[ocr]'`: pytesseract and pypdfium2) over the OS's
Tesseract (`apt-get install tesseract-ocr`). Only pages whose text layer is empty come here
(pdf.py reads the text layer first: it is exact and a thousand times cheaper). Each page is
rendered by PDFium at OCR_DPI and read by the `tesseract` program, in a child process the
deadline can stop; the work is bounded by OCR_MAX_PAGES pages and OCR_SECONDS in all, which
fit inside the extraction task's wall-clock limit (compute.py: at least 15 CPU s x 3 + 5 s by
default),
so OCR never turns a readable PDF into `too_complex`.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass

__all__ = [
    "OCR_DPI",
    "OCR_MAX_PAGES",
    "OCR_SECONDS",
    "OcrResult",
    "ocr_missing",
    "ocr_pages",
    "page_ranges",
]

# Tesseract reads body text best at 200-300 DPI; 200 halves the pixels of 300 for a small loss
# on 10-point type, and a page renders in ~0.1 s.
OCR_DPI = 200
# Pages read by OCR per document: a scanned paper or a chapter; a scanned book is a job.
OCR_MAX_PAGES = 10
# Seconds of OCR per document, all pages together: Tesseract took 0.47 CPU s for a sparse
# scanned page (tests/offline_web/toolbelt.py's, at 200 DPI; 2.3 s of wall time on a loaded
# 2-core machine) and a dense page takes several times that; this stays well under the
# extraction task's wall-clock limit (50 s at the least).
OCR_SECONDS = 20.0
# Below this a page's deadline cannot fit even a small page's read: stop rather than start it.
MIN_PAGE_SECONDS = 1.0


@dataclass(frozen=True)
class OcrResult:
    texts: dict[int, str]  # page number (1-based) → its text
    warnings: tuple[str, ...] = ()


def ocr_missing() -> str | None:
    """Why OCR cannot run here (the extra or the Tesseract program is missing), or None."""
    try:
        import pypdfium2  # noqa: F401
        import pytesseract  # noqa: F401
    except ImportError:
        return "the ocr extra is not installed (pip install 'netsift[ocr]')"
    if shutil.which("tesseract") is None:
        return "the tesseract program is not installed (apt-get install tesseract-ocr)"
    return None


def ocr_pages(
    body: bytes,
    numbers: list[int],
    *,
    max_pages: int = OCR_MAX_PAGES,
    seconds: float = OCR_SECONDS,
    language: str = "eng",
) -> OcrResult:
    """The text of pages `numbers` of the PDF in `body`, read by OCR within the bounds; what
    the bounds left unread is said in `warnings`."""
    import pypdfium2 as pdfium
    import pytesseract

    texts: dict[int, str] = {}
    warnings: list[str] = []
    chosen = numbers[:max_pages]
    if len(numbers) > max_pages:
        warnings.append(
            f"OCR read {max_pages} of the {len(numbers)} pages without a text layer "
            f"(pages {page_ranges(numbers[max_pages:])} left unread)"
        )
    deadline = time.monotonic() + seconds
    document = pdfium.PdfDocument(body)
    try:
        for index, number in enumerate(chosen):
            left = deadline - time.monotonic()
            if left < MIN_PAGE_SECONDS:
                warnings.append(
                    f"OCR stopped after {seconds:g} s: pages {page_ranges(chosen[index:])} "
                    "left unread"
                )
                break
            page = document[number - 1]
            try:
                image = page.render(scale=OCR_DPI / 72).to_pil()
            finally:
                page.close()
            try:
                text = pytesseract.image_to_string(image, lang=language, timeout=left)
            except RuntimeError:  # pytesseract's "Tesseract process timeout"
                warnings.append(f"OCR of page {number} ran out of time; pages after it unread")
                break
            except pytesseract.TesseractError as exc:
                warnings.append(f"OCR could not read page {number}: {exc.message[:200]}")
                continue
            texts[number] = text
    finally:
        document.close()
    return OcrResult(texts=texts, warnings=tuple(warnings))


def page_ranges(numbers: list[int]) -> str:
    """1, 2, 3, 5 → "1-3, 5"."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in spans)
