"""PDF reading on documents generated with reportlab: text by page, info, limits, failures."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader, PdfWriter
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from netsift.errors import DecodeError
from netsift.fetch.pdf import MAX_PAGES, extract_pdf
from tests.offline_web.hostile import self_drawing_pdf, shared_stream_pdf
from tests.timing import least_cpu


def make_pdf(pages: list[str], *, title: str | None = None, author: str | None = None) -> bytes:
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf, pagesize=A4)
    if title:
        pdf.setTitle(title)
    if author:
        pdf.setAuthor(author)
    for text in pages:
        y = 800
        for line in text.splitlines():
            pdf.drawString(72, y, line)
            y -= 16
        pdf.showPage()
    pdf.save()
    return buf.getvalue()


REPORT = make_pdf(
    [
        "Quarterly Report\nRevenue grew by twelve percent.",
        "Outlook\nThe next quarter looks steady.",
    ],
    title="Quarterly  Report 2024",
    author="Grace Hopper",
)


def _encrypt(body: bytes, user_password: str, algorithm: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(body)))
    writer.encrypt(user_password, owner_password="owner-secret", algorithm=algorithm)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_two_pages_with_title_and_author() -> None:
    pdf = extract_pdf(REPORT)
    assert pdf.page_count == 2
    assert pdf.title == "Quarterly Report 2024"
    assert pdf.author == "Grace Hopper"
    assert pdf.text == (
        "<!-- page 1 -->\n\nQuarterly Report\nRevenue grew by twelve percent.\n\n"
        "<!-- page 2 -->\n\nOutlook\nThe next quarter looks steady."
    )


def test_no_document_info_gives_none() -> None:
    writer = PdfWriter()  # pages only: no /Title or /Author in the info dictionary
    for page in PdfReader(io.BytesIO(REPORT)).pages:
        writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    pdf = extract_pdf(out.getvalue())
    assert (pdf.title, pdf.author, pdf.page_count) == (None, None, 2)
    assert "Revenue grew" in pdf.text


def test_an_empty_page_keeps_its_marker() -> None:
    pdf = extract_pdf(make_pdf(["one", "", "three"]))
    assert pdf.text == "<!-- page 1 -->\n\none\n\n<!-- page 2 -->\n\n<!-- page 3 -->\n\nthree"


def test_pages_past_the_cap_are_not_read_and_the_text_says_so() -> None:
    pdf = extract_pdf(make_pdf([f"page text {n}" for n in range(1, MAX_PAGES + 4)]))
    assert pdf.page_count == MAX_PAGES + 3
    assert f"<!-- page {MAX_PAGES} -->\n\npage text {MAX_PAGES}" in pdf.text
    assert f"page text {MAX_PAGES + 1}" not in pdf.text
    assert pdf.text.endswith(f"*[netsift read the first {MAX_PAGES} of {MAX_PAGES + 3} pages]*")
    assert pdf.warnings == (f"netsift read the first {MAX_PAGES} of {MAX_PAGES + 3} pages",)


def test_drawing_work_is_bounded_whatever_the_page_count() -> None:
    """Pages drawing one deflated stream: 500 of 880 KB (an 80 KB file) took pypdf 390 CPU s,
    every page's copy interpreted. Reading stops at the budget, so 500 pages cost what 5 do
    (a stream and a budget a tenth of the real ones keep the test quick)."""
    budget = 200_000

    def heavy(pages: int) -> bytes:
        return shared_stream_pdf(pages, b"BT /F1 1 Tf (p) Tj ET\n" * 4_000, compress=True)

    pdf = extract_pdf(heavy(500), max_content_bytes=budget)
    assert pdf.page_count == 500
    assert pdf.warnings == (
        "netsift read the first 2 of 500 pages: page 3 would pass the 0.190735 MB of drawing "
        "instructions a PDF may make it read",
    )
    assert pdf.text.count("<!-- page ") == 2 and pdf.text.endswith("read]*")
    few, many = heavy(5), heavy(500)
    # unbounded, 500 pages cost 100x what 5 do; bounded, both draw 2 pages and the rest is
    # opening the larger page tree (~2x on a busy host), so 10x fails only without the budget
    assert least_cpu(lambda: extract_pdf(many, max_content_bytes=budget), runs=2) < 10 * least_cpu(
        lambda: extract_pdf(few, max_content_bytes=budget), runs=2
    )


def test_a_form_that_draws_itself_ends_with_the_text_around_it() -> None:
    pdf = extract_pdf(self_drawing_pdf())
    assert pdf.text == "<!-- page 1 -->\n\nself" and pdf.warnings == ()


@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-256"])
def test_encrypted_with_a_password_is_a_decode_error(algorithm: str) -> None:
    with pytest.raises(DecodeError, match="encrypted and needs a password"):
        extract_pdf(_encrypt(REPORT, "let-me-in", algorithm))


def test_encrypted_with_an_empty_user_password_is_read() -> None:
    pdf = extract_pdf(_encrypt(REPORT, "", "AES-256"))
    assert "Revenue grew by twelve percent." in pdf.text
    assert pdf.page_count == 2


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"not a pdf at all",
        b"%PDF-1.4\n%garbage with no objects",
        REPORT[: len(REPORT) // 3],
        b"%PDF-1.4\n" + bytes(range(256)) * 40,
    ],
)
def test_broken_pdfs_are_a_decode_error(body: bytes) -> None:
    with pytest.raises(DecodeError) as caught:
        extract_pdf(body)
    assert caught.value.code == "decode_error"
    assert "PDF" in caught.value.message
