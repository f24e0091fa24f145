"""The CLI's one error boundary: NetsiftError → message (or JSON) and its exit code."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeGuard, TypeVar

import anyio
import typer

from ..errors import ConfigError, InvalidInput, NetsiftError

if TYPE_CHECKING:  # the settings (pydantic-settings, httpx) load with the first command body
    from pydantic import ValidationError

    from ..config import Settings

__all__ = [
    "CONFIG_EXIT",
    "EXTRAS",
    "PROVIDERS_HINT",
    "attempt_line",
    "build_settings",
    "check_port_free",
    "error_object",
    "fail",
    "guarded",
    "missing_extra",
    "run",
    "settings_error",
    "unusable_paths",
    "verbose_details",
]

T = TypeVar("T")
CONFIG_EXIT = 5


def error_object(error: NetsiftError) -> dict[str, Any]:
    return {"error": error.to_dict()}


def fail(error: NetsiftError, *, as_json: bool, verbose: bool = False) -> NoReturn:
    """Print the error where it belongs and exit with its code; never a traceback. One line
    by default; `verbose` adds what `--json` carries in `details`: each provider attempt's
    code and message, then where to look next."""
    if as_json:
        sys.stdout.write(json.dumps(error_object(error), ensure_ascii=False) + "\n")
    else:
        sys.stderr.write(f"error: {error.message} ({error.code}){_wait_hint(error)}\n")
        if verbose:
            sys.stderr.write(verbose_details(error))
    raise typer.Exit(error.exit_code)


PROVIDERS_HINT = "hint: `netsift providers` shows each provider's configuration and state"


def attempt_line(attempt: dict[str, Any]) -> str:
    """`  brave: rate_limited, retryable, retry after 30s: the message` for one attempt."""
    if attempt.get("ok"):
        found = f"ok, {attempt.get('result_count', 0)} results"
        return f"  {attempt.get('provider')}: {found} in {attempt.get('latency_ms', 0):.0f} ms\n"
    notes = [str(attempt.get("error_code") or "failed")]
    if attempt.get("retryable") is not None:
        notes.append("retryable" if attempt["retryable"] else "not retryable")
    wait = attempt.get("retry_after")
    if isinstance(wait, int | float) and not isinstance(wait, bool):
        notes.append(f"retry after {wait:g}s")
    message = attempt.get("message")
    return (
        f"  {attempt.get('provider')}: {', '.join(notes)}"
        + (f": {message}" if message else "")
        + "\n"
    )


def verbose_details(error: NetsiftError) -> str:
    """The provider attempts an error carries, a line each, and the hint; empty for an
    error that has none (then the one line already said everything)."""
    attempts = error.details.get("attempts")
    if not isinstance(attempts, list) or not attempts:
        return ""
    lines = [attempt_line(a) for a in attempts if isinstance(a, dict)]
    return "attempts:\n" + "".join(lines) + PROVIDERS_HINT + "\n"


def _wait_hint(error: NetsiftError) -> str:
    """`; retry after 30s` when the error knows when trying again may work."""
    wait = error.details.get("retry_after")
    if isinstance(wait, int | float) and not isinstance(wait, bool):
        return f"; retry after {wait:g}s"
    return ""


def internal(exc: BaseException) -> NetsiftError:
    from ..errors import NetsiftError

    if os.environ.get("NETSIFT_DEBUG"):
        import traceback

        traceback.print_exception(exc)
    return NetsiftError(f"unexpected failure: {type(exc).__name__}")


def build_settings(**overrides: Any) -> Settings:
    """Settings from the environment and files plus the command's options.

    Exit codes follow who must fix it: an option given on this command line that is out of
    range is invalid input (exit 2, naming the option); a bad value from the environment, a
    `.env`, `netsift.toml` or the `--config` file is a configuration error (exit 5, naming the
    variable to fix). Paths netsift will write to are checked here too, so an unwritable data
    directory is a clear exit 5 instead of a failure halfway through a command.
    """
    from pydantic import ValidationError

    from ..config import Settings

    clean = {key: value for key, value in overrides.items() if value is not None}
    try:
        settings = Settings(**clean)
    except ConfigError as exc:
        fail(exc, as_json=False)
    except ValidationError as exc:
        fail(settings_error(exc, given=set(clean)), as_json=False)
    for key, problem in unusable_paths(settings):
        fail(ConfigError(f"{key}: {problem}", details={"key": key}), as_json=False)
    return settings


def settings_error(exc: ValidationError, *, given: set[str]) -> NetsiftError:
    """InvalidInput for the options given on the command line, else ConfigError; each
    problem names the option or the environment variable to change."""
    from ..config import Settings, env_name

    problems: list[str] = []
    keys: list[str] = []
    from_options = True
    for err in exc.errors():
        field = str(err["loc"][0]) if err["loc"] else "settings"
        if field in given:
            key = "--no-robots" if field == "respect_robots" else "--" + field.replace("_", "-")
        else:
            from_options = False
            key = env_name(field) if field in Settings.model_fields else field
        keys.append(key)
        problems.append(f"{key}: {err['msg'].removeprefix('Value error, ')}")
    message = "; ".join(problems)
    if from_options:
        return InvalidInput(message, details={"keys": keys})
    return ConfigError(f"invalid configuration: {message}", details={"key": keys[0], "keys": keys})


def unusable_paths(settings: Settings) -> list[tuple[str, str]]:
    """(variable, problem) for each path netsift would write to but cannot."""
    found = []
    paths = {"NETSIFT_DATA_DIR": settings.data_path()}
    if settings.audit_log is not None:
        paths["NETSIFT_AUDIT_LOG"] = settings.audit_log.parent
    if settings.discoveries_path is not None:
        paths["NETSIFT_DISCOVERIES_PATH"] = settings.discoveries_path.parent
    for key, path in paths.items():
        problem = _unwritable(path)
        if problem:
            found.append((key, problem))
    return found


def _unwritable(directory: Path) -> str | None:
    """Why netsift could not create or write into `directory` (None when it can). It is
    created as it would be on first use, and probed with a temporary file: permission bits
    alone do not say (root passes os.access, read-only mounts do not show in them)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        return f"{directory} cannot be written: {exc.strerror or type(exc).__name__}"
    return None


