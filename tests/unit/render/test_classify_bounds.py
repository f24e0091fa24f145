"""The JavaScript-shell check reads a page within the structure caps: lexbor, its parser, is
quadratic in nesting depth and in attributes, and the check ran on the server's event loop
(a million unclosed divs held every other request for minutes). time(2n)/time(n) stays near 2."""

from __future__ import annotations

import pytest

from netsift.render.step import classify_body
from tests.offline_web.hostile import unclosed_divs, wide_element
from tests.timing import least_cpu

# time(4n)/time(n): ~4 when linear, ~16 when quadratic; the margin absorbs a busy host
LINEAR = 8.0


@pytest.mark.parametrize(("build", "n"), [(unclosed_divs, 40_000), (wide_element, 20_000)])
def test_the_shell_check_is_linear_on_hostile_structure(build, n):
    small, large = build(n), build(4 * n)
    classify_body(small, "text/html")
    ratio = least_cpu(lambda: classify_body(large, "text/html")) / max(
        least_cpu(lambda: classify_body(small, "text/html")), 1e-6
    )
    assert ratio < LINEAR
    assert not classify_body(large, "text/html").shell
