"""JSON documents as readable text: parsed, then pretty-printed; pure.

Re-serializing (rather than passing the text through) proves the body is JSON, turns minified
API answers into something a reader can scan, and keeps non-ASCII text as text.
"""

from __future__ import annotations

import json
import re

from ..errors import DecodeError

__all__ = ["extract_json"]

# Some APIs prefix JSON with a line that stops it being run as a script (anti-XSSI).
_XSSI_PREFIXES = (")]}'", "for(;;);", "while(1);")


def extract_json(text: str) -> str:
    """Pretty-print `text` as JSON (indent 2, Unicode kept); DecodeError says where it breaks."""
    body = text.lstrip("\ufeff")
    for prefix in _XSSI_PREFIXES:
        if body.startswith(prefix):
            body = body[len(prefix) :]
            break
    try:
        value = json.loads(body, parse_int=_integer)
    except json.JSONDecodeError as exc:
        raise DecodeError(
            f"the body is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
            details={"line": exc.lineno, "column": exc.colno},
        ) from exc
    except RecursionError as exc:
        raise DecodeError("the JSON body is nested too deeply to read") from exc
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False)
    except RecursionError as exc:
        raise DecodeError("the JSON body is nested too deeply to read") from exc
    # "\ud800" escapes decode to lone surrogates, which no UTF-8 reader can take
    return _LONE_SURROGATE.sub("\ufffd", text)


# Python refuses to turn longer digit strings into an int (a quadratic conversion, CVE-2020-10735)
_MAX_INT_DIGITS = 4300
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _integer(digits: str) -> int | str:
    """A JSON integer as an int, or its digits as text when it is too long to convert."""
    return int(digits) if len(digits) <= _MAX_INT_DIGITS else digits
