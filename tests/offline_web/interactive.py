"""spa.test's interactive pages: what page actions, screenshots and `images` are tried on.

/interactive        a button whose click reveals a paragraph (by script), notices each
                    behind a "More" button, an input that
                    echoes what was typed once Enter is pressed, a tall section (a full
                    page screenshot is taller than the viewport), images (src, srcset, a
                    duplicate, a data: URL, one a script inserts), links to an allowed
                    page and to blocked addresses (the canary of `knobs["canary"]`, the
                    cloud metadata address)
/interactive/next   where the allowed link leads
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from tests.offline_web.state import SiteState

__all__ = ["ECHO_PREFIX", "INTERACTIVE_ROUTES", "NEXT_TEXT", "NOTICES", "REVEALED", "TALL_PX"]

REVEALED = "The lighthouse keeper logs every passing ship in a leather-bound ledger."
ECHO_PREFIX = "The harbour master heard:"
NEXT_TEXT = "The second room of the museum holds the maps of the old coastline."
# Notices each behind its own "More" button (a click with `all` opens every one).
NOTICES = (
    "Tide tables for the spring are posted by the harbour gate.",
    "The night ferry no longer stops at the outer pier.",
    "Moorings on the east quay are let by the season.",
)
TALL_PX = 5000  # the page's height, about three 1600 px viewports

_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>{title}</title></head>
<body>{body}</body></html>"""


async def _interactive(request: Request, state: SiteState) -> Response:
    canary = str(state.knobs.get("canary", "127.0.0.2:9"))
    notices = "".join(
        f'<div class="notice"><button class="more" type="button" data-text="{text}">'
        "More</button></div>"
        for text in NOTICES
    )
    body = f"""
<main>
<h1>The harbour office</h1>
<p>Visitors to the harbour office may ask for the logbook and leave a message for the master.</p>
<button id="reveal" type="button">Show the logbook</button>
<div id="logbook"></div>
<section id="notices">{notices}</section>
<label>Message <input id="message" type="text"></label>
<p id="echo"></p>
<img src="/img/harbour.png" alt="harbour">
<img src="/img/harbour.png" alt="the same harbour">
<img srcset="/img/boat-1x.png 1x, /img/boat-2x.png 2x" alt="boat">
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="pixel">
<p><a id="next" href="/interactive/next">The next room</a></p>
<p><a id="canary" href="http://{canary}/leave">A blocked address</a></p>
<p><a id="metadata" href="http://169.254.169.254/latest/meta-data/">The metadata address</a></p>
<div id="tall" style="height:{TALL_PX}px">A long wall of harbour charts.</div>
</main>
<script>
document.getElementById('reveal').addEventListener('click', () => {{
  const p = document.createElement('p');
  p.id = 'revealed';
  p.textContent = {REVEALED!r};
  document.getElementById('logbook').appendChild(p);
}});
document.querySelectorAll('.more').forEach((button) => {{
  button.addEventListener('click', () => {{
    const p = document.createElement('p');
    p.textContent = button.dataset.text;
    button.parentNode.appendChild(p);
  }});
}});
const message = document.getElementById('message');
message.addEventListener('keydown', (event) => {{
  if (event.key === 'Enter') {{
    document.getElementById('echo').textContent = {ECHO_PREFIX!r} + ' ' + message.value;
  }}
}});
const late = document.createElement('img');
late.src = '/img/inserted.png';
document.querySelector('main').appendChild(late);
</script>"""
    return Response(_PAGE.format(title="Harbour office", body=body), media_type="text/html")


async def _next(request: Request, state: SiteState) -> Response:
    body = f"<main><h1>The second room</h1><p>{NEXT_TEXT}</p></main>"
    return Response(_PAGE.format(title="Second room", body=body), media_type="text/html")


INTERACTIVE_ROUTES = {"/interactive": _interactive, "/interactive/next": _next}
