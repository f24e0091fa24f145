"""Which Chromium to run and with which switches (pure, apart from looking at the disk).

The switches take away every way Chromium has to reach the network on its own: background
services (component updater, sync, safe browsing, metrics), DNS prefetch and DNS-over-HTTPS,
QUIC (UDP), WebRTC's non-proxied UDP, and name resolution itself (`--host-resolver-rules`
maps every name to NOTFOUND). What is left must go through the proxy the browser is given,
which is netsift's deny-all sink (`sink.py`): the browser has no direct network at all, and
page requests reach the web only through the request interception in `interceptor.py`.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

__all__ = [
    "SYSTEM_CHROMIUM_NAMES",
    "browser_args",
    "find_browser",
    "playwright_installed",
    "proxy_settings",
]

# The OS packages' names for Chromium (Debian/Ubuntu `chromium`, older `chromium-browser`).
SYSTEM_CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

_DISABLED_FEATURES = (
    "BackForwardCache",  # a reused page must not keep the last site's page alive (renderer.py)
    "DnsOverHttps",
    "AutofillServerCommunication",
    "CertificateTransparencyComponentUpdater",
    "MediaRouter",
    "OptimizationHints",
    "Translate",
    "InterestFeedContentSuggestions",
    "NetworkTimeServiceQuerying",
    "PrivacySandboxSettings4",
    "WebRtcHideLocalIpsWithMdns",
    # Chromium 15x renders the address bar's suggestion popup as a WebUI page and preloads it,
    # in a renderer process of its own per context (~60 MiB PSS each, bench/README.md): a
    # headless render never shows an address bar
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
)


def playwright_installed() -> bool:
    """True when the `netsift[browser]` extra (Playwright) is importable."""
    return importlib.util.find_spec("playwright") is not None


def find_browser(configured: str | None, playwright_path: str | None) -> str | None:
    """The Chromium to launch: `NETSIFT_BROWSER_PATH`, else Playwright's own download when it
    is on disk, else the OS package's; None when there is none."""
    if configured:
        path = shutil.which(configured) or configured
        return path if Path(path).is_file() and os.access(path, os.X_OK) else None
    if playwright_path and Path(playwright_path).is_file():
        return playwright_path
    for name in SYSTEM_CHROMIUM_NAMES:
        if found := shutil.which(name):
            return found
    return None


def browser_args(sink_host: str) -> list[str]:
    """Chromium's command-line switches: no network of its own (see the module docstring)."""
    return [
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-domain-reliability",
        "--disable-client-side-phishing-detection",
        "--disable-breakpad",
        "--no-first-run",
        "--no-default-browser-check",
        "--no-pings",
        "--disable-quic",
        "--dns-prefetch-disable",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
        f"--disable-features={','.join(_DISABLED_FEATURES)}",
        f"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE {sink_host}",
        "--disable-dev-shm-usage",  # containers' /dev/shm is small; tabs crash without this
        # no GPU: text needs no WebGL or GPU raster, and the GPU process then holds only the
        # compositor (~15 MiB less PSS, bench/README.md); WebGL off is less code pages reach
        "--disable-gpu",
        "--disable-software-rasterizer",
    ]


def proxy_settings(sink_url: str) -> dict[str, str]:
    """Playwright's `proxy=` for the sink; `<-loopback>` sends loopback through it too."""
    return {"server": sink_url, "bypass": "<-loopback>"}
