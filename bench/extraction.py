"""Main-content extraction benchmark: netsift beside trafilatura, readability-lxml, resiliparse and
the MCP fetch server's converter.

Two public datasets, read from ../shared/bench (relative to the repository; override with
--data), scored by the scorers that ship with them, so the figures compare with published ones:

- extraction: the Scrapinghub/Zyte article-body benchmark (word 4-gram F1, mean P and R);
- wcxb: the WCXB multi-type benchmark (bag-of-words F1, mean over pages, per page type).

Beside F1, a structure score: how much of the ground truth's shape (headings, paragraph breaks,
list items, table cells, code blocks) each extractor's Markdown keeps (see `structure_of`).

Every extractor runs on the same pages in the same process, interleaved page by page, and is
timed on the process CPU of the extraction call alone (reading and unzipping the pages is not
counted, nor one warm-up call per extractor that pays its lazy imports and one-time tables).
With `--pool`, netsift extracts as it serves: `Client.extract_isolated`, in its warm compute
pool under the task bounds, and every extractor's CPU is this process's plus the pool's
workers' (/proc, clock ticks), so the round trip and the worker's bounds are counted.

    .venv/bin/python bench/extraction.py --dataset both
    .venv/bin/python bench/extraction.py --dataset wcxb --limit 200 --types forum,product
    .venv/bin/python bench/extraction.py --dataset extraction --peers none --save /tmp/preds
    .venv/bin/python bench/extraction.py --dataset both --peers trafilatura --pool
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import re
import resource
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _proctree import cpu_seconds, descendants  # noqa: E402  (the bench folder, above)

DEFAULT_DATA = REPO.parent / "shared" / "bench"
PEERS = ("trafilatura", "trafilatura-precision", "readability", "resiliparse", "mcp-fetch")
DEFAULT_PEERS = "trafilatura,readability,mcp-fetch"

Extractor = Callable[[str, str], str]


@dataclass(frozen=True)
class Contender:
    """One extractor: `text` is timed and scored for F1; `markdown` (untimed) for the structure
    score. A converter that only writes Markdown (`markdown_only`) is timed on its Markdown and
    scored for F1 on it with the link targets and marks taken out."""

    name: str
    text: Extractor
    markdown: Extractor | None = None
    markdown_only: bool = False


@dataclass
class Doc:
    id: str
    url: str
    html: str
    truth: str
    type: str = "article"
    shape: str = ""  # the ground truth as Markdown, for the structure score


@dataclass
class Run:
    name: str
    predictions: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    failures: int = 0
    page_seconds: dict[str, float] = field(default_factory=dict)
    markdown: dict[str, str] = field(default_factory=dict)

    def pages_per_second(self) -> float:
        return len(self.predictions) / self.seconds if self.seconds else 0.0


def load_module(path: Path, name: str) -> ModuleType:
    """Import a dataset's own scorer, so the metric is exactly the dataset's."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the scorer {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_extraction(root: Path, limit: int | None) -> list[Doc]:
    truth = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    docs = []
    for page_id in sorted(truth)[:limit]:
        with gzip.open(root / "html" / f"{page_id}.html.gz", "rt", encoding="utf-8") as f:
            html = f.read()
        item = truth[page_id]
        body = item.get("articleBody") or ""
        # the article set's truth is plain text, one paragraph a line: its shape is its breaks
        docs.append(Doc(page_id, item.get("url") or "", html, body, shape=body))
    return docs


def load_wcxb(root: Path, scorer: ModuleType, limit: int | None, types: set[str]) -> list[Doc]:
    docs = []
    for gt_path in sorted((root / "ground-truth").glob("*.json")):
        doc = json.loads(gt_path.read_text(encoding="utf-8"))
        kind = scorer.page_type(doc)
        if types and kind not in types:
            continue
        with gzip.open(root / "html" / f"{gt_path.stem}.html.gz", "rt", errors="replace") as f:
            html = f.read()
        truth = doc["ground_truth"].get("main_content") or ""
        shape = doc["ground_truth"].get("main_content_markdown") or ""
        docs.append(Doc(gt_path.stem, doc.get("url") or "", html, truth, kind, shape))
        if limit and len(docs) >= limit:
            break
    return docs


