"""JSON lines in, JSON lines out: one request object per line, one result or error per line.

For agent harnesses: a bad line gets an error object and the next line is still served.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TextIO, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import InvalidInput, NetsiftError
from .boundary import error_object, internal
from .output import emit_json

__all__ = ["serve_lines"]

P = TypeVar("P", bound=BaseModel)


async def serve_lines(
    model: type[P],
    handle: Callable[[P], Awaitable[BaseModel | dict[str, Any] | list[Any]]],
    *,
    stream: TextIO | None = None,
) -> None:
    for number, line in enumerate(stream or sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"line {number} is not JSON: {exc.msg}") from exc
            if not isinstance(data, dict):
                raise InvalidInput(f"line {number} must be a JSON object")
            try:
                params = model.model_validate(data)
            except ValidationError as exc:
                raise InvalidInput.from_validation(exc) from exc
            emit_json(await handle(params))
        except NetsiftError as exc:
            emit_json(error_object(exc))
        except Exception as exc:
            emit_json(error_object(internal(exc)))
