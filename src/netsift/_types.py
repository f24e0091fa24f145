"""Shared type aliases, as httpx/_types.py holds them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

JSON: TypeAlias = dict[str, Any] | list[Any] | str | int | float | bool | None
JSONObject: TypeAlias = dict[str, Any]
HeadersLike: TypeAlias = Mapping[str, str] | Sequence[tuple[str, str]]
