"""docs/errors.md's table is the error tree: one row per code, with the class's own HTTP
status, exit code and default retryability. A new class without its row fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from netsift import errors

DOC = Path(__file__).resolve().parents[2] / "docs" / "errors.md"


def _coded(cls: type[errors.NetsiftError]) -> list[type[errors.NetsiftError]]:
    """`cls` and its subclasses that define a code of their own (groups do not)."""
    found = [cls] if "code" in vars(cls) else []
    for sub in cls.__subclasses__():
        found.extend(_coded(sub))
    return found


def _rows() -> dict[str, list[str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Codes", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        rows[cells[0].strip("`")] = cells
    return rows


ROWS = _rows()
CLASSES = _coded(errors.NetsiftError)


def test_every_code_has_one_row_and_every_row_a_class() -> None:
    assert sorted(ROWS) == sorted(cls.code for cls in CLASSES)
    assert len({cls.code for cls in CLASSES}) == len(CLASSES)  # no code used twice


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.code)
def test_row_matches_the_class(cls: type[errors.NetsiftError]) -> None:
    _, name, http, exit_code, retryable, meaning = ROWS[cls.code]
    assert name == f"`{cls.__name__}`"
    assert int(re.match(r"\d+", http).group()) == cls.status  # type: ignore[union-attr]
    assert int(exit_code) == cls.exit_code
    assert retryable.split(",")[0].split(";")[0].strip() == (
        "yes" if cls.default_retryable else "no"
    )
    assert meaning
    assert getattr(errors, cls.__name__) is cls and cls.__name__ in errors.__all__
