"""The CLI's errors as a user meets them: one line on stderr, the documented exit code, never a
traceback. Exit 2 is an invalid argument on the command line; exit 5 a bad setting in the
environment or a config file (naming the variable) or an environment problem (a busy port, a
missing extra); Ctrl-C is 130."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.cli import CliCall, in_process, subprocess_call
from tests.offline_web.fixtures import OfflineWeb


@pytest.fixture
def cli_env(offline_web: OfflineWeb, tmp_path: Path) -> dict[str, str]:
    return {
        **offline_web.env(),
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
    }


@pytest.fixture
def invoke(cli_env: dict[str, str]) -> CliCall:
    return in_process(cli_env)


@pytest.fixture
def netsift(cli_env: dict[str, str]) -> CliCall:
    return subprocess_call(cli_env)


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


# The bad configurations of issue 13, each tried alone: exit 5 naming what to fix.
BAD_SETTINGS = [
    ({"NETSIFT_HTTPS_PROXY": "notaurl"}, "NETSIFT_HTTPS_PROXY"),
    ({"HTTP_PROXY": "ftp://proxy.test:21"}, "NETSIFT_HTTP_PROXY"),
    ({"NETSIFT_USER_AGENT": "naïve/1.0"}, "NETSIFT_USER_AGENT"),
    ({"NETSIFT_DATA_DIR": "/proc/netsift-cannot-be-here"}, "NETSIFT_DATA_DIR"),
    ({"NETSIFT_AUDIT_LOG": "/proc/no/audit.ndjson"}, "NETSIFT_AUDIT_LOG"),
    ({"NETSIFT_CACHE_URL": "bogus://x"}, "NETSIFT_CACHE_URL"),
    ({"NETSIFT_RESOLVE": "a.test:not-an-ip"}, "NETSIFT_RESOLVE"),
    ({"NETSIFT_ALLOW_NETWORKS": "x"}, "NETSIFT_ALLOW_NETWORKS"),
    ({"NETSIFT_SEARCH_RATE_LIMIT": "lots"}, "NETSIFT_SEARCH_RATE_LIMIT"),
    ({"NETSIFT_PROVIDER_RATE_LIMITS": "brave=fast"}, "NETSIFT_PROVIDER_RATE_LIMITS"),
    ({"NETSIFT_TIMEOUT": "abc"}, "NETSIFT_TIMEOUT"),
    ({"NETSIFT_CAPABILITIES": "bogus"}, "NETSIFT_CAPABILITIES"),
    ({"NETSIFT_OPENAI_BASE_URL": "localhost:11434"}, "NETSIFT_OPENAI_BASE_URL"),
    ({"NETSIFT_PROVIDERS": "nosuch"}, "NETSIFT_PROVIDERS"),
    ({"NETSIFT_CONFIG": "missing.toml"}, "NETSIFT_CONFIG"),
]


@pytest.mark.parametrize(("env", "key"), BAD_SETTINGS, ids=[key for _, key in BAD_SETTINGS])
def test_each_bad_setting_exits_5_naming_it(invoke: CliCall, env: dict[str, str], key: str) -> None:
    run = invoke("search", "rust async runtime", env=env)
    assert run.code == 5, run.stderr
    assert key in run.stderr and "(config_error)" in run.stderr


def test_malformed_netsift_toml_in_the_working_directory(netsift: CliCall) -> None:
    Path("netsift.toml").write_text("timeout = [\n")
    run = netsift("search", "rust async runtime")
    assert run.code == 5 and "netsift.toml is not valid TOML" in run.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["fetch", "--timeout", "0", "http://news.test/"],
        ["fetch", "--max-bytes", "0", "http://news.test/"],
        ["fetch", "--max-length", "0", "http://news.test/"],
        ["serve", "--log-level", "bogus"],
        ["mcp", "--http", "--port", "70000"],
        ["serve", "--port", "70000"],
    ],
)
def test_an_invalid_option_exits_2(invoke: CliCall, args: list[str]) -> None:
    run = invoke(*args)
    assert run.code == 2, run.stderr + run.stdout


@pytest.mark.parametrize("command", [["serve"], ["mcp", "--http"]])
def test_a_busy_port_exits_5_with_a_clear_message(
    invoke: CliCall, busy_port: int, command: list[str]
) -> None:
    run = invoke(*command, "--port", str(busy_port))
    assert run.code == 5
    assert f"cannot listen on 127.0.0.1:{busy_port}" in run.stderr and "--port" in run.stderr


@pytest.mark.parametrize(
    ("command", "module", "extra"),
    [("serve", "uvicorn", "server"), ("mcp", "mcp", "mcp"), ("serve", "fastapi", "server")],
)
def test_a_missing_extra_says_what_to_install(
    cli_env: dict[str, str], command: str, module: str, extra: str
) -> None:
    """As after a plain `pip install .`: the module cannot be imported."""
    script = (
        f"import sys; sys.modules[{module!r}] = None; sys.argv = ['netsift', {command!r}]; "
        "from netsift.cli import main; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, **cli_env},
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 5, done.stderr
    assert f"pip install 'netsift[{extra}]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_wake_error_goes_to_stderr(invoke: CliCall) -> None:
    run = invoke("wake", "no-such-sleep")
    assert run.code != 0 and run.stdout == ""
    assert "(not_found)" in run.stderr


def test_requested_provider_without_its_key_exits_5(invoke: CliCall) -> None:
    run = invoke("search", "rust", "-p", "brave", "--json", env={"BRAVE_API_KEY": ""})
    assert run.code == 5
    error = run.json()["error"]
    assert (error["code"], error["retryable"]) == ("config_error", False)
    assert "BRAVE_API_KEY" in error["message"]


def test_netsift_toml_in_the_working_directory_cannot_open_the_guard(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    """An untrusted checkout's netsift.toml asks to allow the loopback: refused, with a
    warning; the same file named with --config (or NETSIFT_CONFIG) is the operator's word."""
    Path("netsift.toml").write_text('allow_networks = ["127.0.0.0/8"]\n')
    env = {
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_RESPECT_ROBOTS": "false",
        "NETSIFT_RESOLVE": ",".join(offline_web.pins),
        "NETSIFT_ALLOW_NETWORKS": None,
    }
    netsift = subprocess_call({})
    url = offline_web.url("news.test", "/article")
    implicit = netsift("fetch", url, env=env)
    assert implicit.code == 3 and "(blocked_address)" in implicit.stderr
    assert "'allow_networks' is ignored" in implicit.stderr
    named = netsift("--config", "netsift.toml", "fetch", url, env=env)
    assert named.code == 0, named.stderr
    assert "ignored" not in named.stderr


