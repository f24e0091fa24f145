"""The `netsift` command: human output on a terminal, JSON in and out for agent harnesses."""

from __future__ import annotations

import sys

# httpx's __init__ imports its own command line (`httpx._main`: click, rich.progress,
# rich.syntax, pygments' lexers) whenever those happen to be installed, and typer's dependency
# on rich installs them: ~40 ms of CPU on every netsift command for a CLI it never runs. A None
# entry makes that import fail the way httpx expects when its `cli` extra is absent, and httpx
# falls back to its stub `main`. Only the netsift process is affected; the library leaves it.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import typer  # noqa: E402

from .agents import mcp, tools  # noqa: E402
from .crawl import crawl  # noqa: E402
from .fetch import extract, fetch, meta  # noqa: E402
from .map import map_site  # noqa: E402
from .research import discoveries, jobs, research, wake  # noqa: E402
from .search import providers, search  # noqa: E402
from .serve import serve  # noqa: E402
from .worker import worker  # noqa: E402

__all__ = ["app", "main"]

app = typer.Typer(
    name="netsift",
    help="Search the web and read pages safely, for people and AI agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.command()(fetch)
app.command()(meta)
app.command()(extract)
app.command("map")(map_site)
app.command()(search)
app.command()(providers)
app.command()(research)
app.command()(crawl)
app.command()(discoveries)
app.command()(jobs)
app.command()(wake)
app.command()(tools)
app.command()(mcp)
app.command()(serve)
app.command()(worker)


def _print_version(value: bool) -> None:
    if value:
        from .._version import __version__

        typer.echo(f"netsift {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        help="Print the version and exit.",
        is_eager=True,
        callback=_print_version,
    ),
    config: str | None = typer.Option(
        None,
        "--config",
        help="A TOML config file to trust (like NETSIFT_CONFIG); unlike a netsift.toml found "
        "in the working directory, it may also set the guard's settings.",
    ),
) -> None:
    """Search the web and read pages safely, for people and AI agents."""
    if config is not None:
        import os

        from ..config import CONFIG_ENV

        os.environ[CONFIG_ENV] = config  # read when the command builds its Settings


def main() -> None:
    app()
