"""Configuration you can trust: files in the working directory cannot open the guard, unknown
keys are named with the closest known one, a broken file is a `config_error`, and values that
would fail later (a proxy, a header, a pin) are refused when the settings are built.

The autouse `isolated_env` fixture runs each test in its own empty working directory."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from pydantic import ValidationError

from netsift.config import CONFIG_ENV, Settings
from netsift.errors import ConfigError


def test_malformed_toml_is_a_config_error_naming_the_file() -> None:
    Path("netsift.toml").write_text("timeout = [unclosed\n")
    with pytest.raises(ConfigError) as caught:
        Settings()
    assert "netsift.toml" in caught.value.message and caught.value.exit_code == 5
    assert not caught.value.retryable


@pytest.mark.parametrize(
    ("filename", "text"),
    [
        ("netsift.toml", 'allow_networks = ["10.0.0.0/8"]\nresolve = ["a.test:10.0.0.1"]\n'),
        ("netsift.toml", 'respect_robots = false\nhttps_proxy = "http://evil.test:3128"\n'),
        (".env", "NETSIFT_ALLOW_NETWORKS=10.0.0.0/8\nNETSIFT_RESPECT_ROBOTS=false\n"),
        (".env", "HTTPS_PROXY=http://evil.test:3128\nNETSIFT_RESOLVE=a.test:10.0.0.1\n"),
        ("netsift.toml", "proxy_enforces_egress = true\n"),
        (".env", "NETSIFT_PROXY_ENFORCES_EGRESS=true\n"),
    ],
)
def test_working_directory_files_cannot_weaken_the_guard(
    filename: str, text: str, caplog: pytest.LogCaptureFixture
) -> None:
    Path(filename).write_text(text)
    with caplog.at_level(logging.WARNING, logger="netsift.config"):
        settings = Settings()
    assert settings.allow_networks == [] and settings.resolve == []
    assert settings.respect_robots and settings.https_proxy is None
    assert not settings.proxy_enforces_egress
    assert "weaken the guard" in caplog.text and filename in caplog.text


def test_working_directory_files_still_set_ordinary_keys(
    caplog: pytest.LogCaptureFixture,
) -> None:
    Path("netsift.toml").write_text(
        "timeout = 7\nrespect_robots = true\nproxy_enforces_egress = false\n"
    )
    Path(".env").write_text("NETSIFT_MAX_REDIRECTS=3\n")
    with caplog.at_level(logging.WARNING, logger="netsift.config"):
        settings = Settings()
    assert (settings.timeout, settings.max_redirects) == (7.0, 3)
    assert caplog.text == ""  # keeping robots on weakens nothing: no warning


def test_an_explicitly_named_file_is_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = tmp_path / "ops" / "netsift.toml"
    named.parent.mkdir()
    named.write_text('allow_networks = ["10.0.0.0/8"]\nrespect_robots = false\ntimeout = 9\n')
    Path("netsift.toml").write_text("timeout = 3\n")  # the explicit file outranks it
    monkeypatch.setenv(CONFIG_ENV, str(named))
    settings = Settings()
    assert settings.allow_networks == ["10.0.0.0/8"] and not settings.respect_robots
    assert settings.timeout == 9.0


def test_a_named_file_that_is_missing_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CONFIG_ENV, "no-such.toml")
    with pytest.raises(ConfigError, match="does not exist") as caught:
        Settings()
    assert caught.value.details["key"] == CONFIG_ENV


@pytest.mark.parametrize(
    ("filename", "text", "closest"),
    [
        ("netsift.toml", "timeot = 3\n", "'timeout'"),
        (".env", "NETSIFT_MAX_REDIRETCS=2\n", "'max_redirects'"),
    ],
)
def test_typos_are_named_with_the_closest_key(
    filename: str, text: str, closest: str, caplog: pytest.LogCaptureFixture
) -> None:
    Path(filename).write_text(text)
    with caplog.at_level(logging.WARNING, logger="netsift.config"):
        Settings()
    assert "unknown setting" in caplog.text and f"did you mean {closest}" in caplog.text


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("https_proxy", "notaurl"),
        ("http_proxy", "ftp://proxy.test:21"),
        ("user_agent", "naïve agent"),
        ("user_agent", "agent\r\nX-Injected: 1"),
        ("resolve", "a.test:not-an-ip"),
        ("cache_url", "bogus://x"),
        ("search_rate_limit", "lots"),
        ("openai_base_url", "localhost:11434"),
    ],
)
def test_values_that_would_fail_later_are_refused_now(field: str, value: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(**{field: value})  # type: ignore[arg-type]
    assert caught.value.errors()[0]["loc"][0] == field
