"""Bytes to text: the charset from the BOM, the header, a `<meta>` tag or detection; pure.

Labels are read the way browsers read them (the WHATWG Encoding Standard), not the way Python's
codec registry does: `iso-8859-1` and `ascii` mean windows-1252, `shift_jis` means cp932,
`utf-16` means little-endian, and labels a browser does not know (`utf-7`, `base64`, `rot13`)
are ignored rather than handed to a codec. Decoding never raises: bad bytes become U+FFFD.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["Decoded", "decode_body", "lookup_encoding", "parse_content_type"]

Source = Literal["bom", "header", "meta", "detected", "default"]

# WHATWG encoding name → Python codec, then the labels that name it (encodings.json).
_ENCODINGS: dict[str, tuple[str | None, str]] = {
    "utf-8": (
        "utf-8",
        "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8",
    ),
    "ibm866": ("cp866", "866 cp866 csibm866 ibm866"),
    "iso-8859-2": (
        "iso8859_2",
        "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2",
    ),
    "iso-8859-3": (
        "iso8859_3",
        "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3",
    ),
    "iso-8859-4": (
        "iso8859_4",
        "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4",
    ),
    "iso-8859-5": (
        "iso8859_5",
        "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5 "
        "iso_8859-5:1988",
    ),
    "iso-8859-6": (
        "iso8859_6",
        "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 "
        "iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987",
    ),
    "iso-8859-7": (
        "iso8859_7",
        "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7 "
        "iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek",
    ),
    "iso-8859-8": (
        "iso8859_8",
        "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8 "
        "iso88598 iso_8859-8 iso_8859-8:1988 visual",
    ),
    "iso-8859-8-i": ("iso8859_8", "csiso88598i iso-8859-8-i logical"),
    "iso-8859-10": (
        "iso8859_10",
        "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6",
    ),
    "iso-8859-13": ("iso8859_13", "iso-8859-13 iso8859-13 iso885913"),
    "iso-8859-14": ("iso8859_14", "iso-8859-14 iso8859-14 iso885914"),
    "iso-8859-15": (
        "iso8859_15",
        "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9",
    ),
    "iso-8859-16": ("iso8859_16", "iso-8859-16"),
    "koi8-r": ("koi8_r", "cskoi8r koi koi8 koi8-r koi8_r"),
    "koi8-u": ("koi8_u", "koi8-ru koi8-u"),
    "macintosh": ("mac_roman", "csmacintosh mac macintosh x-mac-roman"),
    "windows-874": (
        "cp874",
        "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874",
    ),
    "windows-1250": ("cp1250", "cp1250 windows-1250 x-cp1250"),
    "windows-1251": ("cp1251", "cp1251 windows-1251 x-cp1251"),
    "windows-1252": (
        "cp1252",
        "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 "
        "iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252",
    ),
    "windows-1253": ("cp1253", "cp1253 windows-1253 x-cp1253"),
    "windows-1254": (
        "cp1254",
        "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 "
        "iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254",
    ),
    "windows-1255": ("cp1255", "cp1255 windows-1255 x-cp1255"),
    "windows-1256": ("cp1256", "cp1256 windows-1256 x-cp1256"),
    "windows-1257": ("cp1257", "cp1257 windows-1257 x-cp1257"),
    "windows-1258": ("cp1258", "cp1258 windows-1258 x-cp1258"),
    "x-mac-cyrillic": ("mac_cyrillic", "x-mac-cyrillic x-mac-ukrainian"),
    # The WHATWG GBK decoder is the gb18030 decoder.
    "gbk": (
        "gb18030",
        "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk",
    ),
    "gb18030": ("gb18030", "gb18030"),
    "big5": ("big5hkscs", "big5 big5-hkscs cn-big5 csbig5 x-x-big5"),
    "euc-jp": ("euc_jp", "cseucpkdfmtjapanese euc-jp x-euc-jp"),
    "iso-2022-jp": ("iso2022_jp_ext", "csiso2022jp iso-2022-jp"),
    "shift_jis": (
        "cp932",
        "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
    ),
    "euc-kr": (
        "cp949",
        "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 "
        "ksc5601 ksc_5601 windows-949",
    ),
    # Browsers refuse these (they enable script injection); so does netsift.
    "replacement": (
        None,
        "csiso2022kr hz-gb-2312 iso-2022-cn iso-2022-cn-ext iso-2022-kr replacement",
    ),
    "utf-16be": ("utf-16-be", "unicodefffe utf-16be"),
    "utf-16le": (
        "utf-16-le",
        "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le",
    ),
}

_LABELS: dict[str, str] = {
    label: name for name, (_, labels) in _ENCODINGS.items() for label in labels.split()
}

_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xfe\xff", "utf-16-be"),
    (b"\xff\xfe", "utf-16-le"),
)

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# Types a server sends when it does not know: the body may still be HTML (sniffed upstream).
_GENERIC_TYPES = frozenset(
    {
        "",
        "application/octet-stream",
        "binary/octet-stream",
        "application/unknown",
        "unknown/unknown",
    }
)

_PRESCAN_BYTES = 2048
_COMMENT = re.compile(rb"<!--.*?(?:-->|$)", re.DOTALL)
_META = re.compile(rb"<meta[\s/]([^>]*)>?", re.IGNORECASE)
_ATTR = re.compile(
    rb"""([^\s/>=]+)(?:\s*=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s>]*)))?""",
)
_CHARSET_IN_CONTENT = re.compile(rb"""charset\s*=\s*["']?([^\s"';]+)""", re.IGNORECASE)


@dataclass(frozen=True)
class Decoded:
    """Decoded text, the Python codec that produced it, and where the charset came from."""

    text: str
    encoding: str
    source: Source


def parse_content_type(value: str) -> tuple[str, dict[str, str]]:
    """Split a Content-Type into a lower-cased MIME type and its parameters.

    Tolerant: a missing or malformed type gives `""` (so callers sniff), a list of types keeps
    the first, quoted and unquoted parameters both work, names are lower-cased, junk is skipped.
    """
    first = value.split(",", 1)[0]
    head, _, rest = first.partition(";")
    mime = head.strip().lower()
    kind, slash, sub = mime.partition("/")
    if not slash or not kind or not sub or any(c.isspace() for c in mime):
        mime = ""
    params: dict[str, str] = {}
    for part in _split_params(rest):
        name, eq, raw = part.partition("=")
        name = name.strip().lower()
        if not eq or not name or name in params:
            continue
        raw = raw.strip()
        if len(raw) >= 2 and raw[0] == raw[-1] == '"':
            raw = raw[1:-1].replace('\\"', '"')
        params[name] = raw.strip()
    return mime, params


def _split_params(rest: str) -> list[str]:
    """Split on `;` outside double quotes."""
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    for char in rest:
        if char == '"':
            quoted = not quoted
        if char == ";" and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def lookup_encoding(label: str) -> str | None:
    """The Python codec for a charset label as a browser reads it; None when unknown or refused."""
    name = _LABELS.get(label.strip().strip("\"'").lower())
    return None if name is None else _ENCODINGS[name][0]


def decode_body(body: bytes, content_type: str) -> Decoded:
    """Decode `body`: BOM, then header charset, then `<meta>` (HTML), then detection, then UTF-8."""
    for bom, bom_codec in _BOMS:
        if body.startswith(bom):
            return Decoded(body[len(bom) :].decode(bom_codec, errors="replace"), bom_codec, "bom")
    mime, params = parse_content_type(content_type)
    if header := lookup_encoding(params.get("charset", "")):
        return Decoded(body.decode(header, errors="replace"), header, "header")
    if mime in _HTML_TYPES or mime in _GENERIC_TYPES:
        if meta := _meta_charset(body[:_PRESCAN_BYTES]):
            return Decoded(body.decode(meta, errors="replace"), meta, "meta")
    return _detect(body)


def _meta_charset(head: bytes) -> str | None:
    """The charset a `<meta charset>` or `<meta http-equiv=content-type>` declares, if any."""
    head = _COMMENT.sub(b"", head)
    for tag in _META.finditer(head):
        attrs: dict[bytes, bytes] = {}
        for match in _ATTR.finditer(tag.group(1)):
            name = match.group(1).lower()
            attrs.setdefault(name, match.group(2) or match.group(3) or match.group(4) or b"")
        label = attrs.get(b"charset")
        if label is None and attrs.get(b"http-equiv", b"").strip().lower() == b"content-type":
            found = _CHARSET_IN_CONTENT.search(attrs.get(b"content", b""))
            label = found.group(1) if found else None
        if label is None:
            continue
        codec = lookup_encoding(label.decode("ascii", errors="replace"))
        if codec is None:
            continue
        # A meta tag cannot describe UTF-16 (it would not be readable as ASCII): HTML says UTF-8.
        return "utf-8" if codec.startswith("utf-16") else codec
    return None


def _detect(body: bytes) -> Decoded:
    """No declaration: valid UTF-8 is UTF-8; otherwise ask charset-normalizer; else UTF-8."""
    try:
        return Decoded(body.decode("utf-8"), "utf-8", "detected")
    except UnicodeDecodeError:
        pass
    import charset_normalizer  # undeclared and not UTF-8: rare, and ~25 ms of CPU to load

    matches = charset_normalizer.from_bytes(body)
    best = matches.best()
    if best is not None:
        # Short Western text fits several single-byte code pages equally well; a browser
        # would read it as windows-1252, so prefer that when it is (nearly) as clean.
        for match in matches:
            if "cp1252" in match.could_be_from_charset and match.chaos <= best.chaos + 0.1:
                return Decoded(body.decode("cp1252", errors="replace"), "cp1252", "detected")
        if codec := _detected_codec(best.encoding):
            return Decoded(body.decode(codec, errors="replace"), codec, "detected")
    return Decoded(body.decode("utf-8", errors="replace"), "utf-8", "default")


def _detected_codec(name: str) -> str | None:
    """charset-normalizer speaks Python codec names; map them through the browser's table."""
    codec = lookup_encoding(name) or lookup_encoding(name.replace("_", "-"))
    if codec is not None:
        return codec
    return None if name.replace("-", "_").lower() == "utf_7" else name
