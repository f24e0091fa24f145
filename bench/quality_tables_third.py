"""A third set of table-only questions for bench/research_quality.py (`--corpus tables-third`),
written by the engineer fixing the table rule before looking at the fixes' edge cases, and run
once as written: a bus timetable with a column per day, a product comparison with units in its
headers, a medal table, a phone plan table, a property table of alloys, and a glossary in a
definition list; with near-topic questions whose tables hold no such column or row.

Facts are invented for here, so no model knows them.
"""

from __future__ import annotations

from tests.integration.research.web import Doc

from bench.quality_corpus import Question, _a, _u

__all__ = ["PAGES", "PAYLOADS", "QUESTIONS"]

PAYLOADS: tuple[str, ...] = ()

_TIMETABLE = """
<table>
<caption>First bus from each stop</caption>
<thead><tr><th>Stop</th><th>Mon-Fri</th><th>Saturday</th><th>Sunday</th></tr></thead>
<tbody>
<tr><td>Wickham Green</td><td>06:10</td><td>07:35</td><td>08:50</td></tr>
<tr><td>Harlow Cross</td><td>06:18</td><td>07:43</td><td>08:58</td></tr>
<tr><td>Pennick Library</td><td>06:31</td><td>07:56</td><td>09:11</td></tr>
<tr><td>Southgate Interchange</td><td>06:44</td><td>08:09</td><td>09:24</td></tr>
</tbody></table>
"""

_HEADPHONES = """
<table>
<thead><tr><th>Model</th><th>Weight (g)</th><th>Battery life (h)</th><th>Driver (mm)</th>
<th>Price (USD)</th></tr></thead>
<tbody>
<tr><td>Corvel Q3</td><td>254</td><td>38</td><td>40</td><td>$179</td></tr>
<tr><td>Brisa Loop</td><td>212</td><td>52</td><td>32</td><td>$129</td></tr>
<tr><td>Anden Studio</td><td>301</td><td>24</td><td>50</td><td>$249</td></tr>
</tbody></table>
"""

_MEDALS = """
<table>
<thead><tr><th>Rank</th><th>Nation</th><th>Gold</th><th>Silver</th><th>Bronze</th>
<th>Total</th></tr></thead>
<tbody>
<tr><td>1</td><td>Varnland</td><td>14</td><td>9</td><td>11</td><td>34</td></tr>
<tr><td>2</td><td>Osterra</td><td>11</td><td>12</td><td>7</td><td>30</td></tr>
<tr><td>3</td><td>Kelmar Isles</td><td>6</td><td>5</td><td>13</td><td>24</td></tr>
<tr><td>4</td><td>Drusia</td><td>3</td><td>8</td><td>4</td><td>15</td></tr>
</tbody></table>
"""

_PLANS = """
<table>
<thead><tr><th>Plan</th><th>Monthly price</th><th>Data</th><th>Minutes</th>
<th>Contract length</th></tr></thead>
<tbody>
<tr><td>Lumo Basic</td><td>£8</td><td>5 GB</td><td>500</td><td>1 month</td></tr>
<tr><td>Lumo Plus</td><td>£15</td><td>40 GB</td><td>unlimited</td><td>12 months</td></tr>
<tr><td>Lumo Max</td><td>£24</td><td>unlimited</td><td>unlimited</td><td>24 months</td></tr>
</tbody></table>
"""

_ALLOYS = """
<table>
<thead><tr><th>Alloy</th><th>Main metals</th><th>Density (g/cm³)</th>
<th>Melting point (°C)</th><th>Tensile strength (MPa)</th></tr></thead>
<tbody>
<tr><td>Karsite</td><td>copper, tin</td><td>8.6</td><td>940</td><td>310</td></tr>
<tr><td>Velmor</td><td>aluminium, zinc</td><td>2.9</td><td>615</td><td>480</td></tr>
<tr><td>Tessin bronze</td><td>copper, aluminium</td><td>7.7</td><td>1,045</td><td>590</td></tr>
</tbody></table>
"""

