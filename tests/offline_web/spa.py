"""spa.test: pages whose content only exists after their JavaScript runs, and the same content
served as plain HTML, so a test can compare what a render reads with what a static read reads.

    /article            a client-rendered article (empty #root, fetched JSON)  /static/article
    /docs#/guide/setup  a hash-routed docs page (content picked by location.hash)  /static/docs
    /feed               an infinite-scroll listing (a page of items per scroll)  /static/feed
    /t/thread           a Discourse-like thread: <noscript>, posts by XHR  /static/t/thread
    /slow-app           a shell whose one XHR answers after SLOW_SECONDS (a render in flight)
    /adversarial        scripts that try every way out to the canary (`knobs["canary"]`)
    /interactive        buttons, an input, images and links for page actions (interactive.py)

The adversarial page reads its target from the site's knobs ("host:port" of a canary on a
blocked address, set by the test) and tries fetch, XHR, <img>, <iframe>, <script>, a
WebSocket, a worker, a beacon, a preconnect, WebRTC and a `location` redirect against it, a
rebinding name (`rebind.test`) and the cloud metadata address.
"""

from __future__ import annotations

import html
import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import Response

from tests.offline_web.interactive import INTERACTIVE_ROUTES
from tests.offline_web.state import SiteState

__all__ = ["ARTICLE", "DOCS", "FEED_ITEMS", "SPA_ROUTES", "THREAD"]

Handler = Callable[[Request, SiteState], Awaitable[Response]]
HTML = "text/html; charset=utf-8"
JSON = "application/json"

ARTICLE: dict[str, Any] = {
    "title": "Tidal Pools of the Northern Coast",
    "byline": "Mara Lindqvist",
    "paragraphs": [
        "Tidal pools form where the retreating sea leaves water trapped among the rocks, and "
        "twice a day their inhabitants live through a small drought and a small flood.",
        "Sea anemones close into tight green buttons when the water leaves, holding a reserve "
        "of seawater inside their bodies until the tide returns to open them again.",
        "Hermit crabs trade shells as they grow, and a pool with a good supply of empty "
        "periwinkle shells supports a surprisingly dense population of them.",
        "Researchers counting species along the northern coast found that the highest pools, "
        "which are flooded least often, shelter the hardiest and strangest animals.",
    ],
}

DOCS = {
    "/guide/setup": (
        "Setting up the toolkit",
        [
            "Install the toolkit with the package manager of your platform, then run the "
            "setup command once to create the configuration directory in your home folder.",
            "The setup command asks for a data directory; the default keeps everything under "
            "your user account, which suits a single developer machine.",
        ],
    ),
    "/guide/usage": (
        "Everyday usage",
        ["Run the sync command each morning to fetch the changes your colleagues pushed."],
    ),
}

FEED_ITEMS = [f"Listing entry number {n}: a lighthouse keeper's log, day {n}" for n in range(1, 31)]
SLOW_SECONDS = 5.0
FEED_PAGE = 10  # items per screen: three scrolls load them all

THREAD: dict[str, Any] = {
    "title": "How do I calibrate the anemometer after a storm?",
    "posts": [
        (
            "gale_watcher",
            "After last week's storm my anemometer reads ten percent high. Is "
            "there a field calibration procedure, or does it need to go back to the maker?",
        ),
        (
            "ridge_station",
            "Spin it against a known reference in still air: a car driven at a "
            "steady speed on a calm day works if you hold it well above the roof line.",
        ),
        (
            "gale_watcher",
            "The car method worked: the cups were bent slightly. After "
            "straightening them the readings match the reference within two percent.",
        ),
    ],
}


def _page(title: str, body: str, head: str = "") -> Response:
    text = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"{head}</head><body>{body}</body></html>"
    )
    return Response(text, media_type=HTML)


def _json(data: object) -> Response:
    return Response(json.dumps(data), media_type=JSON)


def _article_html(data: dict[str, Any]) -> str:
    paragraphs = "".join(f"<p>{html.escape(str(p))}</p>" for p in data["paragraphs"])
    return (
        f"<article><h1>{html.escape(str(data['title']))}</h1>"
        f"<p class='byline'>By {html.escape(str(data['byline']))}</p>{paragraphs}</article>"
    )


_SHELL_NAV = "<header><nav><a href='/'>Home</a> <a href='/about'>About</a></nav></header>"


