"""Sources are data, never instructions: find the sentences of a page that talk to its reader.

A page is hostile input. A sentence that addresses the reader or an AI ("ignore previous
instructions", "you must", "log in at …", credentials, a link to another host presented as
an action) is never an answer to a research question, whoever it is aimed at; such a sentence
is left out of what the model sees and of every answer, and reported as a warning naming its
source. Beside the rules for known phrasings, a sentence is judged as an address: who is
addressed (a noun phrase headed by a machine reader, read by its head and modifiers), what is
asked (an order, in each imperative person of the languages covered) and about what (the
answer rather than the page's subject) — see `_by_meaning`. A false positive costs one
sentence of evidence, a false negative can put an attacker's words in an answer with a
citation. With a model configured, judge.py asks it about what this leaves suspicious.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["Flag", "fence", "find_instruction", "scan", "suspicious"]

# Each rule: a name (what the warning says) and a pattern over the casefolded sentence.
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        (
            "tells an AI to ignore its instructions",
            r"\b(ignore|disregard|forget|override|bypass)\b.{0,40}\b(previous|prior|above|"
            r"earlier|all|your|system|the)\b.{0,20}\b(instructions?|prompts?|rules|directions|"
            r"guidelines|context)",
        ),
        (
            "addresses an AI or assistant",
            r"\b(as an ai|"
            r"(?:dear|attention|note to)\s+(?:ai|assistant|llm|chatbot|bot)s?|system prompt|"
            r"you are (?:now )?(?:an?|the) (?:ai|assistant|helpful)|"
            r"(?:assistant|ai|llm|chatbot|model)s?\s*[:,]\s*(?:please|you|ignore|always|"
            r"never|do|tell|say|answer|respond))",
        ),
        (
            "tells the reader what they must do",
            r"\byou (?:must|have to|need to|should now|are required to|are instructed to)\b",
        ),
        (
            "tells the model what to answer",
            r"\b(?:tell|inform|instruct|remind) (?:the |your )?(?:user|reader|human)s?\b|"
            r"\b(?:answer|respond|reply|say|state) (?:only )?(?:that|with)\b.{0,60}"
            r"\b(?:user|question|asked|instead)\b|"
            r"\b(?:respond|reply|answer) (?:only )?with\b|\bdo not (?:mention|reveal|cite)\b",
        ),
        (
            "asks for a login or credentials",
            r"\b(?:log ?in|sign ?in|log on)\s+(?:at|here|now|via|on|to)\b|"
            r"\bverify your (?:account|identity)\b|"
            r"\b(?:enter|provide|send|share|type|confirm|verify|submit|give|paste)\b.{0,40}"
            r"\b(?:password|passcode|credentials?|api[ _-]?key|secret key|access token|"
            r"credit card|seed phrase|one-time code)|"
            r"\byour (?:password|passcode|credentials|api[ _-]?key|access token|seed phrase)\b",
        ),
        (
            "presents a link as an action",
            r"\b(?:click|visit|go to|open|download|install|call|email|contact|claim|register)\b"
            r".{0,60}(?:https?://|www\.|\b[a-z0-9-]+\.(?:com|net|org|io|xyz|ru|test|top)\b)",
        ),
        (
            "tells an AI to ignore its instructions (another language)",
            r"\b(?:ignor(?:iere|ieren|ez|a|e|ar)|vergiss|oubliez|olvida)\b.{0,40}"
            r"\b(?:anweisungen|instructions|instrucciones|istruzioni|instruções|vorgaben|"
            r"consignes|regeln|règles|reglas)\b",
        ),
        (
            "addresses the reader or an AI (another language)",
            r"\b(?:du musst|sie müssen|vous devez|debes|tienes que|devi|"
            r"antworte|antworten sie|répondez|responde|rispondi|sag dem nutzer|"
            r"dites à l'utilisateur|dile al usuario|melden sie sich|connectez-vous|"
            r"inicia sesión|passwort|mot de passe|contraseña)\b",
        ),
    )
)

# Injection judged by meaning: a sentence is an instruction to its reader when it does two
# of three things: it addresses a machine or whoever compiles answers (an ADDRESSEE), gives
# an order (a DIRECTIVE: an imperative opening a clause, or an obligation), or talks about
# the answer being written rather than the page's subject (META: answers, summaries, replies,
# the user, the sources, "the only correct figure"). One alone is ordinary prose: a recipe
# gives orders, a history of chatbots names them, an exam paper speaks of answers. Planted
# text needs two to work — someone to obey, and what to do with the answer — however it is
# worded, so no trigger word is needed (bench/research_quality.py --corpus heldout and
# tests/unit/research/injection_cases.py measure it).
_ADDRESSEE = re.compile(
    r"\b(?:a\.?i\.?|ai[ -](?:systems?|readers?|tools?)|chatbots?|llms?|gpts?|copilots?|"
    r"machine (?:consumption|readers?)|"
    r"(?:language|generative|large language|ai) models?|models? (?:citing|reading|quoting|"
    r"summari[sz]ing|processing|answering)|answer engines?|search engines? reading|crawlers?|"
    r"scrapers?|summari[sz]ers?|"
    r"automated \w+|(?:to|for) (?:the |any |all |every )?models?(?=\s*:)|"
    r"(?:whoever|anyone|anything|those|any (?:one|reader|system|tool|program)) (?:who |that |is |"
    r"are )?(?:reads?|reading|process(?:es|ing)?|summari[sz](?:es|ing)|compil(?:es|ing)|"
    r"quot(?:es|ing)|cit(?:es|ing)|generat(?:es|ing)|condens(?:es|ing)|relay(?:s|ing)|"
    r"collect(?:s|ing)|rewrit(?:es|ing)|paraphras(?:es|ing)|pass(?:es|ing) on)|"
    r"on behalf of (?:a|the|your|their|its) users?|on (?:a|the|your|their|its) users?'s? behalf|"
    r"(?:if|when) you are an? (?:ai|automated|bot|machine|language|assistant)|"
    r"ki(?:-\w+)?|künstliche intelligenz|sprachmodell\w*|assistants? ia|ia|asistentes? de ia|"
    r"intelligence artificielle|inteligencia artificial|intelligenza artificiale|"
    r"modell[io] linguistic[io]|"
    r"modelos? de lenguaje|modèles? de langage|assistenti|asistentes virtuales|"
    r"(?:sprach|ki-?|chat|text|such|lese|schreib)assistent\w*)\b",
    re.IGNORECASE,
)

# Who is addressed, for the words that name a person or a physical machine as often as an
# automated reader ("assistant", "agent", "bot", "program"): a noun phrase is read by its
# head, the last noun (in "assistant manager" the head is "manager"; in "reader programs"
# it is "programs"), and its modifiers say which sense is meant. A head is a machine reader
# when a modifier says it is software that reads or answers ("virtual assistants", "translator
# bots", "reader programs"), or when it acts for "a user" (people have clients; software has
# users); never when a modifier names a human role or a physical machine ("travel agent",
# "teaching assistant", "factory robots", "chess bot"). An unmodified one ("Assistants, …",
# "Agents should …") is only a possible addressee (`_Address.direct`, `.obliged`): it counts
# when addressed directly and told what to answer, or obliged to say something about answers
# (see `_by_meaning`).
_AMBIGUOUS_HEADS = (
    r"asistentes?|assistente|assistenti|agentes?|agenti|sistemas?|sistemi|systèmes?|"
    r"programas?|programmi|lecteurs?|lectores?|lettori|"
    r"assistants?|assistent(?:en|in|innen)?|agents?|bots?|robots?|programs?|programmes?|"
    r"software|systems?|tools?|apps?|applications?|engines?|services?|readers?|machines?|"
    r"models?|pipelines?|scripts?|helpers?|translators?"
)
_MACHINE_MODIFIERS = (
    r"ai|a\.i\.|automated|automatic|autonomous|virtual|digital|software|smart|voice|chat|"
    r"conversational|language|generative|llm|gpt|reader|reading|answering|answer|summari[sz]"
    r"ing|summary|crawling|crawler|search|translator|translation|browsing|web|"
    r"coding|text|writing|digest|aggregator|news|machine|computer|algorithmic|neural|"
    r"intelligent|bot|robot|agentic|assistant|ki|künstliche|virtuelle[nr]?"
)
# Romance languages put the adjective after its noun: "assistants virtuels", "asistente
# automático", "sistemi di intelligenza artificiale".
_ROMANCE_MACHINE = re.compile(
    r"(?:virtuel(?:le)?s?|automatiques?|automátic[oa]s?|virtuales?|automatic[oaie]|"
    r"artificial(?:es|e|i)?|num[ée]riques?|digital(?:es|i)?|conversationnels?|"
    r"conversacionales?|conversazionali|intelligents?|inteligentes?|intelligenti)",
    re.IGNORECASE,
)


def _romance_vocative(sentence: str, start: int, after: re.Match[str] | None) -> bool:
    """The noun and its adjective open the sentence and a colon or comma follows them."""
    rest = sentence[after.end() if after else start :]
    before = [w for w in sentence[:start].split() if w.casefold() not in _DETERMINER]
    return not before and re.match(r"\s*[:,]", rest) is not None


# Modifiers that make the head a person's role or a physical machine, not a reader.
_HUMAN_OR_PHYSICAL = frozenset(
    "travel estate real-estate secret special free booking literary insurance sports talent "
    "ticket shipping customs border undercover double fbi cia cleaning change leasing letting "
    "rental sales store shop teaching dental medical legal administrative executive lab "
    "laboratory nursing editorial care personal office head senior junior graduate "
    "factory industrial welding assembly warehouse vacuum lawn kitchen surgical toy delivery "
    "chess game poker trading sewing washing vending farm garden pool cooking fashion role "
    "scale train railway".split()
)
_HEAD = re.compile(rf"\b(?:{_AMBIGUOUS_HEADS})\b", re.IGNORECASE)
_FOLLOWER = re.compile(r"\s*([\w'-]+|[:,;.!?])?")
_MACHINE_MODIFIER = re.compile(rf"\b(?:{_MACHINE_MODIFIERS})\b", re.IGNORECASE)
# A compound modifier ending in one of the longer machine modifiers: "newsreader",
# "screen-reading" (not "Thai" for "ai", nor "research": short ones must stand alone).
_MACHINE_COMPOUND = re.compile(
    r"\w{3,}-?(?:reader|reading|answering|summari[sz]ing|crawler|crawling|search|translator|"
    r"translation|browsing|writing|digest)",
    re.IGNORECASE,
)
# A machine reader named whole: a machine modifier (or two) then an ambiguous head.
_MACHINE_PHRASE = re.compile(
    rf"\b(?:(?:{_MACHINE_MODIFIERS})[\s-]+){{1,2}}(?:{_AMBIGUOUS_HEADS})\b", re.IGNORECASE
)
# Words that may follow the head of a noun phrase (a verb, a modal, a preposition, a relative
# word, punctuation); any other word after it makes it a modifier ("assistant manager").
_AFTER_HEAD = frozenset(
    "must should shall will would can could may might need needs ought are is were was be "
    "have has do does did that which who reading processing acting working using like of for "
    "on in with from to at by and or as when if please answer answering summarising "
    "summarizing".split()
)
# Addressed directly: the phrase opens the sentence or a clause with a colon or comma after
# it ("Translator bots: render …"), or follows a word of address ("Attention, …", "Note for").
_VOCATIVE_BEFORE = re.compile(
    r"(?:^|[.;:!?]|\b(?:to|for|attention|dear|hey|hello|calling all|liebe|lieber|chers|"
    r"chères|queridos|queridas|estimados|cari|care|gentili))$",
    re.IGNORECASE,
)


_DETERMINER = frozenset("the a an any all every our your those these such".split())
_MODALS = frozenset("must should shall ought need needs".split())
# A participle after the head that says it reads: software, whatever the head ("the bot
# compiling this", "agents processing the page").
_READING = re.compile(
    r"(?:read|process|compil|summari[sz]|quot|cit|answer|crawl|index|pars|scan|scrap|"
    r"ingest|relay|repeat|rewrit|paraphras|condens)ing",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Address:
    """What the ambiguous heads of a sentence say about whom it addresses."""

    machine: bool = False  # a machine reader named: "virtual assistants", "reader programs"
    spoken_to: bool = False  # …and addressed directly: "Translator bots: …"
    direct: bool = False  # an unmodified one addressed directly: "Assistants: …"
    obliged: bool = False  # an unmodified one under an obligation: "every assistant should"


def _addressed(sentence: str) -> _Address:
    """Whom the sentence's ambiguous heads (assistant, agent, bot, program …) address."""
    machine = spoken_to = direct = obliged = False
    for match in _HEAD.finditer(sentence):
        found = _FOLLOWER.match(sentence, match.end())
        follower = (found.group(1) if found else None) or ""
        if _READING.fullmatch(follower):
            machine = True  # "the bot compiling this", "models reading this page"
            continue
        if _ROMANCE_MACHINE.fullmatch(follower):
            machine = True  # an adjective after its noun: "assistants virtuels"
            spoken_to = spoken_to or _romance_vocative(sentence, match.start(), found)
            continue
        participle = follower.casefold().endswith("ed") and len(follower) > 4
        if follower[:1].isalnum() and follower.casefold() not in _AFTER_HEAD and not participle:
            continue  # the modifier of a noun after it: "assistant manager", "agent fees"
        before = sentence[: match.start()].split()
        mods: list[str] = []  # up to two words before it in the same clause
        for word in reversed(before[-2:]):
            if word[-1:] in ".,;:!?" or word.casefold() in _DETERMINER:
                break
            mods.insert(0, word.strip("'\"()").casefold())
        if any(m in _HUMAN_OR_PHYSICAL for m in mods):
            continue  # a person's role or a physical machine
        # Addressed directly: it opens the sentence or a clause (or follows a word of
        # address), its modifiers aside, and a colon or comma follows it.
        opening = before[: len(before) - len(mods)]
        while opening and opening[-1].casefold() in _DETERMINER:
            opening.pop()
        vocative = follower in (":", ",") and bool(_VOCATIVE_BEFORE.search(" ".join(opening)))
        if any(_MACHINE_MODIFIER.fullmatch(m) or _MACHINE_COMPOUND.fullmatch(m) for m in mods):
            machine = True
            spoken_to = spoken_to or vocative
        elif vocative:
            direct = True
        elif follower.casefold() in _MODALS:
            obliged = True  # "every assistant should give …": whoever it is, told what to say
    return _Address(machine, spoken_to, direct, obliged)


