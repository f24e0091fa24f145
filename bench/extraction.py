"""Main-content extraction benchmark: netsift beside trafilatura, readability-lxml and resiliparse.

Two public datasets, read from ../shared/bench (relative to the repository; override with
--data), scored by the scorers that ship with them, so the figures compare with published ones:

- extraction: the Scrapinghub/Zyte article-body benchmark (word 4-gram F1, mean P and R);
- wcxb: the WCXB multi-type benchmark (bag-of-words F1, mean over pages, per page type).

Every extractor runs on the same pages in the same process, interleaved page by page, and is
timed on the process CPU of the extraction call alone (reading and unzipping the pages is not
counted, nor one warm-up call per extractor that pays its lazy imports and one-time tables).

    .venv/bin/python bench/extraction.py --dataset both
    .venv/bin/python bench/extraction.py --dataset wcxb --limit 200 --types forum,product
    .venv/bin/python bench/extraction.py --dataset extraction --peers none --save /tmp/preds
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "bench"
PEERS = ("trafilatura", "trafilatura-precision", "readability", "resiliparse")
DEFAULT_PEERS = "trafilatura,readability,resiliparse"

Extractor = Callable[[str, str], str]


@dataclass
class Doc:
    id: str
    url: str
    html: str
    truth: str
    type: str = "article"


@dataclass
class Run:
    name: str
    predictions: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    failures: int = 0
    page_seconds: dict[str, float] = field(default_factory=dict)

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
        docs.append(Doc(page_id, item.get("url") or "", html, item.get("articleBody") or ""))
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
        docs.append(Doc(gt_path.stem, doc.get("url") or "", html, truth, kind))
        if limit and len(docs) >= limit:
            break
    return docs


def netsift_extractor(page_type: str) -> Extractor:
    from netsift.fetch.html import extract_html

    def run(html: str, url: str) -> str:
        return extract_html(html, url=url or None, format="text", page_type=page_type).content

    return run


def peer_extractor(name: str) -> Extractor:
    if name.startswith("trafilatura"):
        import trafilatura

        precision = name == "trafilatura-precision"

        def run_trafilatura(html: str, url: str) -> str:
            return trafilatura.extract(html, favor_precision=precision) or ""

        return run_trafilatura
    if name == "readability":
        import lxml.html
        from readability import Document

        def run_readability(html: str, url: str) -> str:
            summary = Document(html).summary(html_partial=True)
            return str(lxml.html.fromstring(summary).text_content()) if summary.strip() else ""

        return run_readability
    if name == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text

        def run_resiliparse(html: str, url: str) -> str:
            return str(extract_plain_text(html, main_content=True))

        return run_resiliparse
    raise SystemExit(f"unknown peer {name!r}; choose from {', '.join(PEERS)}")


def run_extractors(extractors: list[tuple[str, Extractor]], docs: list[Doc]) -> list[Run]:
    """Every extractor on every page, interleaved page by page (each page starts with the next
    extractor in turn) and timed on process CPU: on a shared machine, load that comes and goes
    falls on all of them alike instead of on whichever ran during it."""
    runs = [Run(name) for name, _ in extractors]
    if docs:  # untimed warm-up: lazy imports and one-time tables (justext stoplists) not counted
        for _, extract in extractors:
            try:
                extract(docs[0].html, docs[0].url)
            except Exception:
                pass
    for i, doc in enumerate(docs):
        for k in range(len(extractors)):
            j = (i + k) % len(extractors)
            run, extract = runs[j], extractors[j][1]
            started = time.process_time()
            try:
                text = extract(doc.html, doc.url)
            except Exception:  # a peer failing on one page scores that page as empty
                text = ""
                run.failures += 1
            run.page_seconds[doc.id] = time.process_time() - started
            run.seconds += run.page_seconds[doc.id]
            run.predictions[doc.id] = text
    return runs


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
    extractors: list[tuple[str, Extractor]] = [("netsift", netsift_extractor(args.page_type))]
    extractors += [(name, peer_extractor(name)) for name in peers]

    if args.dataset in ("extraction", "both"):
        root = args.data / "extraction"
        scorer = load_module(root / "score.py", "extraction_score")
        docs = load_extraction(root, args.limit)
        runs = run_extractors(extractors, docs)
        print_extraction([(run, score_extraction(scorer, docs, run)) for run in runs], len(docs))
        if args.save:
            save(runs, args.save / "extraction")
    if args.dataset in ("wcxb", "both"):
        root = args.data / "wcxb"
        scorer = load_module(root / "score.py", "wcxb_score")
        types = {t.strip() for t in args.types.split(",") if t.strip()}
        docs = load_wcxb(root, scorer, args.limit, types)
        runs = run_extractors(extractors, docs)
        print_wcxb([(run, score_wcxb(scorer, docs, run)) for run in runs], len(docs))
        if args.save:
            save(runs, args.save / "wcxb")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
