"""dispatch(): run an agent's tool call and return a JSON-serializable result or error object.

It never raises: an unknown tool, bad arguments, a blocked URL or a crash all come back as
`{"error": {code, message, retryable, details}}`, which an agent loop can show the model as is.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from ..config import Settings
from ..errors import Disabled, InvalidInput, NetsiftError
from ..operations import by_tool
from .crawl_text import lean_crawl
from .fetch_text import lean_page
from .schemas import (
    ARGS,
    TOOLS,
    BatchSearchArgs,
    ResearchStatusArgs,
    ToolFormat,
    WebCrawlArgs,
    WebFetchArgs,
    decode_json_text,
    definitions,
    enabled_tools,
    params_of,
    tool_name,
)

if TYPE_CHECKING:  # the HTTP layer loads with the first Client (`netsift mcp` lists tools first)
    from ..client import Client

__all__ = ["TOOL_NAMES", "Toolbox", "dispatch"]

log = logging.getLogger(__name__)
TOOL_NAMES = frozenset(tool.name for tool in TOOLS)


def _error(exc: NetsiftError) -> dict[str, Any]:
    return {"error": exc.to_dict()}


def _dump(value: BaseModel) -> dict[str, Any]:
    dumped: dict[str, Any] = value.model_dump(mode="json")
    return dumped


class Toolbox:
    """Tools bound to one Client, so calls share its connections, caches and limits."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def definitions(self, format: ToolFormat = "openai") -> list[dict[str, Any]]:
        return definitions(format, settings=self.client.settings)

    def names(self) -> list[str]:
        return [tool.name for tool in enabled_tools(self.client.settings)]

    async def dispatch(self, name: str, arguments: dict[str, Any] | str | None) -> dict[str, Any]:
        """Run tool `name`; OpenAI's JSON-string arguments are accepted as they come."""
        try:
            return await self._run(name, _arguments(arguments))
        except NetsiftError as exc:
            return _error(exc)
        except ValidationError as exc:
            return _error(
                InvalidInput.from_validation(exc, subject="arguments", lead="bad arguments: ")
            )
        except Exception as exc:
            log.exception("tool %s failed", name)
            return _error(
                NetsiftError(f"the {name} tool failed unexpectedly ({type(exc).__name__})")
            )

    async def _run(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        name = tool_name(name)
        if name not in self.names():
            if name in TOOL_NAMES:
                raise Disabled(
                    f"the {name} tool is switched off on this host",
                    details={"tool": name, "available": self.names()},
                )
            raise InvalidInput(
                f"unknown tool {name!r}; available: {', '.join(self.names())}",
                details={"tool": name},
            )
        client = self.client
        args = ARGS[name].model_validate(decode_json_text(ARGS[name], arguments))
        if isinstance(args, ResearchStatusArgs):
            job = await client.job(args.job_id)
            events = await client.job_events(args.job_id, since=args.since)
            return {
                "job": job.model_dump(mode="json"),
                "events": [e.model_dump(mode="json") for e in events],
            }
        # The tool runs its operation's Client method (operations.py) on the params its
        # arguments make; the tool's own options (web_crawl's max_length) shape the answer.
        method = getattr(client, by_tool()[name].name)
        return _answer(args, await method(**params_of(name, args).model_dump()))


def _answer(args: BaseModel, result: Any) -> dict[str, Any]:
    """A tool's answer for a model: a page and a crawl lean (their facts once, the text cut),
    a batch under `results`, any other result as its JSON."""
    if isinstance(args, WebFetchArgs):
        return lean_page(result)
    if isinstance(args, WebCrawlArgs):
        return lean_crawl(result, max_length=args.max_length)
    if isinstance(args, BatchSearchArgs):
        return {"results": [_dump(item) for item in result]}
    return result if isinstance(result, dict) else _dump(result)


def _arguments(arguments: dict[str, Any] | str | None) -> dict[str, Any]:
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"arguments are not valid JSON: {exc.msg}") from exc
    if not isinstance(arguments, dict):
        raise InvalidInput("arguments must be a JSON object")
    return arguments


async def dispatch(
    name: str,
    arguments: dict[str, Any] | str | None = None,
    *,
    client: Client | None = None,
    settings: Settings | None = None,
) -> dict[str, Any]:
    """Run one tool call; opens (and closes) a Client when none is given. Never raises."""
    if client is not None:
        return await Toolbox(client).dispatch(name, arguments)
    from ..client import Client

    try:
        own = Client(settings)
    except Exception as exc:
        return _error(NetsiftError(f"could not start netsift: {type(exc).__name__}"))
    async with own:
        return await Toolbox(own).dispatch(name, arguments)