def netsift_contender(page_type: str, pool: bool = False) -> Contender:
    if pool:
        return _pool_contender(page_type)
    from netsift.fetch.html import extract_html

    def run(html: str, url: str, fmt: Any = "text") -> str:
        return extract_html(html, url=url or None, format=fmt, page_type=page_type).content

    return Contender("netsift", run, lambda html, url: run(html, url, "markdown"))


def _pool_contender(page_type: str) -> Contender:
    """netsift as it serves: `Client.extract_isolated` in the warm compute pool, one page at
    a time from one event loop (the pool started and warmed before the timed pages)."""
    import asyncio
    import tempfile

    from netsift import Client
    from netsift.config import Settings

    loop = asyncio.new_event_loop()
    data = tempfile.TemporaryDirectory()
    client = Client(Settings(data_dir=Path(data.name), cache_url="memory://"))
    loop.run_until_complete(client.__aenter__())

    def run(html: str, url: str, fmt: Any = "text") -> str:
        page = loop.run_until_complete(
            client.extract_isolated(
                html.encode("utf-8"), url=url or None, format=fmt, page_type=page_type
            )
        )
        return page.content

    run("<html><body><p>warm</p></body></html>", "")  # starts the pool
    _find_pool()
    return Contender("netsift-pool", run, lambda html, url: run(html, url, "markdown"))


def peer_contender(name: str) -> Contender:
    if name.startswith("trafilatura"):
        import trafilatura

        precision = name == "trafilatura-precision"

        def run_trafilatura(html: str, url: str) -> str:
            return trafilatura.extract(html, favor_precision=precision) or ""

        def trafilatura_markdown(html: str, url: str) -> str:
            found = trafilatura.extract(
                html, favor_precision=precision, output_format="markdown", include_links=True
            )
            return found or ""

        return Contender(name, run_trafilatura, trafilatura_markdown)
    if name == "readability":
        import lxml.html
        from readability import Document

        def run_readability(html: str, url: str) -> str:
            summary = Document(html).summary(html_partial=True)
            return str(lxml.html.fromstring(summary).text_content()) if summary.strip() else ""

        return Contender(name, run_readability)
    if name == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text

        def run_resiliparse(html: str, url: str) -> str:
            return str(extract_plain_text(html, main_content=True))

        return Contender(name, run_resiliparse)
    if name == "mcp-fetch":
        import markdownify
        import readabilipy.simple_json  # type: ignore[import-untyped]

        def run_mcp_fetch(html: str, url: str) -> str:
            # mcp-server-fetch's `extract_content_from_html`, on readabilipy's Python path
            # (what the server runs without Node; with Node it spawns a Readability.js
            # process per page, ~5 s each here, too slow for 1,600 pages)
            found = readabilipy.simple_json.simple_json_from_html_string(html)
            if not found["content"]:
                return ""
            return str(markdownify.markdownify(found["content"], heading_style=markdownify.ATX))

        return Contender(name, run_mcp_fetch, run_mcp_fetch, markdown_only=True)
    raise SystemExit(f"unknown peer {name!r}; choose from {', '.join(PEERS)}")


_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKS = re.compile(r"^\s*(?:#{1,6}|[-*+>]|\d{1,3}[.)])\s+|[*_`|]+", re.MULTILINE)


def plain(markdown: str) -> str:
    """Markdown's words without link targets and marks, for the word-based F1 scorers."""
    return _MARKS.sub(" ", _LINK.sub(r"\1", markdown))


_POOL: list[int] = []  # the compute pool's processes, with --pool (their CPU is counted)


def _cpu() -> float:
    """This process's CPU and that of the processes it waited for (a peer's helper process),
    and with --pool the compute pool's."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = time.process_time() + children.ru_utime + children.ru_stime
    return own + (cpu_seconds(_POOL) if _POOL else 0.0)


def _find_pool() -> None:
    """The pool's processes now (untimed, between two pages): a worker ended by its bounds
    is replaced, and its CPU is in its parent's count of reaped children."""
    _POOL[:] = descendants(os.getpid())


