"""The `netsift` command line: every command on one typer app (`netsift.cli.main` runs it)."""

from __future__ import annotations

import typer

from .agents import mcp, tools
from .context import context
from .crawl import crawl
from .extract_data import extract_data
from .fetch import extract, fetch, meta
from .map import map_site
from .research import discoveries, jobs, research, wake
from .search import providers, search
from .serve import serve
from .toolbelt import citation_pack, dedupe_rank, robots_check, wayback
from .worker import worker

__all__ = ["app"]

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
app.command()(context)
app.command()(providers)
app.command()(research)
app.command()(crawl)
app.command()(discoveries)
app.command()(jobs)
app.command()(wake)
app.command("robots-check")(robots_check)
app.command()(wayback)
app.command("citation-pack")(citation_pack)
app.command("dedupe-rank")(dedupe_rank)
app.command()(tools)
app.command()(mcp)
app.command()(serve)
app.command()(worker)
app.command("extract-data")(extract_data)


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
