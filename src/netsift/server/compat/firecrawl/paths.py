"""Where Firecrawl's API answers on netsift's main port: under PREFIX (and at a host root
when routing.py brings a request there). A leaf module, so every part of the API, common.py
included, takes its router from here."""

from __future__ import annotations

from fastapi import APIRouter

__all__ = ["PREFIX", "new_router"]

PREFIX = "/firecrawl"


def new_router() -> APIRouter:
    """A part's router: under the prefix, kept out of netsift's own OpenAPI schema."""
    return APIRouter(prefix=PREFIX, tags=["compat: firecrawl"], include_in_schema=False)