def run_extractors(contenders: list[Contender], docs: list[Doc], shape: bool) -> list[Run]:
    """Every extractor on every page, interleaved page by page (each page starts with the next
    extractor in turn) and timed on process CPU: on a shared machine, load that comes and goes
    falls on all of them alike instead of on whichever ran during it. With `shape`, each also
    writes the page as Markdown, untimed, for the structure score."""
    runs = [Run(c.name) for c in contenders]
    if docs:  # untimed warm-up: lazy imports and one-time tables (justext stoplists) not counted
        for contender in contenders:
            try:
                contender.text(docs[0].html, docs[0].url)
            except Exception:
                pass
    for i, doc in enumerate(docs):
        for k in range(len(contenders)):
            j = (i + k) % len(contenders)
            run, contender = runs[j], contenders[j]
            started = _cpu()
            try:
                text = contender.text(doc.html, doc.url)
            except Exception:  # a peer failing on one page scores that page as empty
                text = ""
                run.failures += 1
            run.page_seconds[doc.id] = _cpu() - started
            if _POOL:
                _find_pool()
            run.seconds += run.page_seconds[doc.id]
            if contender.markdown_only:
                run.markdown[doc.id], text = text, plain(text)
            elif shape and contender.markdown is not None:
                try:
                    run.markdown[doc.id] = contender.markdown(doc.html, doc.url)
                except Exception:
                    run.markdown[doc.id] = ""
            run.predictions[doc.id] = text
    return runs


