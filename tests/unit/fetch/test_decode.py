"""Charset decoding: BOM, header, <meta>, detection, default; labels read as browsers do."""

from __future__ import annotations

import pytest

from netsift.fetch.decode import decode_body, lookup_encoding, parse_content_type

FRENCH = "Ça va très bien, merci beaucoup. « Déjà vu » à la française — naïve café."
RUSSIAN = "Привет, как дела? Это тестовый текст на русском языке для проверки."
JAPANESE = "これは日本語のテキストです。①番目の項目を確認してください。"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("text/html", ("text/html", {})),
        ("Text/HTML; Charset=UTF-8", ("text/html", {"charset": "UTF-8"})),
        ('text/html; charset="utf-8"', ("text/html", {"charset": "utf-8"})),
        (
            "text/html;charset=utf-8;;foo=bar; =x; junk",
            ("text/html", {"charset": "utf-8", "foo": "bar"}),
        ),
        (
            'text/plain; name="a;b"; charset=latin1',
            ("text/plain", {"name": "a;b", "charset": "latin1"}),
        ),
        ("text/html, text/plain; charset=x", ("text/html", {})),
        ("  application/JSON  ", ("application/json", {})),
        ("text/html; charset=a; charset=b", ("text/html", {"charset": "a"})),
        ("", ("", {})),
        ("garbage", ("", {})),
        ("text/", ("", {})),
        ("/html", ("", {})),
        ("text /html", ("", {})),
        (";charset=utf-8", ("", {"charset": "utf-8"})),
    ],
)
def test_parse_content_type(value: str, expected: tuple[str, dict[str, str]]) -> None:
    assert parse_content_type(value) == expected


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("utf-8", "utf-8"),
        ("UTF8", "utf-8"),
        (" unicode-1-1-utf-8 ", "utf-8"),
        ('"utf-8"', "utf-8"),
        ("iso-8859-1", "cp1252"),
        ("latin1", "cp1252"),
        ("ascii", "cp1252"),
        ("us-ascii", "cp1252"),
        ("iso-8859-9", "cp1254"),
        ("tis-620", "cp874"),
        ("shift_jis", "cp932"),
        ("x-sjis", "cp932"),
        ("windows-31j", "cp932"),
        ("gb2312", "gb18030"),
        ("euc-kr", "cp949"),
        ("big5", "big5hkscs"),
        ("utf-16", "utf-16-le"),
        ("utf-16be", "utf-16-be"),
        ("koi8-r", "koi8_r"),
        ("windows-1251", "cp1251"),
    ],
)
def test_labels_follow_the_whatwg_table(label: str, codec: str) -> None:
    assert lookup_encoding(label) == codec


@pytest.mark.parametrize(
    "label",
    ["", "no-such-charset", "utf-7", "base64", "rot13", "zlib", "iso-2022-kr", "hz-gb-2312"],
)
def test_unknown_and_refused_labels_are_none(label: str) -> None:
    assert lookup_encoding(label) is None


def test_utf8_bom_wins_over_header_and_is_stripped() -> None:
    body = b"\xef\xbb\xbf" + "héllo".encode()
    decoded = decode_body(body, "text/html; charset=iso-8859-1")
    assert (decoded.text, decoded.encoding, decoded.source) == ("héllo", "utf-8", "bom")


