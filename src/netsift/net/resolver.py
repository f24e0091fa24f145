"""Name resolution as a seam: the transport asks a Resolver, checks every answer, connects.

`SystemResolver` asks the operating system (`getaddrinfo`, A and AAAA). `StaticResolver`
answers from pins (`NETSIFT_RESOLVE`, like curl's `--resolve`) and falls back to another
resolver for the rest; tests use it (and their own Resolvers, e.g. one that rebinds) without
patching anything. A resolver only answers: the guard judges every address it returns.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Mapping
from typing import Protocol

import anyio

from .guard import IPAddress

__all__ = ["Resolver", "StaticResolver", "SystemResolver", "parse_ip"]


class Resolver(Protocol):
    """Turns a host name into the addresses to connect to."""

    async def resolve(self, host: str, port: int) -> list[IPAddress]: ...


def parse_ip(text: str) -> IPAddress | None:
    """An IP literal (brackets and IPv6 zone allowed), or None for a name."""
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def _unique(addresses: list[IPAddress]) -> list[IPAddress]:
    return list(dict.fromkeys(addresses))


class SystemResolver:
    """The operating system's resolver (A and AAAA); raises OSError when the name is unknown."""

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        literal = parse_ip(host)
        if literal is not None:
            return [literal]
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        found: list[IPAddress] = []
        for family, _, _, _, sockaddr in infos:
            if family in (socket.AF_INET, socket.AF_INET6):
                address = parse_ip(str(sockaddr[0]))
                if address is not None:
                    found.append(address)
        if not found:
            raise OSError(f"{host} has no IPv4 or IPv6 address")
        return _unique(found)


class StaticResolver:
    """Answers pinned hosts from `mapping`; others go to `fallback` (or fail)."""

    def __init__(self, mapping: Mapping[str, list[str]], fallback: Resolver | None = None) -> None:
        self._pins: dict[str, list[IPAddress]] = {}
        for host, addresses in mapping.items():
            parsed = []
            for text in addresses:
                address = parse_ip(text)
                if address is None:
                    raise ValueError(f"pin for {host!r} is not an IP address: {text!r}")
                parsed.append(address)
            self._pins[_key(host)] = _unique(parsed)
        self._fallback = fallback

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        pinned = self._pins.get(_key(host))
        if pinned is not None:
            return list(pinned)
        literal = parse_ip(host)
        if literal is not None:
            return [literal]
        if self._fallback is None:
            raise OSError(f"{host} is not pinned and no fallback resolver is configured")
        return await self._fallback.resolve(host, port)


def _key(host: str) -> str:
    return host.strip().lower().rstrip(".")
