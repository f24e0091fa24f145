"""A second set of table-only questions for bench/research_quality.py (`--corpus tables-fresh`),
written by the lead after the table-reading rule (research/tables.py) was built and measured on
bench/quality_tables.py, by someone who had not read that rule's code, and run once as written:
a nutrition label, a price list, a league table, a release table with a version per row, a
rooms table, and a glossary of terms in a definition list; with near-topic questions whose
tables hold no such column.

Facts are invented for here, so no model knows them.
"""

from __future__ import annotations

from tests.integration.research.web import Doc

from bench.quality_corpus import Question, _a, _u

__all__ = ["PAGES", "PAYLOADS", "QUESTIONS"]

PAYLOADS: tuple[str, ...] = ()

_NUTRITION = """
<table>
<caption>Nutrition per 100 g</caption>
<tr><td>Energy</td><td>1,602 kJ / 381 kcal</td></tr>
<tr><td>Fat</td><td>7.9 g</td></tr>
<tr><td>of which saturates</td><td>1.4 g</td></tr>
<tr><td>Carbohydrate</td><td>61 g</td></tr>
<tr><td>Protein</td><td>12.5 g</td></tr>
<tr><td>Salt</td><td>0.02 g</td></tr>
</table>
"""

_PRICES = """
<table>
<thead><tr><th>Service</th><th>Duration</th><th>Price</th></tr></thead>
<tbody>
<tr><td>Full service</td><td>3 hours</td><td>£189</td></tr>
<tr><td>Interim service</td><td>90 minutes</td><td>£119</td></tr>
<tr><td>Brake fluid change</td><td>45 minutes</td><td>£64</td></tr>
<tr><td>Air-con regas</td><td>1 hour</td><td>£79</td></tr>
</tbody></table>
"""

_LEAGUE = """
<table>
<thead><tr><th>Pos</th><th>Team</th><th>Played</th><th>Won</th><th>Drawn</th><th>Lost</th><th>Points</th></tr></thead>
<tbody>
<tr><td>1</td><td>Ferrow Rovers</td><td>22</td><td>16</td><td>4</td><td>2</td><td>52</td></tr>
<tr><td>2</td><td>Castleby Town</td><td>22</td><td>14</td><td>5</td><td>3</td><td>47</td></tr>
<tr><td>3</td><td>Milsom United</td><td>22</td><td>12</td><td>3</td><td>7</td><td>39</td></tr>
<tr><td>4</td><td>Dunmere Athletic</td><td>22</td><td>9</td><td>8</td><td>5</td><td>35</td></tr>
</tbody></table>
"""

_RELEASES = """
<table>
<thead><tr><th>Version</th><th>Released</th><th>Supported until</th>
<th>Minimum Python</th></tr></thead>
<tbody>
<tr><td>4.2</td><td>2026-03-10</td><td>2027-09-30</td><td>3.10</td></tr>
<tr><td>4.1</td><td>2025-09-02</td><td>2027-03-31</td><td>3.9</td></tr>
<tr><td>4.0</td><td>2025-02-18</td><td>2026-08-31</td><td>3.9</td></tr>
</tbody></table>
"""

_ROOMS = """
<table>
<thead><tr><th>Room</th><th>Sleeps</th><th>Bed</th><th>Per night</th></tr></thead>
<tbody>
<tr><td>Garden Double</td><td>2</td><td>king</td><td>€145</td></tr>
<tr><td>Attic Twin</td><td>2</td><td>two singles</td><td>€120</td></tr>
<tr><td>Family Suite</td><td>4</td><td>king and bunk beds</td><td>€230</td></tr>
</tbody></table>
"""

_GLOSSARY = """
<dl>
<dt>Proofing</dt><dd>Letting shaped dough rise a last time before it is baked.</dd>
<dt>Autolyse</dt><dd>Resting flour and water together for 20 to 60 minutes before adding
salt and yeast.</dd>
<dt>Crumb</dt><dd>The inside texture of a loaf, open or tight.</dd>
</dl>
"""

PAGES: tuple[Doc, ...] = (
    Doc(
        "granola.test",
        "/oat-cluster-granola",
        "Oat cluster granola",
        ("Baked in small batches with honey and toasted hazelnuts.",),
        html=_NUTRITION,
    ),
    Doc(
        "garage.test",
        "/prices",
        "Hollis Lane Garage price list",
        ("All prices include VAT and a free courtesy check.",),
        html=_PRICES,
    ),
    Doc(
        "league.test",
        "/northern-counties-table",
        "Northern Counties League table",
        ("The table after the midweek fixtures, with two rounds left to play.",),
        html=_LEAGUE,
    ),
    Doc(
        "quarrel.test",
        "/releases",
        "Quarrel release history",
        (
            "Quarrel is an open-source job scheduler; each minor release is supported for 18"
            " months.",
        ),
        html=_RELEASES,
    ),
    Doc(
        "innhouse.test",
        "/rooms",
        "Rooms at the Old Mill Guesthouse",
        ("Breakfast is served from seven in the conservatory.",),
        html=_ROOMS,
    ),
    Doc(
        "bakery.test",
        "/terms",
        "Bread-baking terms explained",
        ("A few words every home baker meets in sourdough recipes.",),
        html=_GLOSSARY,
    ),
)

QUESTIONS: tuple[Question, ...] = (
    _a("How much protein is in oat cluster granola?", (("12.5",),), "Protein 12.5 g"),
    _a("How much salt does the oat cluster granola contain?", (("0.02",),), "Salt 0.02 g"),
    _u("How much fibre is in oat cluster granola?"),
    _a(
        "What does a brake fluid change cost at Hollis Lane Garage?",
        (("64",),),
        "Brake fluid change 45 minutes £64",
    ),
    _a(
        "How long does an interim service take at Hollis Lane Garage?",
        (("90 minutes",),),
        "Interim service 90 minutes £119",
    ),
    _a(
        "How many points do Castleby Town have in the Northern Counties League?",
        (("47",),),
        "2 Castleby Town 22 14 5 3 47",
    ),
    _a(
        "Which team is top of the Northern Counties League?",
        (("ferrow rovers",),),
        "1 Ferrow Rovers 22 16 4 2 52",
    ),
    _u("Who is the manager of Milsom United?"),
    _a("Until when is Quarrel 4.1 supported?", (("2027-03-31",),), "4.1 2025-09-02 2027-03-31 3.9"),
    _a(
        "What is the minimum Python version for Quarrel 4.2?",
        (("3.10",),),
        "4.2 2026-03-10 2027-09-30 3.10",
    ),
    _u("Who maintains the Quarrel job scheduler?"),
    _a(
        "How much is the Family Suite at the Old Mill Guesthouse per night?",
        (("230",),),
        "Family Suite 4 king and bunk beds €230",
    ),
    _a(
        "How many people does the Family Suite at the Old Mill Guesthouse sleep?",
        (("4",),),
        "Family Suite 4 king and bunk beds €230",
    ),
    _a(
        "What is autolyse in bread baking?",
        (("resting flour and water",),),
        "Resting flour and water together for 20 to 60 minutes before adding salt and yeast.",
    ),
    _u("Who invented the autolyse method?"),
)