def test_ctrl_c_while_extract_reads_exits_130_quietly(tmp_path: Path) -> None:
    reader = subprocess.Popen(
        [sys.executable, "-m", "netsift", "extract", "-"],
        stdin=subprocess.PIPE,  # left open: extract waits for input, as on a terminal
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "NETSIFT_DATA_DIR": str(tmp_path / "data")},
    )
    try:
        _wait_until_blocked(reader.pid)
        reader.send_signal(signal.SIGINT)
        _, stderr = reader.communicate(timeout=20)
    finally:
        reader.kill()
    assert reader.returncode == 130
    assert b"Traceback" not in stderr


def _wait_until_blocked(pid: int) -> None:
    """Until the process sleeps in a read (its imports done), so SIGINT meets the read."""
    deadline = time.monotonic() + 60
    asleep = 0
    while time.monotonic() < deadline:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        asleep = asleep + 1 if state == "S" else 0
        if asleep >= 5:
            return
        time.sleep(0.1)
    raise AssertionError("the process never waited for input")


def test_no_network_is_said_in_one_short_line(tmp_path: Path) -> None:
    """Issue 11: with no network, the first search says so (which providers, that the network
    is unreachable, what to configure) in one line; --json keeps every attempt."""
    closed = [_closed_port(), _closed_port()]
    env = {
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
        "NETSIFT_ALLOW_NETWORKS": "127.0.0.1/32",
        "NETSIFT_PROVIDERS": "duckduckgo,wikipedia",
        "NETSIFT_DUCKDUCKGO_BASE_URL": f"http://127.0.0.1:{closed[0]}/",
        "NETSIFT_WIKIPEDIA_BASE_URL": f"http://127.0.0.1:{closed[1]}/",
    }
    netsift = subprocess_call(env)
    run = netsift("search", "rust async runtime")
    assert run.code == 4
    [line] = run.stderr.splitlines()
    assert "network looks unreachable" in line and "duckduckgo, wikipedia" in line
    assert "NETSIFT_PROVIDERS" in line and len(line) < 300
    error = netsift("search", "rust async runtime", "--json").json()["error"]
    assert error["retryable"] and error["details"]["network"] == "unreachable"
    assert [a["error_code"] for a in error["details"]["attempts"]] == ["connect_error"] * 2


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_unreachable_redis_exits_5_naming_it(invoke: CliCall) -> None:
    pytest.importorskip("redis", reason="the redis extra is not installed")
    run = invoke("jobs", env={"REDIS_URL": f"redis://127.0.0.1:{_closed_port()}/0"})
    assert run.code == 5 and "cannot reach Redis" in run.stderr and "REDIS_URL" in run.stderr
