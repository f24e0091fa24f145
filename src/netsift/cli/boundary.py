"""The CLI's one error boundary: NetsiftError → message (or JSON) and its exit code."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import typer

if TYPE_CHECKING:
    from ..config import Settings
    from ..errors import NetsiftError

__all__ = ["CONFIG_EXIT", "build_settings", "error_object", "fail", "run"]

T = TypeVar("T")
CONFIG_EXIT = 5


def error_object(error: NetsiftError) -> dict[str, Any]:
    return {"error": error.to_dict()}


def fail(error: NetsiftError, *, as_json: bool) -> NoReturn:
    """Print the error where it belongs and exit with its code; never a traceback."""
    if as_json:
        sys.stdout.write(json.dumps(error_object(error), ensure_ascii=False) + "\n")
    else:
        sys.stderr.write(f"error: {error.message} ({error.code})\n")
    raise typer.Exit(error.exit_code)


def internal(exc: BaseException) -> NetsiftError:
    from ..errors import NetsiftError

    if os.environ.get("NETSIFT_DEBUG"):
        import traceback

        traceback.print_exception(exc)
    return NetsiftError(f"unexpected failure: {type(exc).__name__}")


def build_settings(**overrides: Any) -> Settings:
    """Settings from the environment plus the command's options; a bad config exits 5."""
    from pydantic import ValidationError

    from ..config import Settings
    from ..errors import InvalidInput

    clean = {key: value for key, value in overrides.items() if value is not None}
    try:
        return Settings(**clean)
    except ValidationError as exc:
        problems = InvalidInput.from_validation(exc, subject="settings").message
        sys.stderr.write(f"error: invalid configuration: {problems} (invalid_input)\n")
        raise typer.Exit(CONFIG_EXIT) from None


def run(work: Callable[[], Awaitable[T]], *, as_json: bool) -> T:
    """Run one async command body, rendering any failure in the one place it is rendered."""
    import anyio
    from pydantic import ValidationError

    from ..errors import InvalidInput, NetsiftError

    try:
        return anyio.run(work)
    except NetsiftError as exc:
        fail(exc, as_json=as_json)
    except ValidationError as exc:
        fail(InvalidInput.from_validation(exc), as_json=as_json)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except typer.Exit:
        raise
    except Exception as exc:
        fail(internal(exc), as_json=as_json)
