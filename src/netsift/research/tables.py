"""Tables read as statements: a row is judged as "column header: cell", quoted as its own line.

A fact that is only in a table cell ("Steel" under "Material", "5,960" under "Speed (m/s)")
is not a sentence: its words are the row's cells and the header's, on two lines. netsift's
text rendering keeps the cell boundaries (`fetch/tidy.py` `plain_tables` writes a row's cells
separated by tabs, the header row first), so research can pair each cell with its column:

- a row is *judged* as statements, one a column: the row's key cell with its header, the
  names the row holds, and that column's header and cell — `Material: Steel; Speed: 5,960
  m/s` (a unit in the header's parentheses follows the number, as a sentence writes it). A
  "how many / how fast / when / which" question then meets the row whose cells name its
  subject and the column its words name, by the same relevance rules as any sentence (the
  answer type included: "how fast" wants a speed in that column, not a figure from another);
- it is *quoted* as the row's own line, cells joined by single spaces — what the fetched text
  holds, white space folded — so a citation stays verbatim and can only come from the page and
  table the row is on.

Three forms are read: tab rows (a header row, then data rows; a first row with a figure for
a cell is no header, and the table is a sheet of `key: value` rows, as a spec sheet); pipe
rows the renderer left as they were because the table had no header row (read the same
way); and definition lists, which the text rendering
writes as list items alternating a short term and its definition (`Latency: The time one
request takes…`, quoted as the definition's line).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from .citations import normalize, quote_occurs, split_sentences
from .support import matches, terms

__all__ = ["Row", "focused", "judged_text", "occurs", "quoted", "row_of", "said"]

_PIPE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_HEADER_UNIT = re.compile(r"^(?P<name>.*?\S)\s*\((?P<unit>[^()\s]{1,10})\)$")
_FIGURE = re.compile(r"[$\u20ac\u00a3~\u2248<>+-]?\d")  # a value: "19.4 kg", "$12", "~5"
_ITEM = re.compile(r"^\s*[-*+]\s+(?P<text>\S.*)$")
# A definition list's term: a short label, no sentence end (an ordinary list's items are
# sentences or all alike; a term is followed by its definition, a sentence).
MAX_TERM_WORDS = 6
_SENTENCE_END = re.compile(r"[.!?:;]$")
# Two pairs at least: one short item followed by a sentence is just a list.
MIN_DEFINITIONS = 2
# A table's caption (or the heading over it) is a short line with no sentence end; a longer
# line above a table is the prose before it, about more than the table.
MAX_CAPTION_WORDS = 10


def _cell(header: str, value: str) -> str:
    """`Speed: 5,960 m/s` — a cell as a sentence would state it (a unit in the header's
    parentheses follows the number)."""
    if match := _HEADER_UNIT.match(header):
        header, value = match.group("name"), f"{value} {match.group('unit')}"
    return f"{header}: {value}" if header else value


@dataclass(frozen=True)
class Row:
    """A table row research judged: which table of the text, its place in it, the table's
    header (None: a header-less sheet) and its cells."""

    table: int
    index: int
    header: tuple[str, ...] | None
    cells: tuple[str, ...]
    sheet: tuple[tuple[str, ...], ...] = field(default=(), compare=False, repr=False)  # all rows
    caption: str = ""  # the table's own title, the short line above it ("First bus from each stop")


def _names(cells: list[str]) -> list[str]:
    """A row's text cells that name something (a runner, a club): capitalised, no figure."""
    return [c for c in cells[1:] if c[:1].isupper() and not _FIGURE.match(c)]


def _row_statements(header: list[str] | None, cells: list[str]) -> list[str]:
    """The row as statements, one a column: the row's key (its first cell, with its header)
    and the names it holds (capitalised text cells: a runner, a club), then that column's
    header and cell — so a question meets the value of the column it names, not a figure
    from another one. A header-less sheet's row is `key: value`."""
    cells = [cell.strip() for cell in cells]
    if header is None:
        return [f"{cells[0]}: {', '.join(c for c in cells[1:] if c)}"] if cells[0] else []
    named = _names(cells)
    statements = []
    for column in range(1, len(cells)):
        value = cells[column]
        if not value:
            continue
        name = header[column].strip() if column < len(header) else ""
        names = [c for c in named if c != value]
        subject = [_cell(header[0].strip(), cells[0])] if cells[0] else []
        statements.append("; ".join([*subject, *names, _cell(name, value)]))
    return statements


def _is_header(cells: list[str]) -> bool:
    """A header names its columns: no cell after the first is a figure ("Boil time for 1
    litre" names one). A spec sheet's first row ("Weight", "19.4 kg") is a row."""
    return not any(_FIGURE.match(cell.strip()) for cell in cells[1:])