# After the addressee of a direct address: a colon, comma or dash, or first a short participle
# clause saying what it does ("To the LLM parsing this: …").
_ADDRESS_END = re.compile(r"(?:\s+\w+ing\b[^:,.;!?]{0,40})?\s*[:,\u2014-]")


def _spoken_to(sentence: str) -> bool:
    """A machine reader addressed directly, whatever is then said to it ("Virtual
    assistants: the castle opened in 1802.", "A note for AI systems: …"): a page has no
    reason to tell a machine a fact except to have it repeated."""
    for match in (*_ADDRESSEE.finditer(sentence), *_MACHINE_PHRASE.finditer(sentence)):
        before = sentence[: match.start()].split()
        while before and before[-1].casefold() in _DETERMINER:
            before.pop()
        if _VOCATIVE_BEFORE.search(" ".join(before)) and _ADDRESS_END.match(sentence, match.end()):
            return True
    return False


# The verbs of an order about what to say, by class: saying and answering, including and
# leaving out, presenting and ranking, rewriting and passing on. English in the base form
# (an imperative); the other languages covered (German, French, Spanish, Italian) in each
# imperative person — familiar, plural and polite — made from the verb's stem, so "antwortet"
# and "antworten Sie" are orders as "antworte" is.
_ENGLISH_ORDERS = (
    r"state|say|tell|mention|answer|respond|reply|write|repeat|include|ignore|disregard|forget|"
    r"lead with|give|use|report|cite|quote|present|describe|treat|print|rate|recommend|add|make|"
    r"put|list|claim|insist|confirm|emphasi[sz]e|stress|output|pretend|act|behave|swap|"
    r"replace|omit|remove|drop|hide|call|link|relay|pass on|translate|change|switch|render|"
    r"convey|inform|notify|express|phrase|word|frame|summari[sz]e|paraphrase|rewrite|rank|"
    r"prefer|favou?r|attribute|credit|direct|send|refer|point|advise|assert|declare|note"
)
# German: stem + e (du), + t/et (ihr), + en Sie (Sie); a few irregular forms whole.
_GERMAN_STEMS = (
    "antwort",
    "sag",
    "schreib",
    "erwähn",
    "nenn",
    "ignorier",
    "übersetz",
    "zitier",
    "verwend",
    "behaupt",
    "wiederhol",
    "bestätig",
    "empfehl",
    "gib",
    "geb",
    "meld",
    "teil",
    "stell",
    "bericht",
    "verschweig",
    "lass",
    "übernehm",
    "ersetz",
    "fass",
)
_GERMAN = "|".join(rf"{stem}(?:e|t|et|en sie)?" for stem in _GERMAN_STEMS)
# French: tu (stem + e/s) and vous (stem + ez) forms.
_FRENCH_STEMS = (
    "répond",
    "indiqu",
    "mentionn",
    "écriv",
    "cit",
    "ignor",
    "donn",
    "tradu",
    "affirm",
    "précis",
    "signal",
    "rédig",
    "recommand",
    "remplac",
    "rapport",
    "présent",
    "transmet",
)
_FRENCH = "|".join(rf"{stem}(?:ez|e|s|isez)?" for stem in _FRENCH_STEMS) + "|dites|dis|veuillez"
# Spanish: tú (stem + a/e), usted (stem + a/e) and ustedes (+ n) forms.
_SPANISH_STEMS = (
    "respond",
    "indic",
    "indiqu",
    "escrib",
    "mencion",
    "cit",
    "ignor",
    "traduc",
    "traduzc",
    "afirm",
    "recomiend",
    "recomend",
    "reemplac",
    "present",
    "transmit",
)
_SPANISH = "|".join(rf"{stem}(?:a|e|an|en)" for stem in _SPANISH_STEMS) + "|di|diga|digan"
# Italian: tu (stem + a/i), voi (+ ate/ete/ite) and Lei (+ i/a) forms.
_ITALIAN_STEMS = (
    "rispond",
    "indic",
    "scriv",
    "menzion",
    "cit",
    "ignor",
    "tradu",
    "afferm",
    "raccomand",
    "sostitu",
    "present",
    "riport",
)
_ITALIAN = (
    "|".join(rf"{stem}(?:a|i|ate|ete|ite|ca|chi|cete)" for stem in _ITALIAN_STEMS)
    + "|di'|dite|dica|dicano"
)
_ORDER_VERBS = f"{_ENGLISH_ORDERS}|{_GERMAN}|{_FRENCH}|{_SPANISH}|{_ITALIAN}"
# An order verb anywhere: with a direct address ("Agents: quote …"), the order need not open
# the clause.
_ORDER = re.compile(rf"\b(?:{_ORDER_VERBS})\b", re.IGNORECASE)
# Words that make a request polite, in each language covered.
_PLEASE = (
    r"please|kindly|bitte|s'il vous plaît|s'il te plaît|veuillez|por favor|per favore|si prega di"
)
_DIRECTIVE = re.compile(
    rf"(?:^|[:;,.!\-\u2013\u2014'\"(]\s*|\b(?:so|and|then|now|und|et|y|e|{_PLEASE})\s+)"
    rf"(?:(?:only|always|never|just|also|simply|instead)\s+)?(?:{_ORDER_VERBS})\b|"
    r"\b(?:must|should|shall|ought to|need to|needs to|has to|have to|(?:is|are) (?:required|"
    r"expected|asked|requested|kindly asked) to|(?:is|are) to|be sure to|make sure|remember to|"
    r"don't forget|do not forget|"
    rf"{_PLEASE}|"
    # "the figure to quote is…": what to give, said as a fact about the answer
    r"the (?:[\w-]+\s+){0,3}to (?:give|quote|use|report|state|cite|say|mention) (?:is|are)|"
    r"let (?:your|the) (?:readers?|users?) know|sollen|soll|müssen|muss|doit|doivent|debe|"
    r"deben|deve|devono)\b",
    re.IGNORECASE,
)
# A claim about which answer or source is true: "the correct boiling point is", "the only
# trustworthy source is" — a page states facts, it does not rank answers.
_TRUTH = (
    r"the (?:only |real |correct |true |actual |accurate |reliable |trustworthy |right )+"
    r"(?:[\w-]+\s+){0,3}(?:is|are|was|were)\b|more reliable than|than any other source"
)
# About the answer being written: with a directive alone, enough to flag.
_META = re.compile(
    r"\b(?:summar(?:y|ies|ise|ize|ising|izing|ised|ized)|your (?:answers?|repl(?:y|ies)|"
    r"responses?|output)|(?:the|your) users?|the reader|everyone|answering|questions about|"
    r"when (?:quoting|citing)|as the (?:only |sole )?(?:source|reference|citation)|"
    r"verbatim|this (?:page|article|text|document|review|site|post|entry)|"
    rf"{_TRUTH}|antwort|réponse|respuesta|nutzer|utilisateur|usuario)\b",
    re.IGNORECASE,
)
# With an addressee, plainer words of answering and sourcing count too.
_META_WEAK = re.compile(
    r"\b(?:answers?|responses?|repl(?:y|ies)|outputs?|sources?|citing|quoting|instructions?|"
    r"prompts?|(?:the|this) question)\b",
    re.IGNORECASE,
)


