"""JSON lines in, JSON lines out: one request object per line, one result or error per line.

For agent harnesses: a bad line gets an error object and the next line is still served. Every
command of an operation serves its lines the same way (`serve_operation`): a line is the
operation's params (operations.py), plus its input when it reads one (extract's `html`), and
its answer is the Client method's result, so the contract is the catalogue's, written once;
`netsift tools --format jsonschema` prints each line's schema (`line_model`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from pydantic import BaseModel, Field, ValidationError, create_model

from ..errors import InvalidInput, NetsiftError
from .boundary import error_object, internal
from .output import emit_json

if TYPE_CHECKING:
    from ..client import Client
    from ..config import Settings
    from ..operations import Operation

__all__ = ["line_model", "serve_lines", "serve_operation"]

P = TypeVar("P", bound=BaseModel)
# The Client method a command's lines run when it is not the operation's own: extract reads
# the HTML sent in the extraction worker, under its CPU and memory budget, as the command does.
_ISOLATED = {"extract": "extract_isolated"}


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


def line_model(op: Operation) -> type[BaseModel]:
    """What one `--stdin` line of `op`'s command holds: its params, and its input if any."""
    assert op.params is not None, f"{op.name} takes no params"
    if op.input is None:
        return op.params
    field = (str, Field(min_length=1, description=f"The {op.input} to read."))
    model: type[BaseModel] = create_model(
        f"{op.params.__name__}Line",
        __base__=op.params,
        __doc__=op.params.__doc__,
        **{op.input: field},  # type: ignore[call-overload]
    )
    return model


async def call(client: Client, op: Operation, params: BaseModel) -> Any:
    """`op`'s Client method on one line's params."""
    fields = params.model_dump()
    if op.input is not None:
        body = str(fields.pop(op.input)).encode("utf-8")
        method = getattr(client, _ISOLATED.get(op.name, op.name))
        return await method(body, **fields, what=f"the {op.input} sent")
    return await getattr(client, op.name)(**fields)


async def serve_operation(name: str, settings: Settings, *, stream: TextIO | None = None) -> None:
    """Serve operation `name`'s JSON lines from stdin with one Client for all of them."""
    from ..client import Client
    from ..operations import operation

    op = operation(name)
    async with Client(settings) as client:

        async def handle(params: BaseModel) -> Any:
            return await call(client, op, params)

        await serve_lines(line_model(op), handle, stream=stream)