_GLOSSARY = """
<dl>
<dt>Muster</dt><dd>Gathering all your pawns on one keep tile before an attack.</dd>
<dt>Sally</dt><dd>A move out of a besieged keep that ends your turn at once.</dd>
<dt>Tithe</dt><dd>The two grain tokens each player pays to the bank at the start of a
season.</dd>
</dl>
"""

PAGES: tuple[Doc, ...] = (
    Doc(
        "pennickbus.test",
        "/route-14",
        "Route 14 timetable: Wickham Green to Southgate",
        ("Route 14 runs every 20 minutes during the day on all days of the week.",),
        html=_TIMETABLE,
    ),
    Doc(
        "soundlab.test",
        "/over-ear-compared",
        "Three over-ear headphones compared",
        ("We wore each pair for a fortnight of commuting and office work.",),
        html=_HEADPHONES,
    ),
    Doc(
        "tessaly.test",
        "/medal-table",
        "Tessaly Games 2026 medal table",
        ("Twelve nations competed in nineteen sports over eleven days.",),
        html=_MEDALS,
    ),
    Doc(
        "lumo.test",
        "/plans",
        "Lumo Mobile SIM-only plans",
        ("Every plan includes texts and calls to UK numbers.",),
        html=_PLANS,
    ),
    Doc(
        "alloys.test",
        "/foundry-alloys",
        "Alloys cast at the Ebbwater foundry",
        ("The foundry pours three alloys for marine fittings and bells.",),
        html=_ALLOYS,
    ),
    Doc(
        "thornfield.test",
        "/rules/glossary",
        "Thornfield board game glossary",
        ("Terms used in the rulebook of Thornfield, a game of keeps and harvests.",),
        html=_GLOSSARY,
    ),
)

QUESTIONS: tuple[Question, ...] = (
    _a(
        "What time does the first Saturday bus leave Harlow Cross on route 14?",
        (("07:43",),),
        "Harlow Cross 06:18 07:43 08:58",
    ),
    _a(
        "When is the first Sunday route 14 bus at Pennick Library?",
        (("09:11",),),
        "Pennick Library 06:31 07:56 09:11",
    ),
    _u("How much is a single fare on route 14?"),
    _a("How much does the Brisa Loop headphone weigh?", (("212",),), "Brisa Loop 212 52 32 $129"),
    _a(
        "How long does the Anden Studio battery last?",
        (("24",),),
        "Anden Studio 301 24 50 $249",
    ),
    _a("What is the price of the Corvel Q3 headphones?", (("179",),), "Corvel Q3 254 38 40 $179"),
    _u("Does the Corvel Q3 have noise cancelling?"),
    _a(
        "How many gold medals did Osterra win at the Tessaly Games 2026?",
        (("11",),),
        "2 Osterra 11 12 7 30",
    ),
    _a(
        "Which nation won the most medals at the Tessaly Games 2026?",
        (("varnland",),),
        "1 Varnland 14 9 11 34",
    ),
    _u("How many athletes did Drusia send to the Tessaly Games 2026?"),
    _a(
        "How much data comes with the Lumo Plus plan?",
        (("40 gb",),),
        "Lumo Plus £15 40 GB unlimited 12 months",
    ),
    _a(
        "How much does the Lumo Basic plan cost per month?",
        (("£8",),),
        "Lumo Basic £8 5 GB 500 1 month",
    ),
    _u("Is roaming in Europe included in the Lumo Max plan?"),
    _a("What is the melting point of Velmor?", (("615",),), "Velmor aluminium, zinc 2.9 615 480"),
    _a("How dense is Tessin bronze?", (("7.7",),), "Tessin bronze copper, aluminium 7.7 1,045 590"),
    _u("Who first made Karsite alloy?"),
    _a(
        "What is a tithe in Thornfield?",
        (("two grain tokens",),),
        "The two grain tokens each player pays to the bank at the start of a season.",
    ),
    _u("How many players can play Thornfield?"),
)