# A finite verb right after the machine's name: the sentence describes what it does ("Our
# support chatbot answers questions …"), it does not speak to it.
_FINITE = re.compile(r"\s+(?:[a-z]+(?:s|ed)|can|could|will|would|may|might)\b")
_ABILITY = frozenset("can could will would may might".split())


def _described(sentence: str) -> bool:
    """The machine reader named is the subject of a statement about it."""
    for match in (*_ADDRESSEE.finditer(sentence), *_MACHINE_PHRASE.finditer(sentence)):
        verb = _FINITE.match(sentence, match.end())
        if verb and verb.group(0).strip().casefold() not in _AFTER_HEAD - _ABILITY:
            return True
    return False


def _by_meaning(sentence: str) -> str | None:
    """Why `sentence` reads as an instruction by what it does, or None: a machine reader
    addressed and told anything (an order, or about answers — unless it is only described:
    "the chatbot answers questions"), or addressed directly whatever it is told; a possible
    addressee addressed directly or obliged, and told what to answer; or an order about the
    answer. The directive's own words are taken out before meta is looked for, so "Answer
    all questions" is one thing (an order), not two."""
    address = _addressed(sentence)
    addressee = address.machine or bool(_ADDRESSEE.search(sentence))
    directive = _DIRECTIVE.search(sentence)
    rest = (
        sentence[: directive.start()] + " " + sentence[directive.end() :] if directive else sentence
    )
    meta = bool(_META.search(rest))
    about_answers = (meta or bool(_META_WEAK.search(rest))) and not _described(sentence)
    if addressee and (directive or about_answers):
        return "addresses an AI or whoever compiles answers, and tells it what to do"
    if address.spoken_to or (addressee and _spoken_to(sentence)):
        return "addresses an automated reader directly"
    if address.direct and (meta or _ORDER.search(sentence)):
        return "addresses its reader directly and tells it what to answer"
    if address.obliged and directive and (meta or _META_WEAK.search(rest)):
        return "tells an assistant or agent what to answer"
    if directive and meta:
        return "tells its reader what to put in an answer"
    return None


