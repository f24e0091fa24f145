"""Fails loudly on a new trafilatura release: netsift runs trafilatura 2.3.1's private
stages itself (fetch/stages.py) and replaces its baseline (fetch/fallback.py). On another
release it silently falls back to the public `extract`, slower and with the flattening
baseline, so an upgrade must be a decision: re-read `trafilatura_sequence` against
`stages._sequence`, then move `stages.RELEASE`."""

from __future__ import annotations

import trafilatura

from netsift.fetch import stages


def test_the_installed_trafilatura_is_the_release_stages_was_written_for() -> None:
    assert trafilatura.__version__ == stages.RELEASE, (
        f"trafilatura {trafilatura.__version__} is installed; fetch/stages.py runs the private "
        f"stages of {stages.RELEASE}: compare its _sequence with the new trafilatura_sequence "
        "and core.py's imports, then update stages.RELEASE"
    )
    assert stages.SUPPORTED, "a private name fetch/stages.py imports is gone from trafilatura"
