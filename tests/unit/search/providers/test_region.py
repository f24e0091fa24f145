"""The region option → country and language."""

from __future__ import annotations

import pytest

from netsift.search.providers.region import Region, parse_region


@pytest.mark.parametrize(
    ("region", "expected"),
    [
        (None, Region()),
        ("", Region()),
        ("wt-wt", Region()),
        ("us-en", Region(country="us", language="en", kl="us-en")),
        ("de-de", Region(country="de", language="de", kl="de-de")),
        ("uk-en", Region(country="gb", language="en", kl="uk-en")),
        ("en-US", Region(country="us", language="en")),
        ("pt_BR", Region(country="br", language="pt")),
        ("de", Region(language="de")),
        ("not a region", Region()),
        ("x-1", Region()),
        ("\u00e1A\u00e9", Region()),  # letters, not ASCII: no code, and no header could carry it
        ("\u00e9s-ES", Region()),
    ],
)
def test_parse_region(region: str | None, expected: Region) -> None:
    assert parse_region(region) == expected


def test_bcp47() -> None:
    assert parse_region("us-en").bcp47 == "en-US"
    assert parse_region("de").bcp47 == "de"
    assert parse_region(None).bcp47 is None
