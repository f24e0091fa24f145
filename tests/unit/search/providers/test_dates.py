"""Provider date formats → ISO calendar dates."""

from __future__ import annotations

import pytest

from netsift.search.providers.dates import iso_date, iso_date_parts


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-07-02T09:14:51", "2026-07-02"),
        ("2026-08-19T00:00:00.0000000", "2026-08-19"),
        ("2026-09-03T17:21:40Z", "2026-09-03"),
        ("2025-03-14", "2025-03-14"),
        ("Aug 19, 2026", "2026-08-19"),
        ("March 3, 2026", "2026-03-03"),
        ("Thu, 20 Feb 2025 15:04:11 GMT", "2025-02-20"),
        ("3 days ago", None),
        ("2026-13-45", None),
        ("", None),
        (None, None),
    ],
)
def test_iso_date(value: str | None, expected: str | None) -> None:
    assert iso_date(value) == expected


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        ([2025, 3, 14], "2025-03-14"),
        ([2024, 7], "2024-07"),
        ([2024], "2024"),
        ([None], None),
        ([], None),
    ],
)
def test_iso_date_parts(parts: list[int | None], expected: str | None) -> None:
    assert iso_date_parts(parts) == expected