@pytest.mark.parametrize(("bom", "codec"), [(b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")])
def test_utf16_boms(bom: bytes, codec: str) -> None:
    decoded = decode_body(bom + "<p>Grüße</p>".encode(codec), "text/html")
    assert (decoded.text, decoded.source) == ("<p>Grüße</p>", "bom")


def test_header_latin1_means_windows_1252() -> None:
    # 0x93/0x94 are curly quotes in windows-1252 and C1 controls in real ISO-8859-1.
    body = b"\x93quoted\x94 caf\xe9"
    decoded = decode_body(body, "text/plain; charset=ISO-8859-1")
    assert decoded.text == "\u201cquoted\u201d café"
    assert (decoded.encoding, decoded.source) == ("cp1252", "header")


def test_header_wins_over_a_contradicting_meta() -> None:
    html = '<meta charset="windows-1251"><p>Grüße</p>'.encode()
    decoded = decode_body(html, "text/html; charset=utf-8")
    assert decoded.source == "header"
    assert "Grüße" in decoded.text


def test_meta_charset_when_the_header_has_none() -> None:
    html = f'<html><head><meta charset="iso-8859-1"></head><body>{FRENCH}</body>'.encode("cp1252")
    decoded = decode_body(html, "text/html")
    assert (decoded.encoding, decoded.source) == ("cp1252", "meta")
    assert FRENCH in decoded.text


def test_meta_http_equiv_content_type() -> None:
    html = (
        "<head><meta http-equiv='Content-Type' content='text/html; charset=Shift_JIS'>"
        f"</head><p>{JAPANESE}</p>"
    ).encode("cp932")
    decoded = decode_body(html, "text/html")
    assert (decoded.encoding, decoded.source) == ("cp932", "meta")
    assert JAPANESE in decoded.text  # ① exists only in Microsoft's Shift_JIS (cp932)


def test_meta_is_read_from_a_generic_type_too() -> None:
    html = f'<meta charset="windows-1251"><p>{RUSSIAN}</p>'.encode("cp1251")
    decoded = decode_body(html, "application/octet-stream")
    assert (decoded.encoding, decoded.source) == ("cp1251", "meta")


def test_meta_is_ignored_for_plain_text() -> None:
    text = f'<meta charset="windows-1251"> {FRENCH}'.encode()
    decoded = decode_body(text, "text/plain")
    assert decoded.source == "detected"
    assert FRENCH in decoded.text


def test_meta_in_a_comment_is_ignored() -> None:
    html = f'<!-- <meta charset="koi8-r"> --><p>{FRENCH}</p>'.encode()
    decoded = decode_body(html, "text/html")
    assert (decoded.encoding, decoded.source) == ("utf-8", "detected")


def test_meta_after_the_first_2_kib_is_ignored() -> None:
    html = ("<!-- " + "x" * 2100 + ' --><meta charset="koi8-r">' + FRENCH).encode()
    decoded = decode_body(html, "text/html")
    assert decoded.source == "detected"
    assert FRENCH in decoded.text


def test_meta_declaring_utf16_means_utf8() -> None:
    html = '<meta charset="utf-16"><p>Grüße</p>'.encode()
    decoded = decode_body(html, "text/html")
    assert (decoded.encoding, decoded.source, "Grüße" in decoded.text) == ("utf-8", "meta", True)


def test_unknown_header_label_falls_through_to_meta() -> None:
    html = f'<meta charset="x-sjis"><p>{JAPANESE}</p>'.encode("cp932")
    decoded = decode_body(html, "text/html; charset=klingon")
    assert (decoded.encoding, decoded.source) == ("cp932", "meta")
    assert JAPANESE in decoded.text


def test_unknown_meta_label_falls_through_to_detection() -> None:
    html = f'<meta charset="bogus-9"><meta charset="utf-7"><p>{FRENCH}</p>'.encode()
    decoded = decode_body(html, "text/html")
    assert (decoded.encoding, decoded.source) == ("utf-8", "detected")


def test_utf7_is_never_used_even_when_declared() -> None:
    payload = b"+ADw-script+AD4-alert(1)+ADw-/script+AD4-"
    decoded = decode_body(payload, "text/html; charset=utf-7")
    assert "<script>" not in decoded.text


@pytest.mark.parametrize(
    ("text", "codec"),
    [
        (FRENCH, "cp1252"),
        (RUSSIAN, "cp1251"),
        ("Zażółć gęślą jaźń, to jest polski tekst.", "cp1250"),
    ],
)
def test_detection_without_any_declaration(text: str, codec: str) -> None:
    decoded = decode_body(text.encode(codec), "")
    assert (decoded.text, decoded.encoding, decoded.source) == (text, codec, "detected")


def test_undeclared_utf8_is_detected_as_utf8() -> None:
    decoded = decode_body(RUSSIAN.encode(), "text/html")
    assert (decoded.text, decoded.encoding, decoded.source) == (RUSSIAN, "utf-8", "detected")


@pytest.mark.parametrize(
    "body", [bytes(range(256)) * 4, b"\xff\xfe\xfd" * 100, b"\x80", b"", b"\xc3"]
)
@pytest.mark.parametrize("content_type", ["", "text/html", "text/plain; charset=utf-8"])
def test_bad_bytes_never_raise(body: bytes, content_type: str) -> None:
    decoded = decode_body(body, content_type)
    assert isinstance(decoded.text, str)


def test_invalid_utf8_under_a_utf8_header_is_replaced() -> None:
    decoded = decode_body(b"ok \xff\xfe end", "text/plain; charset=utf-8")
    assert decoded.text == "ok \ufffd\ufffd end"