# -- the structure score -----------------------------------------------------------------------
# A page's shape is its elements: headings, paragraphs (each block's start: a break the truth
# has and the extraction misses merges two), list items, table cells and code blocks. Each is
# keyed by its kind and its first words; the score is the F1 of the keys an extraction shares
# with the truth's Markdown. Precision counts only the extraction's elements whose words the
# truth holds: boilerplate is F1's business, not shape's. Heading levels are not compared (the
# truth's are not the page's). Lines are blocks: an agent reads a line break as one.
KINDS = ("heading", "paragraph", "item", "cell", "code")
_KEY_WORDS = 8  # words that key a paragraph, item or code block: enough to be unique on a page
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)[\s#]*$")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_TABLE_RULE = re.compile(r"^[\s|:-]+$")
_WORD = re.compile(r"\w+")


def _key(text: str, limit: int = _KEY_WORDS) -> str:
    return " ".join(_WORD.findall(_LINK.sub(r"\1", text).lower())[:limit])


def structure_of(markdown: str) -> Counter[tuple[str, str]]:
    """The structural elements of a Markdown text, as (kind, first words) with their counts."""
    found: Counter[tuple[str, str]] = Counter()
    code: list[str] | None = None
    for line in markdown.splitlines():
        if _FENCE.match(line):
            if code is not None:
                found["code", _key(" ".join(code))] += 1
            code = None if code is not None else []
            continue
        if code is not None:
            code.append(line)
            continue
        if not line.strip():
            continue
        if heading := _HEADING.match(line):
            found["heading", _key(heading[1], 20)] += 1
        elif item := _ITEM.match(line):
            found["item", _key(item[1])] += 1
        elif line.lstrip().startswith("|"):
            if not _TABLE_RULE.match(line):
                for cell in line.strip().strip("|").split("|"):
                    found["cell", _key(cell, 20)] += 1
        else:
            found["paragraph", _key(line.lstrip("> "))] += 1
    found.pop(("heading", ""), None)
    for kind in KINDS:
        found.pop((kind, ""), None)
    return found


@dataclass
class Shape:
    """Structure matched over a set of pages: per kind, elements of the truth, of the
    extraction (those whose words the truth holds) and both; and the mean page score."""

    truth: Counter[str] = field(default_factory=Counter)
    found: Counter[str] = field(default_factory=Counter)
    matched: Counter[str] = field(default_factory=Counter)
    scores: list[float] = field(default_factory=list)

    def add(self, truth_markdown: str, markdown: str) -> None:
        truth, found = structure_of(truth_markdown), structure_of(markdown)
        if not truth:
            return
        words = set(_WORD.findall(truth_markdown.lower()))
        relevant = Counter({k: n for k, n in found.items() if set(k[1].split()) <= words})
        both = truth & relevant
        for (kind, _), n in truth.items():
            self.truth[kind] += n
        for (kind, _), n in relevant.items():
            self.found[kind] += n
        for (kind, _), n in both.items():
            self.matched[kind] += n
        hits, t, f = sum(both.values()), sum(truth.values()), sum(relevant.values())
        precision, recall = hits / f if f else 0.0, hits / t
        self.scores.append(2 * precision * recall / (precision + recall) if hits else 0.0)

    def score(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else 0.0

    def recall(self, kind: str) -> str:
        return f"{self.matched[kind] / self.truth[kind]:.2f}" if self.truth[kind] else "-"


def shape_of(docs: list[Doc], run: Run) -> Shape | None:
    if not run.markdown:
        return None
    shape = Shape()
    for doc in docs:
        shape.add(doc.shape, run.markdown.get(doc.id, ""))
    return shape


def print_shapes(title: str, docs: list[Doc], runs: list[Run]) -> None:
    shapes = [(run, shape) for run in runs if (shape := shape_of(docs, run)) is not None]
    if not shapes:
        return
    print(f"\n### Structure, {title} (mean page F1 of elements; recall by kind)\n")
    print("| extractor | structure | " + " | ".join(KINDS) + " |")
    print("|---|---|" + "---|" * len(KINDS))
    for run, shape in shapes:
        cells = " | ".join(shape.recall(kind) for kind in KINDS)
        print(f"| {run.name} | {shape.score():.3f} | {cells} |")
    truth = shapes[0][1].truth
    print("elements in the truth: " + ", ".join(f"{k} {truth[k]}" for k in KINDS))


def score_extraction(scorer: ModuleType, docs: list[Doc], run: Run) -> dict[str, float]:
    pages = [scorer.score_page(d.truth, run.predictions.get(d.id, "")) for d in docs]
    result: dict[str, float] = scorer.aggregate(pages)
    return result


def score_wcxb(scorer: ModuleType, docs: list[Doc], run: Run) -> dict[str, Any]:
    rows = []
    for d in docs:
        p, r, f1 = scorer.prf(run.predictions.get(d.id, ""), d.truth)
        rows.append((d.type, p, r, f1))
    n = len(rows) or 1
    by_type: dict[str, list[float]] = {}
    for kind, _, _, f1 in rows:
        by_type.setdefault(kind, []).append(f1)
    seconds: dict[str, float] = {}
    for d in docs:
        seconds[d.type] = seconds.get(d.type, 0.0) + run.page_seconds.get(d.id, 0.0)
    return {
        "f1": sum(r[3] for r in rows) / n,
        "precision": sum(r[1] for r in rows) / n,
        "recall": sum(r[2] for r in rows) / n,
        "by_type": {k: sum(v) / len(v) for k, v in sorted(by_type.items())},
        "counts": {k: len(v) for k, v in sorted(by_type.items())},
        "seconds": seconds,
    }


def print_extraction(results: list[tuple[Run, dict[str, float]]], pages: int) -> None:
    print(f"\n## Article benchmark (Scrapinghub/Zyte, {pages} pages, word 4-gram F1)\n")
    print("| extractor | F1 | precision | recall | accuracy | pages/s |")
    print("|---|---|---|---|---|---|")
    for run, m in results:
        print(
            f"| {run.name} | {m['f1']:.4f} | {m['precision']:.4f} | {m['recall']:.4f} "
            f"| {m['accuracy']:.3f} | {run.pages_per_second():.1f} |"
        )
    print_ratio([(run, m["f1"]) for run, m in results])


def print_wcxb(results: list[tuple[Run, dict[str, Any]]], pages: int) -> None:
    kinds = list(results[0][1]["by_type"])
    counts = results[0][1]["counts"]
    print(f"\n## WCXB (dev split, {pages} pages, bag-of-words F1, mean over pages)\n")
    head = " | ".join(f"{k} ({counts[k]})" for k in kinds)
    print(f"| extractor | F1 | P | R | {head} | pages/s |")
    print("|---|---|---|---|" + "---|" * len(kinds) + "---|")
    for run, m in results:
        cells = " | ".join(f"{m['by_type'][k]:.3f}" for k in kinds)
        print(
            f"| {run.name} | {m['f1']:.4f} | {m['precision']:.3f} | {m['recall']:.3f} "
            f"| {cells} | {run.pages_per_second():.1f} |"
        )
    print_ratio([(run, m["f1"]) for run, m in results])
    if len(results) > 1:
        ours = results[0][1]["by_type"]
        behind = [
            f"{k} ({ours[k]:.3f} < {run.name} {m['by_type'][k]:.3f})"
            for run, m in results[1:]
            if run.name.startswith("trafilatura")
            for k in kinds
            if ours[k] < m["by_type"][k]
        ]
        print("types behind trafilatura: " + (", ".join(behind) if behind else "none"))
        mine = results[0][1]["seconds"]
        for run, m in results[1:]:
            if run.name == "trafilatura":
                ratios = ", ".join(
                    f"{k} {m['seconds'][k] / mine[k]:.2f}x" for k in kinds if mine.get(k)
                )
                print(f"speed by type, x of trafilatura's: {ratios}")


def print_ratio(scores: list[tuple[Run, float]]) -> None:
    if len(scores) < 2:
        return
    ours, f1 = scores[0]
    best_run, best = max(scores[1:], key=lambda item: item[1])
    speed = ours.pages_per_second() / best_run.pages_per_second() if best_run.seconds else 0.0
    print(
        f"\nnetsift / best peer ({best_run.name}): F1 {f1 / best:.3f}x, "
        f"speed {speed:.2f}x of that peer"
    )


def save(runs: list[Run], directory: Path) -> None:
    for run in runs:
        out = directory / run.name
        out.mkdir(parents=True, exist_ok=True)
        for page_id, text in run.predictions.items():
            (out / f"{page_id}.txt").write_text(text, encoding="utf-8")
        for page_id, text in run.markdown.items():
            (out / f"{page_id}.md").write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", choices=("extraction", "wcxb", "both"), default="extraction")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared bench folder")
    parser.add_argument("--limit", type=int, default=None, help="first N pages of each dataset")
    parser.add_argument("--types", default="", help="WCXB page types to keep, comma-separated")
    parser.add_argument(
        "--peers",
        default=DEFAULT_PEERS,
        help=f"comma-separated peers from {', '.join(PEERS)}, or 'none'",
    )
    parser.add_argument("--page-type", default="auto", help="page type handed to netsift")
    parser.add_argument(
        "--pool",
        action="store_true",
        help="netsift through its warm compute pool (Client.extract_isolated), pool CPU counted",
    )
    parser.add_argument(
        "--no-structure",
        action="store_true",
        help="skip the Markdown runs the structure score reads",
    )
    parser.add_argument("--save", type=Path, help="write each extractor's texts under this folder")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    wanted = ("extraction", "wcxb") if args.dataset == "both" else (args.dataset,)
    missing = [args.data / name for name in wanted if not (args.data / name / "score.py").is_file()]
    if missing:
        # The datasets are large and public, so they are not in the repository: say which
        # folder is absent and how to point at a copy, instead of a traceback from deep inside.
        for path in missing:
            print(
                f"bench/extraction.py: no dataset at {path} (expected score.py in it)",
                file=sys.stderr,
            )
        print("  get the datasets (see bench/README.md) and pass --data FOLDER", file=sys.stderr)
        return 2

    peers = [] if args.peers == "none" else [p.strip() for p in args.peers.split(",") if p.strip()]
    contenders = [
        netsift_contender(args.page_type, args.pool),
        *(peer_contender(name) for name in peers),
    ]
    shape = not args.no_structure

    if args.dataset in ("extraction", "both"):
        root = args.data / "extraction"
        scorer = load_module(root / "score.py", "extraction_score")
        docs = load_extraction(root, args.limit)
        runs = run_extractors(contenders, docs, shape)
        print_extraction([(run, score_extraction(scorer, docs, run)) for run in runs], len(docs))
        print_shapes("article set (paragraph breaks only)", docs, runs)
        if args.save:
            save(runs, args.save / "extraction")
    if args.dataset in ("wcxb", "both"):
        root = args.data / "wcxb"
        scorer = load_module(root / "score.py", "wcxb_score")
        types = {t.strip() for t in args.types.split(",") if t.strip()}
        docs = load_wcxb(root, scorer, args.limit, types)
        runs = run_extractors(contenders, docs, shape)
        print_wcxb([(run, score_wcxb(scorer, docs, run)) for run in runs], len(docs))
        print_shapes("WCXB (against main_content_markdown)", docs, runs)
        if args.save:
            save(runs, args.save / "wcxb")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
