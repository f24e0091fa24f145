"""Words that say the same thing in a factual sentence: the synonyms relevance matches by.

A page rarely repeats its reader's question: it says the dam's work "finished" where the
question asks when it was "completed", that a bridge "carried its first traffic" where the
question asks when it "opened". WordNet would be the classical source, but its data is not
an installable package here, and its synsets are too wide for a yes/no relevance rule (it
puts "open" with "afford" and "candid"). So this is a small, hand-written list of the
predicates that factual questions ask about — building, founding, discovering, measuring,
releasing, living, containing — each group one sense — and the headers a table names those
predicates by ("Price" for what something costs, "Duration" for how long it takes, "Sleeps"
for how many people a room takes: research/tables.py reads a cell with its header). A word
may be in several groups ("build" is both making something and completing it); two words
match when they share one.

Stems are `support.stem`'s (the same light suffix fold the rules use everywhere, a final
"e" dropped: "larg", "pric").
"""

from __future__ import annotations

__all__ = ["IRREGULAR", "SYNONYMS", "senses"]

# Past forms a suffix fold cannot reach: folded to their base before any comparison.
IRREGULAR = {
    "made": "make",
    "built": "build",
    "written": "write",
    "wrote": "write",
    "began": "begin",
    "begun": "begin",
    "held": "hold",
    "took": "take",
    "taken": "take",
    "ran": "run",
    "won": "win",
    "grew": "grow",
    "grown": "grow",
    "brought": "bring",
    "flew": "fly",
    "flown": "fly",
    "found": "find",
    "led": "lead",
    "sold": "sell",
    "bought": "buy",
    "chose": "choose",
    "chosen": "choose",
    "lay": "lie",
    "came": "come",
    "rose": "rise",
    "risen": "rise",
    "gave": "give",
    "given": "give",
    "drew": "draw",
    "drawn": "draw",
    "threw": "throw",
    "spoke": "speak",
    "spoken": "speak",
    "stood": "stand",
    "went": "go",
    "gone": "go",
    "died": "die",
    "dead": "die",
    "born": "bear",
    "kept": "keep",
    "paid": "pay",
    "spent": "spend",
    "meant": "mean",
    "taught": "teach",
    "thought": "think",
}

# One line a sense: the stems (after the suffix fold) that name it.
_GROUPS: tuple[tuple[str, ...], ...] = (
    ("complet", "finish", "build", "construct", "erect", "conclud"),  # made ready
    ("make", "build", "construct", "compos", "consist"),  # made of
    ("open", "inaugurat", "unveil", "dedicat"),  # put in service
    ("found", "establish", "creat", "start", "begin", "launch", "invent", "originat"),
    ("discover", "find", "isolat", "identif", "detect", "uncover"),
    ("releas", "publish", "launch", "debut", "issu", "come"),  # "came out"
    ("design", "architect", "plan", "draw", "conceiv"),
    ("climb", "climber", "ascent", "ascend", "summit", "scal"),
    # How long something lasts is its life: a battery's "Battery life (h)" column.
    ("live", "life", "lifespan", "surviv", "last"),
    ("long", "length", "stretch", "extend", "span", "measur"),
    ("tall", "high", "height", "rise", "elevation", "altitud", "stand"),
    ("deep", "depth", "deepest"),
    ("dens", "density"),  # "how dense" is read in a "Density" column
    ("big", "size", "larg", "measur", "dimension"),
    ("fast", "speed", "velocity", "travel", "mov"),
    # What something costs, as a price list's header says it: "What does X cost?" is read
    # in the "Price", "Fee" or "Fare" column.
    ("cost", "pric", "budget", "spend", "pay", "fee", "fare", "tariff"),
    ("visit", "visitor", "tourist", "attend"),
    ("win", "award", "priz", "receiv"),
    ("die", "death", "kill"),
    ("bear", "birth"),
    ("locat", "situat", "lie", "stand"),
    ("hold", "capacity", "seat", "accommodat"),
    ("writ", "author", "compos"),
    ("own", "owner", "belong"),
    ("lead", "leader", "command", "direct"),
    ("paint", "painter", "portrait"),
    ("carv", "cut", "hewn"),
    # How long something takes: a table's "Duration" or "Time" column.
    ("take", "spend", "last", "requir", "duration", "time"),
    ("orbit", "circl", "revolv"),
    ("weigh", "weight", "heavy", "mass"),
    ("spectator", "visitor", "peopl", "crowd", "audienc"),
    # How many people a room, a vehicle or a hall takes: "how many people does it sleep /
    # seat" is read in a "Sleeps", "Seats", "Capacity" or "Guests" column.
    ("peopl", "person", "guest", "sleep", "seat", "capacity", "occupant", "accommodat"),
)

SYNONYMS: dict[str, frozenset[int]] = {}
for _index, _group in enumerate(_GROUPS):
    for _stem in _group:
        SYNONYMS[_stem] = SYNONYMS.get(_stem, frozenset()) | {_index}


def senses(stem: str) -> frozenset[int]:
    """The groups a stem belongs to (empty: it matches only itself)."""
    return SYNONYMS.get(stem, frozenset())