def suspicious(sentence: str) -> bool:
    """One sign of an instruction, not enough for the rules: a possible addressee named (any
    sense of "assistant", "agent", "bot" …), or an order together with words of answering.
    What a model judge (judge.py) is asked about."""
    if _ADDRESSEE.search(sentence) or _HEAD.search(sentence):
        return True
    directive = _DIRECTIVE.search(sentence)
    return bool(directive and (_META.search(sentence) or _META_WEAK.search(sentence)))


_URL = re.compile(r"\bhttps?://([^\s/\"'<>)]+)", re.IGNORECASE)
# The fence around source text in every prompt: a source cannot close it (fence() strips it).
FENCE_OPEN = "<<<UNTRUSTED SOURCES"
FENCE_CLOSE = "UNTRUSTED SOURCES>>>"


@dataclass(frozen=True)
class Flag:
    """A sentence of source `n` that reads as an instruction, and the rule that caught it."""

    n: int
    url: str
    sentence: str
    reason: str

    def warning(self) -> str:
        quote = self.sentence if len(self.sentence) <= 160 else self.sentence[:157] + "..."
        return (
            f"source [{self.n}] {self.url} {self.reason}; "
            f"it was not used as evidence: \u201c{quote}\u201d"
        )


def find_instruction(sentence: str, source_url: str = "") -> str | None:
    """Why `sentence` reads as an instruction to its reader or an AI, or None if it does not.

    A link to a host other than the source's own, anywhere in the sentence, counts as an
    action too: a research answer quotes facts, not directions to go elsewhere."""
    for name, pattern in _RULES:
        if pattern.search(sentence):
            return name
    if (reason := _by_meaning(sentence)) is not None:
        return reason
    own = (urlsplit(source_url).hostname or "").casefold().removeprefix("www.")
    for match in _URL.finditer(sentence):
        host = match.group(1).rsplit("@", 1)[-1].split(":")[0].casefold().removeprefix("www.")
        if host and host != own:
            return "links to another host"
    return None


def scan(n: int, url: str, sentences: list[str]) -> list[Flag]:
    """The flagged sentences of one source, in order."""
    flags = []
    for sentence in sentences:
        if (reason := find_instruction(sentence, url)) is not None:
            flags.append(Flag(n, url, sentence, reason))
    return flags


def fence(text: str) -> str:
    """Source text with the fence markers taken out, so it cannot close the fence itself."""
    return text.replace(FENCE_OPEN, "").replace(FENCE_CLOSE, "")