async def _article(request: Request, state: SiteState) -> Response:
    script = """
<script>
fetch('/api/article.json').then(r => r.json()).then(a => {
  const root = document.getElementById('root');
  const art = document.createElement('article');
  const h = document.createElement('h1'); h.textContent = a.title; art.appendChild(h);
  const by = document.createElement('p'); by.className = 'byline';
  by.textContent = 'By ' + a.byline; art.appendChild(by);
  for (const text of a.paragraphs) {
    const p = document.createElement('p'); p.textContent = text; art.appendChild(p);
  }
  root.appendChild(art);
  document.title = a.title;
});
</script>"""
    return _page("Loading…", f"{_SHELL_NAV}<div id='root'></div>{script}")


async def _article_static(request: Request, state: SiteState) -> Response:
    return _page(
        str(ARTICLE["title"]), f"{_SHELL_NAV}<div id='root'>{_article_html(ARTICLE)}</div>"
    )


async def _article_json(request: Request, state: SiteState) -> Response:
    return _json(ARTICLE)


def _docs_section(path: str) -> str:
    title, paragraphs = DOCS[path]
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return f"<main><h1>{html.escape(title)}</h1>{body}</main>"


async def _docs(request: Request, state: SiteState) -> Response:
    pages = json.dumps({path: _docs_section(path) for path in DOCS})
    script = f"""
<script>
const PAGES = {pages};
function show() {{
  const path = location.hash.replace(/^#/, '') || '/guide/usage';
  document.getElementById('app').innerHTML = PAGES[path] || '<p>Not found</p>';
}}
window.addEventListener('hashchange', show);
show();
</script>"""
    return _page("Docs", f"<div id='app'></div>{script}")


async def _docs_static(request: Request, state: SiteState) -> Response:
    return _page("Docs", f"<div id='app'>{_docs_section('/guide/setup')}</div>")


async def _feed(request: Request, state: SiteState) -> Response:
    script = """
<script>
let next = 0, loading = false;
async function more() {
  if (loading || next === null) return;
  loading = true;
  const data = await (await fetch('/api/feed?page=' + next)).json();
  const list = document.getElementById('items');
  for (const item of data.items) {
    const li = document.createElement('li'); li.textContent = item; list.appendChild(li);
  }
  next = data.next; loading = false;
}
window.addEventListener('scroll', () => {
  if (window.innerHeight + window.scrollY >= document.body.scrollHeight - 50) more();
});
more();
</script>"""
    style = "<style>li { height: 400px; }</style>"
    return _page(
        "Lighthouse logs", f"<h1>Lighthouse logs</h1><ul id='items'></ul>{script}", head=style
    )


async def _feed_page(request: Request, state: SiteState) -> Response:
    page = int(request.query_params.get("page", "0"))
    items = FEED_ITEMS[page * FEED_PAGE : (page + 1) * FEED_PAGE]
    more = (page + 1) * FEED_PAGE < len(FEED_ITEMS)
    return _json({"items": items, "next": page + 1 if more else None})


async def _feed_static(request: Request, state: SiteState) -> Response:
    items = "".join(f"<li>{html.escape(item)}</li>" for item in FEED_ITEMS)
    return _page("Lighthouse logs", f"<h1>Lighthouse logs</h1><ul id='items'>{items}</ul>")


def _posts_html(posts: list[tuple[str, str]]) -> str:
    return "".join(
        f"<div class='topic-post'><article class='boxed'><div class='names'>"
        f"<span class='username'>{html.escape(user)}</span></div>"
        f"<div class='cooked'><p>{html.escape(text)}</p></div></article></div>"
        for user, text in posts
    )


async def _thread(request: Request, state: SiteState) -> Response:
    script = """
<script>
const xhr = new XMLHttpRequest();
xhr.open('GET', '/t/thread.json');
xhr.onload = () => {
  const data = JSON.parse(xhr.responseText);
  document.querySelector('#main-outlet h1').textContent = data.title;
  const stream = document.querySelector('.post-stream');
  stream.innerHTML = '';
  for (const [user, text] of data.posts) {
    const post = document.createElement('div'); post.className = 'topic-post';
    const art = document.createElement('article'); art.className = 'boxed';
    const names = document.createElement('div'); names.className = 'names';
    const name = document.createElement('span'); name.className = 'username';
    name.textContent = user; names.appendChild(name); art.appendChild(names);
    const cooked = document.createElement('div'); cooked.className = 'cooked';
    const p = document.createElement('p'); p.textContent = text; cooked.appendChild(p);
    art.appendChild(cooked); post.appendChild(art); stream.appendChild(post);
  }
};
xhr.send();
</script>"""
    body = (
        "<noscript>Please enable JavaScript to use this forum.</noscript>"
        "<section id='main-outlet'><h1></h1><div class='post-stream'>Loading…</div></section>"
        f"{script}"
    )
    return _page("Forum", body, head="<meta name='generator' content='Discourse'>")


