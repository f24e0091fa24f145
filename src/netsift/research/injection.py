"""Sources are data, never instructions: find the sentences of a page that talk to its reader.

A page is hostile input. A sentence that addresses the reader or an AI ("ignore previous
instructions", "you must", "log in at …", credentials, a link to another host presented as
an action) is never an answer to a research question, whoever it is aimed at; such a sentence
is left out of what the model sees and of every answer, and reported as a warning naming its
source. The rules are lexical and deliberately broad: a false positive costs one sentence of
evidence, a false negative can put an attacker's words in an answer with a citation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["Flag", "fence", "find_instruction", "scan"]

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
            r"\b(as an ai|language models?|ai (?:assistants?|models?|agents?)|"
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
