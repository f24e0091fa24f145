"""The browser's pure parts: mode resolution, switches, executable choice, proxy request lines,
/proc parsing and the headers that travel from the browser to HttpClient."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from netsift.config import Settings
from netsift.render.chromium import browser_args, find_browser, proxy_settings
from netsift.render.driver import driver_environment, node_options
from netsift.render.memory import descendants, parse_stat_ppid, pss_bytes, tree_pss
from netsift.render.sink import request_target
from netsift.render.step import resolve_mode


def settings(**overrides: object) -> Settings:
    return Settings(_env_file=None, **overrides)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("requested", "configured", "available", "mode"),
    [
        (None, None, True, "auto"),
        (None, None, False, "never"),
        (None, "always", False, "always"),
        ("never", "always", True, "never"),
        ("always", None, False, "always"),
    ],
)
def test_mode_is_the_callers_then_the_hosts_then_by_installation(
    requested, configured, available, mode
) -> None:
    assert resolve_mode(requested, settings(render=configured), available) == mode


def test_switches_leave_the_browser_no_network_of_its_own() -> None:
    args = browser_args("127.0.0.1")
    for switch in (
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
        "--dns-prefetch-disable",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--disable-gpu",
    ):
        assert switch in args
    assert "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1" in args
    # one list: Chromium keeps only the last of repeated switches
    (features,) = [a for a in args if a.startswith("--disable-features=")]
    assert {"DnsOverHttps", "WebUIOmniboxPopup", "WebUIOmniboxAimPopup"} <= set(
        features.removeprefix("--disable-features=").split(",")
    )
    assert proxy_settings("http://127.0.0.1:9") == {
        "server": "http://127.0.0.1:9",
        "bypass": "<-loopback>",  # loopback goes through the sink too
    }


def _executable(path: Path) -> str:
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_browser_choice_configured_then_playwrights_then_the_systems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = _executable(tmp_path / "my-chrome")
    bundled = _executable(tmp_path / "playwright-chrome")
    system_dir = tmp_path / "bin"
    system_dir.mkdir()
    system = _executable(system_dir / "chromium")
    monkeypatch.setenv("PATH", str(system_dir))
    assert find_browser(mine, bundled) == mine
    assert find_browser(None, bundled) == bundled
    assert find_browser(None, str(tmp_path / "not-downloaded")) == system
    assert find_browser(str(tmp_path / "missing"), bundled) is None  # a wrong setting is not
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # silently replaced
    assert find_browser(None, None) is None


@pytest.mark.parametrize(
    ("line", "target"),
    [
        (b"CONNECT update.example:443 HTTP/1.1\r\n", ("CONNECT", "https://update.example:443/")),
        (b"GET http://127.0.0.2:8/x HTTP/1.1\r\n", ("GET", "http://127.0.0.2:8/x")),
        (b"", None),
        (b"garbage\r\n", None),
    ],
)
def test_sink_reads_proxy_request_lines(line: bytes, target: tuple[str, str] | None) -> None:
    assert request_target(line) == target


def test_proc_parsing() -> None:
    assert parse_stat_ppid("123 (chrome (renderer)) S 77 123 1 0") == 77
    assert parse_stat_ppid("broken") is None
    if Path("/proc/self/status").exists():
        assert pss_bytes(os.getpid()) > 0
        assert tree_pss([os.getpid()]) == pss_bytes(os.getpid())
        assert os.getpid() not in descendants(os.getpid())
    assert pss_bytes(-1) == 0


def test_browser_headers_that_travel() -> None:
    from netsift.render.interceptor import forwarded_headers

    sent = forwarded_headers(
        {
            "Accept": "application/json",
            "X-Requested-With": "XMLHttpRequest",
            "Host": "127.0.0.2",
            "User-Agent": "HeadlessChrome",
            "Accept-Encoding": "gzip",
            "Proxy-Authorization": "Basic x",
        }
    )
    assert sent == {"Accept": "application/json", "X-Requested-With": "XMLHttpRequest"}


def test_driver_node_options_keep_the_operators_own() -> None:
    assert node_options(None) == "--max-semi-space-size=1"
    assert node_options("--max-old-space-size=512") == (
        "--max-old-space-size=512 --max-semi-space-size=1"
    )
    assert node_options("--max-semi-space-size=8") == "--max-semi-space-size=8"


def test_driver_environment_is_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NODE_OPTIONS", raising=False)
    with driver_environment():
        assert os.environ["NODE_OPTIONS"] == "--max-semi-space-size=1"
    assert "NODE_OPTIONS" not in os.environ
    monkeypatch.setenv("NODE_OPTIONS", "--trace-warnings")
    with driver_environment():
        assert os.environ["NODE_OPTIONS"] == "--trace-warnings --max-semi-space-size=1"
    assert os.environ["NODE_OPTIONS"] == "--trace-warnings"
