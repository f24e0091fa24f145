"""Table-only questions for bench/research_quality.py (`--corpus tables`): every answer is in a
table cell or a definition, never in a sentence. Written with the table-reading rule
(research/tables.py) but before it was run on them, and not tuned on: a spec sheet (key and
value, no header row), a results table, a timetable, a definition list (a glossary), and a
wide comparison table; with near-topic questions whose table has no such column.

Facts are invented for here (made-up bikes, races and trains), so no model knows them.
"""

from __future__ import annotations

from tests.integration.research.web import Doc

from bench.quality_corpus import Question, _a, _u

__all__ = ["PAGES", "PAYLOADS", "QUESTIONS"]

PAYLOADS: tuple[str, ...] = ()

_SPEC = """
<table>
<tr><th>Weight</th><td>19.4 kg</td></tr>
<tr><th>Battery</th><td>500 Wh, removable</td></tr>
<tr><th>Range</th><td>up to 90 km</td></tr>
<tr><th>Top assisted speed</th><td>25 km/h</td></tr>
<tr><th>Frame</th><td>6061 aluminium</td></tr>
</table>
"""

_RESULTS = """
<table>
<caption>Lakeside 10K, 14 September 2025: the first five</caption>
<thead><tr><th>Place</th><th>Runner</th><th>Club</th><th>Time</th></tr></thead>
<tbody>
<tr><td>1</td><td>Mirela Dobos</td><td>Harbour AC</td><td>31:42</td></tr>
<tr><td>2</td><td>Tom Ekwueme</td><td>Northfield Striders</td><td>33:05</td></tr>
<tr><td>3</td><td>Ines Varga</td><td>Harbour AC</td><td>33:51</td></tr>
<tr><td>4</td><td>Rob Hallett</td><td>unattached</td><td>34:10</td></tr>
<tr><td>5</td><td>Kasia Nowicka</td><td>Quarry Hill RC</td><td>34:38</td></tr>
</tbody></table>
"""

_TIMETABLE = """
<table>
<thead><tr><th>Train</th><th>Departs Linden</th><th>Arrives Harwick</th><th>Runs</th></tr></thead>
<tbody>
<tr><td>Morning Stopper</td><td>06:40</td><td>08:31</td><td>Mon-Sat</td></tr>
<tr><td>Coastal Express</td><td>09:05</td><td>11:20</td><td>daily</td></tr>
<tr><td>Valley Local</td><td>14:30</td><td>16:02</td><td>Mon-Fri</td></tr>
<tr><td>Night Sleeper</td><td>22:15</td><td>06:55</td><td>Fri, Sun</td></tr>
</tbody></table>
"""

_GLOSSARY = """
<dl>
<dt>Jitter</dt><dd>The variation in delay between packets arriving at a receiver.</dd>
<dt>Round-trip time</dt><dd>The time a packet takes to reach a host plus the time its reply
takes to come back.</dd>
<dt>MTU</dt><dd>The largest packet a link carries without splitting it, usually 1,500 bytes on
Ethernet.</dd>
<dt>Packet loss</dt><dd>The share of packets sent that never arrive.</dd>
</dl>
"""

_COMPARISON = """
<table>
<thead><tr><th>Kettle</th><th>Capacity</th><th>Power</th><th>Boil time for 1 litre</th></tr></thead>
<tbody>
<tr><td>Brenna K2</td><td>1.7 litres</td><td>3,000 W</td><td>2 min 40 s</td></tr>
<tr><td>Tolva Mini</td><td>0.8 litres</td><td>1,200 W</td><td>4 min 55 s</td></tr>
<tr><td>Orrin Steel</td><td>1.5 litres</td><td>2,200 W</td><td>3 min 30 s</td></tr>
</tbody></table>
"""

PAGES: tuple[Doc, ...] = (
    Doc(
        "bikes.test",
        "/harbor-lite",
        "Harbor Lite e-bike specifications",
        ("The Harbor Lite is a city e-bike with a mid-drive motor and a belt drive.",),
        html=_SPEC,
    ),
    Doc(
        "running.test",
        "/lakeside-10k-2025",
        "Lakeside 10K 2025 results",
        ("Cool weather and a flat course made for fast times along the lake shore this year.",),
        html=_RESULTS,
    ),
    Doc(
        "rail.test",
        "/linden-harwick",
        "Linden to Harwick train timetable",
        ("Timetable valid from May 2026; trains call at all stations unless shown otherwise.",),
        html=_TIMETABLE,
    ),
    Doc(
        "netterms.test",
        "/glossary",
        "A networking glossary",
        ("Short definitions of the terms that come up when measuring a network connection.",),
        html=_GLOSSARY,
    ),
    Doc(
        "kitchen.test",
        "/kettles-compared",
        "Three electric kettles compared",
        ("We filled each kettle with one litre of cold tap water and timed it to the boil.",),
        html=_COMPARISON,
    ),
)

QUESTIONS: tuple[Question, ...] = (
    _a("How heavy is the Harbor Lite e-bike?", (("19.4",),), "Weight 19.4 kg"),
    _a("How far can the Harbor Lite go on one charge?", (("90 km",),), "Range up to 90 km"),
    _u("How much does the Harbor Lite e-bike cost?"),
    _a(
        "What was Tom Ekwueme's time in the Lakeside 10K?",
        (("33:05",),),
        "2 Tom Ekwueme Northfield Striders 33:05",
    ),
    _a(
        "Which club does Mirela Dobos run for?",
        (("harbour ac",),),
        "1 Mirela Dobos Harbour AC 31:42",
    ),
    _u("How old is Mirela Dobos?"),
    _a(
        "When does the Coastal Express arrive in Harwick?",
        (("11:20",),),
        "Coastal Express 09:05 11:20 daily",
    ),
    _a("Which train leaves Linden at 14:30?", (("valley local",),), "Valley Local 14:30 16:02"),
    _u("How much is a ticket on the Coastal Express from Linden to Harwick?"),
    _a(
        "What is jitter in networking?",
        (("variation in delay",),),
        "The variation in delay between packets arriving at a receiver.",
    ),
    _a(
        "What is the usual MTU on Ethernet?",
        (("1,500",),),
        "The largest packet a link carries without splitting it, usually 1,500 bytes on Ethernet.",
    ),
    _u("Who coined the term jitter?"),
    _a(
        "How long does the Tolva Mini kettle take to boil a litre?",
        (("4 min 55",),),
        "Tolva Mini 0.8 litres 1,200 W 4 min 55 s",
    ),
    _a(
        "What is the power of the Orrin Steel kettle?",
        (("2,200",),),
        "Orrin Steel 1.5 litres 2,200 W 3 min 30 s",
    ),
    _u("How much does the Brenna K2 kettle weigh?"),
)