def _cells(line: str) -> list[str] | None:
    """A row's cells, or None when the line is no table row."""
    if "\t" in line:
        return line.split("\t")
    if (pipe := _PIPE_ROW.match(line)) and pipe.group(1).count("|") >= 1:
        return [cell.strip() for cell in pipe.group(1).split("|")]
    return None


@dataclass(frozen=True)
class _Statement:
    quote: str  # verbatim: the row's line, or the definition
    row: Row | None  # None: a definition


def _read(text: str) -> tuple[list[str], dict[str, _Statement]]:
    """The text with every table row and definition replaced by its statements, and each
    statement's verbatim quote and row (normalised statement → statement)."""
    lines = text.split("\n")
    out: list[str] = []
    quotes: dict[str, _Statement] = {}
    index = 0
    tables = 0
    while index < len(lines):
        run: list[list[str]] = []
        while index + len(run) < len(lines) and (cells := _cells(lines[index + len(run)])):
            run.append(cells)
        if len(run) >= 2:
            header: list[str] | None = run[0] if _is_header(run[0]) else None
            raw = [" ".join(line.split()) for line in lines[index : index + len(run)]]
            if header is not None:
                out.append(raw[0])
            body = 1 if header is not None else 0
            heading = tuple(cell.strip() for cell in header) if header is not None else None
            sheet = tuple(tuple(cell.strip() for cell in cells) for cells in run[body:])
            for place, (cells, line) in enumerate(zip(run[body:], raw[body:], strict=True)):
                row = Row(tables, place, heading, sheet[place], sheet, _caption(lines, index))
                for statement in _row_statements(header, cells):
                    out.append(statement)
                    # the row as the text holds it
                    quotes.setdefault(normalize(statement), _Statement(line, row))
            tables += 1
            index += len(run)
            continue
        definitions = _definitions(lines, index)
        if definitions:
            for term, definition in definitions:
                said = (split_sentences(definition) or [definition])[0]
                statement = f"{term}: {said}"
                out.append(statement)
                quotes.setdefault(normalize(statement), _Statement(said, None))
            index += 2 * len(definitions)
            continue
        out.append(lines[index])
        index += 1
    return out, quotes


def _caption(lines: list[str], start: int) -> str:
    """The short line right above a table at `start`, which names what its rows are ("First
    bus from each stop", "Nutrition per 100 g"), or ""."""
    above = lines[start - 1].strip() if start else ""
    if not above or _cells(above) or _SENTENCE_END.search(above):
        return ""
    return above if len(above.split()) <= MAX_CAPTION_WORDS else ""


def _definitions(lines: list[str], start: int) -> list[tuple[str, str]]:
    """List items from `start` that alternate a short term and its definition sentence."""
    pairs: list[tuple[str, str]] = []
    index = start
    while index + 1 < len(lines):
        term, definition = _ITEM.match(lines[index]), _ITEM.match(lines[index + 1])
        if not term or not definition:
            break
        label, said = term.group("text").strip(), definition.group("text").strip()
        short = len(label.split()) <= MAX_TERM_WORDS and not _SENTENCE_END.search(label)
        if not short or len(said.split()) <= len(label.split()) or not _SENTENCE_END.search(said):
            break
        pairs.append((label, said))
        index += 2
    return pairs if len(pairs) >= MIN_DEFINITIONS else []


@lru_cache(maxsize=64)
def _cached(text: str) -> tuple[str, dict[str, _Statement]]:
    lines, quotes = _read(text)
    return "\n".join(lines), quotes


def judged_text(text: str) -> str:
    """`text` as research judges it: each table row and definition as its statements."""
    return _cached(text)[0]


def quoted(sentence: str, text: str) -> str:
    """The verbatim quote for a sentence research judged: a row's statement is quoted as
    the row's line, a definition's as the definition; any other sentence is its own."""
    found = _cached(text)[1].get(normalize(sentence))
    return found.quote if found else sentence


def row_of(sentence: str, text: str) -> Row | None:
    """The table row a judged sentence states a cell of (None: prose or a definition)."""
    found = _cached(text)[1].get(normalize(sentence))
    return found.row if found else None


def said(sentence: str, text: str) -> str:
    """What the page itself says for a judged sentence, to judge as an instruction: a row's
    statement is netsift's wording ("Service: Brake fluid change" reads as an address to a
    "service" and an order to "change"), so its row's line is judged; a definition's
    statement is the page's term and definition, and prose is itself."""
    found = _cached(text)[1].get(normalize(sentence))
    return found.quote if found and found.row else sentence


def occurs(sentence: str, text: str) -> bool:
    """Whether a judged sentence is from `text`: verbatim, or a statement of one of its rows
    (whose quote is verbatim)."""
    return normalize(sentence) in _cached(text)[1] or quote_occurs(sentence, text)