# The optional dependency each extra brings, by top-level module name: a command that needs
# one says which extra to install instead of showing a ModuleNotFoundError.
EXTRAS = {
    "fastapi": "server",
    "fastapi_offline": "server",
    "starlette": "server",
    "uvicorn": "server",
    "websockets": "server",
    "prometheus_client": "server",
    "mcp": "mcp",
    "openai": "llm",
    "redis": "redis",
}
INTERRUPTED_EXIT = 130  # 128 + SIGINT, what shells report for Ctrl-C


def missing_extra(exc: ImportError) -> ConfigError | None:
    """A ConfigError naming the extra that provides the missing module, if one does."""
    name = (exc.name or "").partition(".")[0]
    extra = EXTRAS.get(name)
    if extra is None:
        return None
    return ConfigError(
        f"this needs the '{extra}' extra ({name} is not installed): pip install 'netsift[{extra}]'",
        details={"extra": extra, "module": name},
    )


def run(work: Callable[[], Awaitable[T]], *, as_json: bool, verbose: bool = False) -> T:
    """Run one async command body, rendering any failure in the one place it is rendered."""
    with guarded(as_json=as_json, verbose=verbose):
        return anyio.run(work)
    raise AssertionError("unreachable: guarded() exits on every failure")  # pragma: no cover


@contextlib.contextmanager
def guarded(*, as_json: bool, verbose: bool = False) -> Iterator[None]:
    """The CLI's error boundary for a block: a NetsiftError is printed with its exit code
    (and its details with `verbose`), a missing extra says what to install, Ctrl-C exits 130
    quietly, anything else is `internal` without a traceback (NETSIFT_DEBUG=1 shows it)."""
    try:
        yield
    except NetsiftError as exc:
        fail(exc, as_json=as_json, verbose=verbose)
    except KeyboardInterrupt:
        raise typer.Exit(INTERRUPTED_EXIT) from None
    except typer.Exit:
        raise
    except ImportError as exc:
        fail(missing_extra(exc) or internal(exc), as_json=as_json)
    except Exception as exc:
        if _is_validation_error(exc):
            fail(InvalidInput.from_validation(exc), as_json=as_json)
        fail(store_unreachable(exc) or internal(exc), as_json=as_json)


def _is_validation_error(exc: Exception) -> TypeGuard[ValidationError]:
    """pydantic's ValidationError, checked without importing pydantic (`--help` never does):
    if pydantic is not loaded, nothing raised one."""
    if "pydantic_core" not in sys.modules:
        return False
    from pydantic import ValidationError

    return isinstance(exc, ValidationError)


def store_unreachable(exc: BaseException) -> ConfigError | None:
    """A ConfigError when `exc` is Redis refusing or not answering: the configured store URL
    is what to fix (or the server to start), not something to report as `internal`."""
    if "redis" not in sys.modules:  # redis is an optional extra; never import it for this
        return None
    from redis.exceptions import ConnectionError, TimeoutError

    if not isinstance(exc, ConnectionError | TimeoutError):
        return None
    return ConfigError(
        f"cannot reach Redis ({exc}); check REDIS_URL / NETSIFT_JOBS_URL / NETSIFT_CACHE_URL "
        "or start the server",
        details={"key": "REDIS_URL"},
    )


def check_port_free(host: str, port: int, *, option: str = "--port") -> None:
    """ConfigError (exit 5) when `host:port` cannot be bound, before a server starts: a busy
    port is the environment's problem, said in one line instead of a server's log."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
    except OSError as exc:
        raise ConfigError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; "
            f"choose another with {option} (or --host)",
            details={"key": option, "host": host, "port": port},
        ) from None
