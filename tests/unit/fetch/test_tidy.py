"""fetch/tidy.py: source indentation leaves paragraphs; structure that needs it stays."""

from __future__ import annotations

from netsift.fetch.tidy import plain_tables, tidy


def test_paragraph_continuation_lines_lose_source_indentation() -> None:
    text = "The ferries made their first\n        battery-only crossings on\n    Monday."
    assert tidy(text) == "The ferries made their first\nbattery-only crossings on\nMonday."


def test_code_lists_quotes_and_tables_keep_their_indentation() -> None:
    text = "\n".join(
        [
            "```python",
            "def f():",
            "    return 1",
            "```",
            "After the code.",
            "",
            "- item",
            "  - nested item",
            "",
            "    indented code after a blank line",
            "",
            "| a | b |",
            "  > quoted",
        ]
    )
    assert tidy(text).splitlines() == [
        "```python",
        "def f():",
        "    return 1",
        "```",
        "",  # a fence is followed by a blank line
        "After the code.",
        "",
        "- item",
        "  - nested item",
        "",
        "    indented code after a blank line",
        "",
        "| a | b |",
        "  > quoted",
    ]


def test_trailing_space_goes_and_plain_text_is_unchanged() -> None:
    assert tidy("one   \ntwo\t") == "one\ntwo"
    assert tidy("no change here\n\nnor here") == "no change here\n\nnor here"


def test_extraction_output_is_tidied() -> None:
    from netsift.fetch.html import extract_html

    html = (
        "<html><body><article><h1>Title here</h1><p>The three ferries that link Kelby with the"
        " islands made their first\n        battery-only crossings on Monday, ending"
        " <em>ninety years</em> of diesel engines on the\n        route. The batteries are"
        " charged overnight from the tidal array the council finished last autumn.</p>"
        "<p>Second paragraph with enough words to count as content for the extractor.</p>"
        "</article></body></html>"
    )
    for fmt in ("markdown", "text"):
        content = extract_html(html, url=None, format=fmt).content
        assert "battery-only crossings" in content and "        " not in content


def test_a_pipe_table_keeps_one_separator_row() -> None:
    table = "| Plan | Price |\n|---|---|\n| Free | 0 |\n|---|---|\n| Pro | 10 |"
    assert tidy(table) == "| Plan | Price |\n|---|---|\n| Free | 0 |\n| Pro | 10 |"
    fenced = "```\n| a |\n|---|\n| b |\n|---|\n```"
    assert tidy(fenced) == fenced


def test_plain_text_gets_table_rows_as_tab_separated_cells() -> None:
    text = (
        "Prices\n| Plan | Price | Note |\n| --- | :---: | --- |\n| Free \\| trial | 0 | |\n"
        "|  |  |  |\n| | 10 | yearly |\nAfter."
    )
    assert (
        plain_tables(text) == "Prices\nPlan\tPrice\tNote\nFree | trial\t0\t\n\t10\tyearly\nAfter."
    )


def test_pipe_lines_without_a_separator_are_not_a_table() -> None:
    text = "|> a shell prompt |\nplain"
    assert plain_tables(text) == text


def test_runs_of_spaces_between_words_become_one_outside_code() -> None:
    assert tidy("Hello   *world*   and more.") == "Hello *world* and more."
    assert tidy("```\na   = 1\n```") == "```\na   = 1\n```"