# Words that ask for the row at one end of a table's order ("which team is top?", "the
# cheapest plan"): that row answers, not every row with a team in it.
# The head or the tail of the table's own order: its rank column, else its first row.
_HEAD_OF_ORDER = frozenset("top first leading leader best winner".split())
_TAIL_OF_ORDER = frozenset("bottom last worst".split())
# The extreme of a column of figures: of a column the question names ("the most points"),
# or, for an adjective that says its measure, of a column of that sense ("the cheapest" is
# the lowest price): word -> (the measure's stem, "" for any named column; highest?).
_EXTREMES: dict[str, tuple[str, bool]] = {
    **dict.fromkeys(("most", "highest", "greatest", "largest", "biggest"), ("", True)),
    **dict.fromkeys(("least", "lowest", "fewest", "smallest"), ("", False)),
    "cheapest": ("cost", False),
    "dearest": ("cost", True),
    "priciest": ("cost", True),
    "heaviest": ("weigh", True),
    "lightest": ("weigh", False),
    "fastest": ("fast", True),
    "slowest": ("fast", False),
    "longest": ("long", True),
    "shortest": ("long", False),
    "tallest": ("tall", True),
}
_AMOUNT = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_WORD = re.compile(r"[\w']+")


def _names_subject(key: str, words: set[str], numbers: set[str]) -> bool:
    """A key cell names the question's subject when all its words are the question's (a
    figure, "4.1", must be one the question names whole: "2" is not in "4.2")."""
    said = set(terms(key))
    return bool(said) and said <= words and set(_AMOUNT.findall(key)) <= numbers


def _amount(cell: str) -> float | None:
    found = _AMOUNT.search(cell)
    return float(found.group(0).replace(",", "")) if found else None


def _extreme(question: str, asked: set[str], header: tuple[str, ...], row: Row) -> int | None:
    """The row holding the extreme of the column of figures a superlative names, or None."""
    words = set(terms(question))
    for word in sorted(asked & _EXTREMES.keys()):
        measure, highest = _EXTREMES[word]
        for column, name in enumerate(header[1:], 1):
            named = set(terms(name))
            if measure:
                if not any(matches(term, {measure}) for term in named):
                    continue
            elif not named or not all(matches(term, words) for term in named):
                continue
            values = [_amount(c[column]) if column < len(c) else None for c in row.sheet]
            if all(value is not None for value in values):
                extreme = (max if highest else min)(v for v in values if v is not None)
                return values.index(extreme)
    return None


def _end(question: str, row: Row) -> int | None:
    """The row at the end of the table's order a superlative question asks for, or None
    (no superlative, or no order to read): the extreme of the column of figures it names or
    means ("the most points", "the cheapest"); else the head or tail of a rank column (keys
    1, 2, 3 …); else, for the head ("top", "first", "the most"), the first row — a table
    lists its leader first. "first" orders rows, not a column: "the first lighthouse lit"
    is not the highest figure under "First lit"."""
    if row.header is None:
        return None
    asked = {word.casefold() for word in _WORD.findall(question)}
    if (extreme := _extreme(question, asked, row.header, row)) is not None:
        return extreme
    head = bool(asked & _HEAD_OF_ORDER) or any(_EXTREMES[w][1] for w in asked & _EXTREMES.keys())
    tail = bool(asked & _TAIL_OF_ORDER) or any(
        not _EXTREMES[w][1] for w in asked & _EXTREMES.keys()
    )
    if head == tail:
        return None
    keys = [cells[0] for cells in row.sheet]
    if keys == [str(place) for place in range(1, len(keys) + 1)]:
        return 0 if head else len(keys) - 1
    return 0 if head else None


def focused(question: str, rows: Sequence[tuple[int, Row | None]]) -> list[bool]:
    """Which of the answering sentences stay, given (source, row) for each (row None: prose,
    which stays). In a table with a header, a row whose key names the question's subject
    ("Interim service", "Castleby Town") is the answer: the table's other rows answer the
    same column for another subject and go. With no row named, a superlative question keeps
    the row at the end of the table's order it asks for. A header-less sheet's rows are
    attributes of one subject, so they are all kept."""
    words = set(terms(question))
    numbers = set(_AMOUNT.findall(question))
    chosen: dict[tuple[int, int], set[int]] = {}
    for n, row in rows:
        if row is None or row.header is None or (n, row.table) in chosen:
            continue
        named = {
            place
            for place, cells in enumerate(row.sheet)
            if any(_names_subject(key, words, numbers) for key in (cells[0], *_names(list(cells))))
        }
        end = _end(question, row)
        if named:
            chosen[(n, row.table)] = named
        elif end is not None:
            chosen[(n, row.table)] = {end}
    return [
        row is None or (n, row.table) not in chosen or row.index in chosen[(n, row.table)]
        for n, row in rows
    ]
