"""The comparison's rules: Firecrawl's same/changed, the unified diff and its parsed lines,
a schema's fields compared."""

from __future__ import annotations

from netsift.changes.compare import differs, field_changes, unified_diff
from netsift.changes.model import FieldChange


def test_whitespace_and_iframes_are_no_change_and_moved_text_reads_same() -> None:
    before = "# Lamp\n\nCosts 12 euros.\n\n- red\n- blue\n"
    assert not differs(before, "# Lamp\nCosts   12 euros.\n- red\n- blue")
    assert not differs(before, before + "\n[iframe](https://video.example/embed/1)\n")
    assert not differs(before, "# Lamp\n\nCosts 12 euros.\n\n- blue\n- red\n")  # Firecrawl's sort
    assert differs(before, before.replace("12", "15"))
    assert differs(before, before + "New colour: green.\n")


def test_diff_lines_carry_their_numbers_on_each_side() -> None:
    before = "\n".join(f"line {n}" for n in range(1, 11))
    after = before.replace("line 5", "line five").replace("line 9\n", "") + "\nline 11"
    diff = unified_diff(before, after)
    (only,) = diff.files
    assert diff.text.splitlines() == [
        line
        for chunk in only.chunks
        for line in [chunk.content, *(c.content for c in chunk.changes)]
    ]
    changes = [change for chunk in only.chunks for change in chunk.changes]
    deleted = {c.content: c.ln for c in changes if c.type == "del"}
    added = {c.content: c.ln for c in changes if c.type == "add"}
    assert deleted == {"-line 5": 5, "-line 9": 9}
    assert added == {"+line five": 5, "+line 11": 10}
    for change in changes:
        if change.type == "normal":
            old, new = int(change.content.split()[-1]), change.ln2
            assert change.ln1 == old and new == (old if old < 9 else old - 1)


def test_diff_from_nothing_and_of_equal_texts() -> None:
    diff = unified_diff("", "one\ntwo")
    assert diff.text == "@@ -0,0 +1,2 @@\n+one\n+two\n"
    assert [c.ln for c in diff.files[0].chunks[0].changes] == [1, 2]
    assert unified_diff("same", "same").files == []


def test_only_the_fields_that_differ_with_both_values() -> None:
    before = {"name": "Lamp", "price": 12, "tags": ["a", "b"], "gone": "x"}
    after = {"name": "Lamp", "price": 15, "tags": ["a", "b"], "new": True}
    assert field_changes(before, after) == {
        "price": FieldChange(previous=12, current=15),
        "gone": FieldChange(previous="x", current=None),
        "new": FieldChange(previous=None, current=True),
    }
