"""JSON documents as readable text: parsed, then pretty-printed; pure.

Re-serializing (rather than passing the text through) proves the body is JSON, turns minified
API answers into something a reader can scan, and keeps non-ASCII text as text.
"""

from __future__ import annotations

import json

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
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise DecodeError(
            f"the body is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
            details={"line": exc.lineno, "column": exc.colno},
        ) from exc
    except RecursionError as exc:
        raise DecodeError("the JSON body is nested too deeply to read") from exc
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except RecursionError as exc:
        raise DecodeError("the JSON body is nested too deeply to read") from exc
