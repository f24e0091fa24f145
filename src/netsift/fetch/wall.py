"""Walls: a page that stands between the reader and the page asked for, named, never read.

A bot challenge ("Just a moment…"), a captcha, a login wall, a paywall stub, an "enable
JavaScript" page or a bot block comes back as a page like any other; read as one it becomes
the answer (the first complaint about every fetch tool). The fetch answers `blocked_by_site`
instead, the kind of wall in `details` (`errors.BlockedBySite`).

A wall is recognised by what gives it away, strongest first:

- the response: a header the blocking service sets (`cf-mitigated: challenge`, AWS WAF's
  `x-amzn-waf-action`), checked for any status (`response_wall`);
- the page's own markers: a title or a script only challenge pages carry (Cloudflare's
  challenge platform, DDoS-Guard, Vercel's checkpoint, DataDome, PerimeterX);
- the page's words ("verify you are human", "subscribe to continue reading", "sign in to
  continue").

A page's markers and words count only when its reading is too thin to be the page
(`THIN_WORDS`): an article about captchas, a story with "Sign in" in its menu, or a paywalled
article that serves its whole text reads hundreds of words.

A challenge or "enable JavaScript" page is one a real browser passes by running its script
(`Wall.passable`): with the browser extra the fetch renders it first (`fetcher.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = ["MARKERS", "THIN_WORDS", "Wall", "WallKind", "page_wall", "response_wall"]

WallKind = Literal["challenge", "captcha", "login", "paywall", "javascript", "bot_block"]

THIN_WORDS = 120  # a reading under this many words may be a wall's message; a page is longer
SCAN_CHARS = 262_144  # of the HTML searched for markers: walls are small, their markers early


@dataclass(frozen=True)
class Wall:
    """What the site put in the page's place: the kind, what gave it away, and whether a
    browser running the page's script gets past it."""

    kind: WallKind
    reason: str
    passable: bool = False


@dataclass(frozen=True)
class _Marker:
    """One sign of a wall, and where it is looked for: a title or the page's words by one
    case-insensitive pattern; its markup by the pattern's alternatives, each searched alone
    in the markup's bytes lowercased (see `_markup_patterns`)."""

    kind: WallKind
    where: Literal["title", "markup", "words"]
    pattern: re.Pattern[str]
    reason: str
    passable: bool = False
    in_markup: tuple[re.Pattern[bytes], ...] = ()

    def search(self, title: str, markup: bytes, words: Callable[[], str]) -> bool:
        if self.where == "markup":
            return any(p.search(markup) for p in self.in_markup)
        return bool(self.pattern.search(title if self.where == "title" else words()))


def _m(
    kind: WallKind,
    where: Literal["title", "markup", "words"],
    pattern: str,
    reason: str,
    *,
    passable: bool = False,
) -> _Marker:
    compiled = re.compile(pattern, re.IGNORECASE)
    in_markup = _markup_patterns(pattern) if where == "markup" else ()
    return _Marker(kind, where, compiled, reason, passable, in_markup)


def _markup_patterns(pattern: str) -> tuple[re.Pattern[bytes], ...]:
    """`pattern`'s top-level alternatives (written in lowercase), each for lowercased bytes.
    One that begins with a literal is found by a fast scan for that literal; an alternation,
    or a letter under IGNORECASE, is tried at every position of the page's 256 KiB (about
    2.5 ms a marker, where its split alternatives take 0.25 each)."""
    branches, depth, start = [], 0, 0
    for i, char in enumerate(pattern):
        if char == "(" and pattern[i - 1 : i] != "\\":
            depth += 1
        elif char == ")" and pattern[i - 1 : i] != "\\":
            depth -= 1
        elif char == "|" and depth == 0 and pattern[i - 1 : i] != "\\":
            branches.append(pattern[start:i])
            start = i + 1
    branches.append(pattern[start:])
    return tuple(re.compile(branch.encode()) for branch in branches)


