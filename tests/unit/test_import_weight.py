"""Each command loads only what it uses: importing netsift or the CLI loads no heavy stack.

An agent harness starts a process per tool call, so what an import drags in is paid on every
call. Checked in a fresh interpreter, since this test process has imported everything already.
"""

from __future__ import annotations

import json
import subprocess
import sys

# What neither `import netsift` nor a Client nor `netsift --help` loads: the readers
# (trafilatura, pypdf and the PIL it brings, feedparser), the optional doors (openai, fastapi,
# mcp) and the research stack.
HEAVY = (
    "trafilatura",
    "pypdf",
    "PIL",
    "feedparser",
    "openai",
    "fastapi",
    "mcp",
    "netsift.research",
    "netsift.fetch.html",
)
# `netsift --help` opens neither the settings (pydantic-settings) nor the HTTP client, and the
# CLI never loads httpx's own command line (httpx._main: click, rich.progress, rich.syntax).
HELP_ALSO_SKIPS = ("pydantic_settings", "httpx", "netsift.client", "netsift.config")
CLI_SKIPS = ("httpx._main",)


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds (really imported, not blocked) after `code`."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([n for n, m in sys.modules.items() if m]))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def heavy(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_import_netsift_loads_no_heavy_stack() -> None:
    modules = loaded_after("import netsift")
    assert heavy(modules, (*HEAVY, *HELP_ALSO_SKIPS, "rich")) == []


def test_the_public_names_still_resolve_in_a_fresh_process() -> None:
    names = "netsift.Client, netsift.Page, netsift.InvalidInput, netsift.search, netsift.extract"
    modules = loaded_after(f"import netsift\n{names}")
    assert "netsift.client" in modules
    assert heavy(modules, HEAVY) == []  # the readers load with the first page they read


def test_cli_help_loads_no_heavy_stack() -> None:
    code = (
        "import sys\nsys.argv = ['netsift', '--help']\nfrom netsift.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )
    modules = loaded_after(code)
    assert "netsift.cli.search" in modules  # the commands are registered
    assert heavy(modules, HEAVY + HELP_ALSO_SKIPS + CLI_SKIPS) == []


def test_a_cli_client_loads_neither_readers_nor_research_nor_httpx_cli() -> None:
    """What `netsift search` builds: a Client, under the CLI (so httpx comes without its CLI)."""
    modules = loaded_after("import netsift.cli\nfrom netsift.client import Client\nClient()")
    assert "httpx" in modules
    assert heavy(modules, HEAVY + CLI_SKIPS) == []


def test_a_client_needs_none_of_the_optional_extras() -> None:
    """`pip install netsift` has no redis, server, mcp, llm or browser packages: building a
    Client and reading a page must not import them (each is imported where it is configured)."""
    blocked = ("redis", "fastapi", "uvicorn", "mcp", "openai", "playwright")
    code = (
        "import sys\n"
        + "".join(f"sys.modules[{name!r}] = None\n" for name in blocked)
        + "import netsift\nfrom netsift.client import Client\nClient()\n"
        + "netsift.extract('<html><body><p>hello there</p></body></html>')\n"
    )
    loaded_after(code)  # raises (the subprocess fails) on an ImportError