async def _thread_json(request: Request, state: SiteState) -> Response:
    return _json({"title": THREAD["title"], "posts": THREAD["posts"]})


async def _thread_static(request: Request, state: SiteState) -> Response:
    posts = _posts_html(THREAD["posts"])
    body = (
        f"<section id='main-outlet'><h1>{html.escape(str(THREAD['title']))}</h1>"
        f"<div class='post-stream'>{posts}</div></section>"
    )
    return _page("Forum", body)


async def _adversarial(request: Request, state: SiteState) -> Response:
    canary = str(state.knobs.get("canary", "127.0.0.2:9"))
    rebind = str(state.knobs.get("rebind", "rebind.test:9"))
    host, _, port = canary.partition(":")
    targets = json.dumps(
        [
            f"http://{canary}",
            f"http://{rebind}",
            "http://169.254.169.254",
            f"http://[::ffff:{host}]:{port}",
        ]
    )
    script = f"""
<script>
const TARGETS = {targets};
for (const t of TARGETS) {{
  fetch(t + '/fetch').catch(() => 0);
  fetch(t + '/no-cors', {{mode: 'no-cors'}}).catch(() => 0);
  const x = new XMLHttpRequest(); x.open('GET', t + '/xhr'); x.send();
  const img = new Image(); img.src = t + '/img';
  const f = document.createElement('iframe'); f.src = t + '/iframe';
  document.body.appendChild(f);
  const s = document.createElement('script'); s.src = t + '/script.js';
  document.body.appendChild(s);
  const l = document.createElement('link'); l.rel = 'stylesheet'; l.href = t + '/style.css';
  document.head.appendChild(l);
  try {{ new WebSocket(t.replace('http', 'ws') + '/ws'); }} catch (e) {{}}
  try {{ navigator.sendBeacon(t + '/beacon', 'x'); }} catch (e) {{}}
  try {{
    new Worker(URL.createObjectURL(new Blob(["fetch('" + t + "/worker').catch(() => 0)"])));
  }} catch (e) {{}}
}}
try {{
  const pc = new RTCPeerConnection({{iceServers: [{{urls: 'stun:{canary}'}}]}});
  pc.createDataChannel('x');
  pc.createOffer().then(o => pc.setLocalDescription(o));
}} catch (e) {{}}
try {{ navigator.serviceWorker.register('/sw.js'); }} catch (e) {{}}
document.getElementById('status').textContent = 'The attacks were launched.';
setTimeout(() => {{ location.href = TARGETS[0] + '/navigate'; }}, 200);
setTimeout(() => {{ window.open(TARGETS[0] + '/popup'); }}, 300);
</script>"""
    head = (
        f"<link rel='preconnect' href='http://{canary}/'>"
        f"<link rel='dns-prefetch' href='http://{canary}/'>"
        f"<link rel='prefetch' href='http://{canary}/prefetch'>"
        f"<meta http-equiv='refresh' content='1;url=http://{canary}/refresh'>"
    )
    body = (
        "<div id='root'><h1>An adversarial page</h1><p id='status'>Nothing ran.</p></div>"
        f"<img src='http://{canary}/static-img'><iframe src='http://{canary}/static-iframe'>"
        f"</iframe>{script}"
    )
    return _page("Adversarial", body, head=head)


async def _slow_app(request: Request, state: SiteState) -> Response:
    script = "<script>fetch('/api/slow').then(r => r.text()).then(t => { root.textContent = t; });"
    return _page("Slow app", f"<div id='root'></div>{script}</script>")


async def _slow(request: Request, state: SiteState) -> Response:
    """Answers after SLOW_SECONDS (or at shutdown): a render is surely in flight meanwhile."""
    await anyio.to_thread.run_sync(state.stopping.wait, SLOW_SECONDS)
    return Response("finally here", media_type="text/plain")


async def _sw(request: Request, state: SiteState) -> Response:
    canary = str(state.knobs.get("canary", "127.0.0.2:9"))
    return Response(f"fetch('http://{canary}/sw')", media_type="text/javascript")


SPA_ROUTES: dict[str, dict[str, Handler]] = {
    "spa.test": {
        "/article": _article,
        "/static/article": _article_static,
        "/api/article.json": _article_json,
        "/docs": _docs,
        "/static/docs": _docs_static,
        "/feed": _feed,
        "/static/feed": _feed_static,
        "/api/feed": _feed_page,
        "/t/thread": _thread,
        "/t/thread.json": _thread_json,
        "/static/t/thread": _thread_static,
        "/adversarial": _adversarial,
        "/sw.js": _sw,
        "/slow-app": _slow_app,
        "/api/slow": _slow,
        **INTERACTIVE_ROUTES,
    },
}