# Strongest first: the first that matches names the wall.
MARKERS: tuple[_Marker, ...] = (
    # challenge pages a browser passes by running their script
    _m("challenge", "markup", r"/cdn-cgi/challenge-platform/|window\._cf_chl_opt", "Cloudflare's challenge script", passable=True),  # noqa: E501
    _m("challenge", "title", r"^\s*just a moment(?:\.\.\.|…)?\s*$", "the title 'Just a moment…'", passable=True),  # noqa: E501
    _m("challenge", "title", r"ddos-guard|^\s*vercel security checkpoint", "a DDoS-protection title", passable=True),  # noqa: E501
    _m("challenge", "markup", r"awswafintegration|/challenge\.js\b.*aws|aws-waf-token", "AWS WAF's challenge script", passable=True),  # noqa: E501
    _m("challenge", "words", r"checking (?:if the site connection is secure|your browser before accessing)|please wait while we (?:verify|check) your browser", "a browser check's message", passable=True),  # noqa: E501
    # captchas a person must solve
    _m("captcha", "markup", r"captcha-delivery\.com|geo\.captcha-delivery", "DataDome's captcha"),
    _m("captcha", "markup", r"px-captcha|_pxcaptcha", "PerimeterX's press-and-hold captcha"),
    _m("captcha", "words", r"verify (?:that )?you are (?:a )?human|are you a robot|not a robot|prove you(?:'| a)re (?:a )?human|complete the (?:security check|captcha)|press (?:&|and) hold to confirm", "a captcha's request to prove a human"),  # noqa: E501
    _m("captcha", "words", r"unusual traffic from your (?:computer )?network", "an unusual-traffic captcha"),  # noqa: E501
    # blocks
    _m("bot_block", "title", r"^\s*attention required!? \| cloudflare|^\s*access denied\s*$|^\s*pardon our interruption", "a block page's title"),  # noqa: E501
    _m("bot_block", "words", r"sorry, you have been blocked|you don't have permission to access .{0,200} on this server|incapsula incident id|request (?:unsuccessful|blocked)\. |why have i been blocked|your (?:ip|access) (?:address )?has been (?:blocked|denied)", "a block page's message"),  # noqa: E501
    # "enable JavaScript" pages: the message is the page
    _m("javascript", "words", r"enable javascript and cookies|(?:please|you (?:need|have) to|you must) (?:enable|turn on|activate) javascript|javascript is (?:required|disabled)[^.]{0,60}(?:continue|view|access)", "a request to enable JavaScript", passable=True),  # noqa: E501
    # login walls and paywall stubs
    _m("login", "words", r"(?:sign|log) ?in (?:to (?:continue|view|see|read|access) (?:this|the|reading)|or (?:sign|register) up to (?:continue|view|see))|you (?:must|need to) (?:be (?:logged|signed) in|log ?in|sign ?in) to|please (?:log|sign) ?in to (?:continue|view|see|access)|login required to", "a login wall's message"),  # noqa: E501
    _m("paywall", "words", r"subscribe (?:now )?to (?:continue|keep) reading|to continue reading,? (?:please )?(?:subscribe|become a (?:member|subscriber))|(?:this|the) (?:article|story|content) is (?:only )?(?:available |reserved )?(?:for|to) (?:paying |paid )?(?:subscribers|members)|subscribers only|become a (?:member|subscriber) to (?:read|continue|unlock)", "a paywall's message"),  # noqa: E501
    _m("paywall", "markup", r"\"isaccessibleforfree\"\s*:\s*\"?false", "schema.org isAccessibleForFree: false"),  # noqa: E501
)  # fmt: skip


def response_wall(headers: Mapping[str, str]) -> Wall | None:
    """A wall the response's headers name, whatever the status."""
    mitigated = (headers.get("cf-mitigated") or "").lower()
    if mitigated == "challenge":
        return Wall("challenge", "the cf-mitigated: challenge header", passable=True)
    waf = (headers.get("x-amzn-waf-action") or "").lower()
    if waf == "captcha":
        return Wall("captcha", "the x-amzn-waf-action: captcha header")
    if waf == "challenge":
        return Wall("challenge", "the x-amzn-waf-action: challenge header", passable=True)
    return None


def page_wall(
    html: str, *, title: str | None, words: Callable[[], str], read_words: int
) -> Wall | None:
    """A wall the page shows: `title`, `words` (its visible text, asked for only when a words
    marker is reached: finding it costs) and `read_words` (the reading's length) against
    `MARKERS`."""
    if read_words >= THIN_WORDS:
        return None  # a reading this long is the page, whatever it mentions
    # bytes, lowercased: ASCII case folding in C, where str.lower() of a page's non-ASCII
    # text cost 2 ms per 256 KiB
    markup = html[:SCAN_CHARS].encode("utf-8", "surrogatepass").lower()
    shown: list[str] = []

    def shown_words() -> str:
        if not shown:
            shown.append(words())
        return shown[0]

    for marker in MARKERS:
        if marker.search(title or "", markup, shown_words):
            return Wall(marker.kind, marker.reason, marker.passable)
    return None
