"""walls.test: pages that stand in for the page asked for, modelled on real ones; and
notwalls.test: real pages with the same words nearby, that must be read as pages.

    walls.test/<name>      WALLS[name]: (status, headers, HTML, the kind of wall)
    walls.test/passable    a challenge whose script, run in a browser, puts the article in
    notwalls.test/<name>   NOT_WALLS[name]: (HTML, a sentence the reading must hold)

Written for the wall check's tests; none was used to choose its markers' words (the
markers were written from the vendors' pages, these from memory of them, reworded).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import NamedTuple

from starlette.requests import Request
from starlette.responses import Response

from tests.offline_web.state import SiteState

__all__ = ["NOT_WALLS", "PASSABLE_ARTICLE", "WALLS", "WALL_ROUTES", "Wall"]

Handler = Callable[[Request, SiteState], Awaitable[Response]]
HTML = "text/html; charset=utf-8"


class Wall(NamedTuple):
    status: int
    headers: dict[str, str]
    html: str
    kind: str


def _doc(title: str, body: str, head: str = "") -> str:
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"{head}</head><body>{body}</body></html>"
    )


_CF_SCRIPT = (
    "<script>(function(){window._cf_chl_opt={cvId:'3',cZone:'shop.example',cType:'managed'};"
    "var s=document.createElement('script');"
    "s.src='/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8a1';"
    "document.getElementsByTagName('head')[0].appendChild(s);})();</script>"
)

WALLS: dict[str, Wall] = {
    "cloudflare-managed": Wall(
        403,
        {"cf-mitigated": "challenge", "server": "cloudflare"},
        _doc(
            "Just a moment...",
            "<div class='main-wrapper' role='main'><div class='main-content'>"
            "<h1 class='zone-name-title h1'>shop.example</h1><h2 class='h2'>Verifying you are "
            "human. This may take a few seconds.</h2><noscript><div class='h2'>Enable "
            "JavaScript and cookies to continue</div></noscript></div></div>" + _CF_SCRIPT,
        ),
        "challenge",
    ),
    "cloudflare-legacy": Wall(
        503,
        {"server": "cloudflare"},
        _doc(
            "Just a moment…",
            "<div id='cf-wrapper'><h1>Checking your browser before accessing news.example."
            "</h1><p>This process is automatic. Your browser will redirect to your requested "
            "content shortly.</p><p>Please allow up to 5 seconds…</p></div>" + _CF_SCRIPT,
        ),
        "challenge",
    ),
    "cloudflare-block": Wall(
        403,
        {"server": "cloudflare"},
        _doc(
            "Attention Required! | Cloudflare",
            "<div id='cf-error-details'><h1>Sorry, you have been blocked</h1><h2>You are "
            "unable to access forum.example</h2><h2>Why have I been blocked?</h2><p>This "
            "website is using a security service to protect itself from online attacks.</p>"
            "<p>Cloudflare Ray ID: 8a1f00b2c3d4e5f6</p></div>",
        ),
        "bot_block",
    ),
    "turnstile": Wall(
        200,
        {},
        _doc(
            "Security check",
            "<main><h1>One more step</h1><p>Verify you are human by completing the action "
            "below.</p><div class='cf-turnstile' data-sitekey='0x4AAA'></div></main>",
        ),
        "captcha",
    ),
    "datadome": Wall(
        403,
        {"x-datadome": "protected"},
        _doc(
            "travel.example",
            "<p>Please enable JS and disable any ad blocker</p><script>var dd={'rt':'c',"
            "'cid':'AHrlqAAA','host':'geo.captcha-delivery.com'}</script>"
            "<script src='https://ct.captcha-delivery.com/c.js'></script>",
        ),
        "captcha",
    ),
    "perimeterx": Wall(
        403,
        {},
        _doc(
            "Access to this page has been denied",
            "<div class='px-captcha-container'><h1>Before we continue...</h1><p>Press &amp; "
            "Hold to confirm you are a human (and not a bot).</p><div id='px-captcha'></div>"
            "<p>Reference ID 4f1e2d3c-0000</p></div>",
        ),
        "captcha",
    ),
    "akamai": Wall(
        403,
        {"server": "AkamaiGHost"},
        _doc(
            "Access Denied",
            "<h1>Access Denied</h1>You don't have permission to access "
            '"http&#58;&#47;&#47;www&#46;retail&#46;example&#47;deals" on this server.<p>'
            "Reference&#32;&#35;18&#46;5a3c2e17&#46;1732700000&#46;1f2e3d4</p>",
        ),
        "bot_block",
    ),
    "unusual-traffic": Wall(
        429,
        {},
        _doc(
            "Sorry...",
            "<div><h1>We're sorry...</h1><p>... but your computer or network may be sending "
            "automated queries. Our systems have detected unusual traffic from your computer "
            "network. To protect our users, we can't process your request right now.</p></div>",
        ),
        "captcha",
    ),
    "aws-waf": Wall(
        405,
        {"x-amzn-waf-action": "captcha"},
        _doc(
            "",
            "<div id='captcha-container'></div><script src='https://captcha.awswaf.example/"
            "jsapi.js'></script><noscript><h1>JavaScript is disabled</h1></noscript>",
        ),
        "captcha",
    ),
    "login-wall": Wall(
        200,
        {},
        _doc(
            "Sign in | Pro Network",
            "<header><a href='/'>Pro Network</a></header><main><h1>Join your colleagues</h1>"
            "<p>You must be logged in to view this profile.</p><form action='/login'>"
            "<input name='email'><input type='password' name='password'>"
            "<button>Sign in</button></form><p>New here? <a href='/join'>Join now</a></p>"
            "</main>",
        ),
        "login",
    ),
    "paywall": Wall(
        200,
        {},
        _doc(
            "Harbour fees to double next year | Coast Ledger",
            "<nav><a href='/'>Home</a> <a href='/login'>Log in</a></nav><article><h1>Harbour "
            "fees to double next year</h1><p>Boat owners in the bay will pay twice as much "
            "for a mooring from January, the port authority said.</p><div class='paywall'>"
            "<h2>Subscribe to continue reading</h2><p>Get unlimited access for 1 euro a week."
            "</p><a href='/subscribe'>Subscribe</a><p>Already a subscriber? <a href='/login'>"
            "Log in</a></p></div></article>",
        ),
        "paywall",
    ),
    "enable-javascript": Wall(
        200,
        {},
        _doc(
            "Pardon the wait",
            "<div style='text-align:center'><h2>Please enable JavaScript and cookies to "
            "continue.</h2><p>We need them to check your request.</p></div><script "
            "src='/_sec/check.js'></script>",
        ),
        "javascript",
    ),
    "imperva": Wall(
        200,
        {},
        _doc(
            "Pardon Our Interruption",
            "<div class='container'><h1>Pardon Our Interruption</h1><p>As you were browsing "
            "something about your browser made us think you were a bot.</p></div>",
        ),
        "bot_block",
    ),
}

# The article a browser reads once the passable challenge's script has run.
PASSABLE_ARTICLE = (
    "The lighthouse keepers of the outer islands kept a log of every ship that passed, and "
    "the logs from the last century are now being read again by climate researchers."
)
_PASSABLE = _doc(
    "Just a moment...",
    "<div id='challenge'><h1>Checking if the site connection is secure</h1></div>"
    "<script>setTimeout(function(){document.title='Lighthouse logs';"
    "document.body.innerHTML='<article><h1>Lighthouse logs</h1><p>"
    + PASSABLE_ARTICLE
    + "</p><p>Each entry names the ship, the wind and the hour.</p></article>';},50);"
    "</script>",
)

_NAV = (
    "<nav><a href='/'>Home</a> <a href='/login'>Sign in</a> <a href='/register'>Register</a> "
    "<a href='/subscribe'>Subscribe</a> <a href='/account'>Log in to see your orders</a></nav>"
)
_LONG = (
    "The route follows the river for most of its length, crossing it twice on old stone "
    "bridges, and the climb at the end is short but steep enough that most riders walk it. "
)

NOT_WALLS: dict[str, tuple[str, str]] = {
    "short-story": (
        _doc(
            "Market moves to the square",
            _NAV + "<article><h1>Market moves to the square</h1><p>The Saturday market will "
            "be held in the town square from next month while the hall is repaired.</p>"
            "<p>Stall holders keep their usual places.</p></article><footer>Subscribe to our "
            "newsletter</footer>",
        ),
        "The Saturday market will be held in the town square",
    ),
    "captcha-essay": (
        _doc(
            "Why captchas ask you to prove you are human",
            _NAV
            + "<article><h1>Why captchas ask you to prove you are human</h1>"
            + "<p>When a site asks you to verify you are human, or asks whether you are a "
            "robot, it is running a test that a script finds harder than a person does. "
            + _LONG * 6
            + "</p></article>",
        ),
        "it is running a test that a script finds harder",
    ),
    "login-in-nav": (
        _doc(
            "Cycling the river route",
            _NAV + "<form class='login'><input name='user'><input type='password' name='pw'>"
            "<button>Log in</button></form><main><h1>Cycling the river route</h1><p>"
            + _LONG * 5
            + "</p></main>",
        ),
        "crossing it twice on old stone bridges",
    ),
    "newsletter-box": (
        _doc(
            "Three soups for winter",
            "<main><h1>Three soups for winter</h1><p>Leek and potato, lentil, and a "
            "smoky bean soup: all three keep for a week in the fridge.</p><aside "
            "class='newsletter'><h3>Subscribe to keep reading our recipes every week</h3>"
            "<input name='email'><button>Subscribe</button></aside></main>",
        ),
        "all three keep for a week in the fridge",
    ),
    "contact-recaptcha": (
        _doc(
            "Contact us",
            "<main><h1>Contact us</h1><p>Write to us and we answer within two days.</p><form>"
            "<textarea name='message'></textarea><div class='g-recaptcha' data-sitekey='6Lc'>"
            "</div><button>Send</button></form><p>This site is protected by reCAPTCHA and "
            "the Google Privacy Policy and Terms of Service apply.</p></main>",
        ),
        "we answer within two days",
    ),
    "challenge-docs": (
        _doc(
            "Reading challenge pages in your logs",
            "<main><h1>Reading challenge pages in your logs</h1><p>A request answered with "
            "the title Just a moment was challenged; the page loads a script from "
            "<code>/cdn-cgi/challenge-platform/</code> and sets <code>cf-mitigated</code>. "
            + _LONG * 6
            + "</p><pre>GET /cdn-cgi/challenge-platform/h/g/orchestrate</pre></main>",
        ),
        "A request answered with the title Just a moment was challenged",
    ),
    "faq-login": (
        _doc(
            "Reader questions",
            _NAV + "<main><h1>Reader questions</h1><h2>Do I need to log in to read articles?"
            "</h2><p>No: every story on the site is free to read.</p></main>",
        ),
        "every story on the site is free to read",
    ),
    "poem": (
        _doc(
            "Low tide",
            "<main><h1>Low tide</h1><p>The sea goes out<br>and leaves its glass<br>on every "
            "stone</p></main><footer><a href='/login'>Log in</a> | <a href='/join'>Register"
            "</a> | Members only area</footer>",
        ),
        "The sea goes out",
    ),
    "free-article-marked": (
        _doc(
            "Ferries in winter",
            "<article><h1>Ferries in winter</h1><p>" + _LONG * 6 + "</p></article>",
            head='<script type="application/ld+json">{"@type": "NewsArticle", '
            '"isAccessibleForFree": false, "hasPart": {"@type": "WebPageElement", '
            '"isAccessibleForFree": false, "cssSelector": ".paid"}}</script>',
        ),
        "the climb at the end is short but steep",
    ),
    "javascript-mention": (
        _doc(
            "Browser settings",
            "<main><h1>Browser settings</h1><p>Our map works best when you enable JavaScript "
            "to view the layers; without it you still get the list of stops below.</p><ul>"
            "<li>North Gate</li><li>Mill Lane</li><li>Harbour</li></ul></main>",
        ),
        "you still get the list of stops below",
    ),
    "access-denied-story": (
        _doc(
            "Access denied: the archive that closed",
            "<article><h1>Access denied: the archive that closed</h1><p>For twenty years "
            "the county archive let anyone read its maps; this spring it closed its doors "
            "to visitors without an appointment.</p></article>",
        ),
        "the county archive let anyone read its maps",
    ),
    "press-release": (
        _doc(
            "New bus timetable",
            _NAV + "<main><h1>New bus timetable</h1><p>From 1 March buses on line 4 run "
            "every ten minutes at peak hours.</p><p>Sign in to continue to your account "
            "settings from the menu.</p></main>",
        ),
        "buses on line 4 run every ten minutes",
    ),
    # Found by the injection pages of issue 30: a short how-to was read as PerimeterX's
    # press-and-hold captcha, whose words are "press & hold to confirm you are a human".
    "press-and-hold-howto": (
        _doc(
            "Resetting your router",
            "<article><h1>Resetting your router</h1><p>Press and hold the reset button for "
            "ten seconds.</p><p>Wait until the status light turns green.</p></article>",
        ),
        "Press and hold the reset button",
    ),
}


def _serve(status: int, headers: dict[str, str], body: str) -> Handler:
    async def handler(request: Request, state: SiteState) -> Response:
        return Response(
            body.encode(), status_code=status, headers={"content-type": HTML, **headers}
        )

    return handler


WALL_ROUTES: dict[str, dict[str, Handler]] = {
    "walls.test": {
        **{f"/{name}": _serve(w.status, w.headers, w.html) for name, w in WALLS.items()},
        "/passable": _serve(403, {"cf-mitigated": "challenge"}, _PASSABLE),
    },
    "notwalls.test": {f"/{name}": _serve(200, {}, html) for name, (html, _) in NOT_WALLS.items()},
}
