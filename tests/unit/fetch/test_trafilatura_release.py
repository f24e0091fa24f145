"""Fails loudly on a new trafilatura release: netsift runs trafilatura 2.3.1's private
stages itself (fetch/stages.py) and replaces its baseline (fetch/fallback.py). On another
release it silently falls back to the public `extract`, slower and with the flattening
baseline, so an upgrade must be a decision: re-read `trafilatura_sequence` against
`stages._sequence`, then move `stages.RELEASE` and the digests below."""

from __future__ import annotations

import hashlib
import importlib
import inspect

import pytest
import trafilatura
from trafilatura.metadata import Document
from trafilatura.settings import Extractor

from netsift.fetch import stages

UPGRADE = (
    "fetch/stages.py runs trafilatura {release}'s private stages: compare its _sequence and "
    "_compare with the new trafilatura_sequence and compare_extraction, then update "
    "stages.RELEASE, stages.PRIVATE and COPIED here"
)
# The functions stages.py copies stage by stage, by a digest of their source: the same release
# number over patched sources (a fork, a local fix) is another pipeline all the same.
COPIED = {
    "trafilatura.core.trafilatura_sequence": "f03dc4d2946dacbd",
    "trafilatura.external.compare_extraction": "2d3d1ffea3ba469f",
    "trafilatura.external._prefer_readability": "f6ee688e9ae60074",
    "trafilatura.external.justext_rescue": "43d803082a76d38a",
    "trafilatura.baseline.html2txt": "a8c97eab2097c57d",
}


def _resolve(name: str) -> object:
    module, _, attr = name.rpartition(".")
    found = getattr(importlib.import_module(module), attr, None)
    assert found is not None, f"trafilatura has no {name} any more: " + UPGRADE.format(
        release=stages.RELEASE
    )
    return found


def test_the_installed_trafilatura_is_the_release_stages_was_written_for() -> None:
    assert trafilatura.__version__ == stages.RELEASE, (
        f"trafilatura {trafilatura.__version__} is installed; "
        + UPGRADE.format(release=stages.RELEASE)
    )
    assert stages.SUPPORTED, "a private name fetch/stages.py imports is gone from trafilatura"


@pytest.mark.parametrize("name", sorted(stages.PRIVATE))
def test_each_private_stage_keeps_the_signature_stages_calls(name: str) -> None:
    wanted = stages.PRIVATE[name]
    function = _resolve(name)
    assert callable(function)
    got = tuple(inspect.signature(function).parameters)
    assert got[: len(wanted)] == wanted, (
        f"{name}{got} no longer takes {wanted} first: " + UPGRADE.format(release=stages.RELEASE)
    )


@pytest.mark.parametrize("name", sorted(COPIED))
def test_the_copied_stages_are_the_sources_stages_copies(name: str) -> None:
    digest = hashlib.sha256(inspect.getsource(_resolve(name)).encode()).hexdigest()[:16]  # type: ignore[arg-type]
    assert digest == COPIED[name], f"{name} changed: " + UPGRADE.format(release=stages.RELEASE)


def test_the_settings_and_document_fields_stages_reads_are_there() -> None:
    options = Extractor()
    for field in ("min_output_size", "min_output_comm_size", "min_extracted_size", "focus"):
        assert hasattr(options, field), f"Extractor.{field} is gone"
    for field in ("comments", "format", "url", "images", "fast"):
        assert hasattr(options, field), f"Extractor.{field} is gone"
    document = Document()
    for field in ("raw_text", "commentsbody", "body", "fingerprint", "title"):
        assert hasattr(document, field), f"Document.{field} is gone"
