"""The OpenAPI document matches what the server does: schemathesis against a live uvicorn.

Generated requests (valid and invalid) go to every operation; each answer must be no 5xx,
a status the document declares, a body matching its schema, and the right content type.
Search runs against the tavily simulator, fetches against the offline web (guard on).
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from netsift.config import Settings
from netsift.server import create_app
from tests.offline_web.server import serve

MAX_EXAMPLES = 40


def _settings(tmp_path_factory, provider_sims, offline_web) -> Settings:
    values = provider_sims.settings_values()
    values["resolve"] = provider_sims.pins + offline_web.pins
    return Settings(
        **values,
        providers=["tavily"],
        capabilities=["search", "fetch"],
        data_dir=tmp_path_factory.mktemp("schemathesis"),
        cache_url="memory://",
        server_rate_limit="100000/minute",
        timeout=5,
    )


@pytest.fixture(scope="module")
def live_url(tmp_path_factory, provider_sims, offline_web):
    app = create_app(_settings(tmp_path_factory, provider_sims, offline_web))
    with serve(app, lifespan="on") as server:
        yield server.url("")


# The document does not depend on settings; the answers come from the live server.
full = schemathesis.openapi.from_dict(create_app(Settings(_env_file=None)).openapi())
# The research-side routes (research, chat, sleeps, discoveries) have their own owner and tests.
schema = full.include(path_regex=r"^/(v1/(search|fetch|meta|info|ws)|healthz|readyz|metrics)")


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_api_conforms_to_its_openapi(case, live_url):
    # A schema cannot say which URLs parse or which provider names exist: such requests are
    # schema-valid yet rightly refused with 400, so "valid data is accepted" is not checked.
    case.call_and_validate(
        base_url=live_url, timeout=15, excluded_checks=[positive_data_acceptance]
    )


def test_document_declares_errors_and_streams():
    document = full.raw_schema
    search = document["paths"]["/v1/search"]["post"]
    assert "text/event-stream" in search["responses"]["200"]["content"]
    for status in ("400", "422", "429", "502", "503"):
        ref = search["responses"][status]["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith("/ErrorBody")
    fetch = document["paths"]["/v1/fetch"]["post"]["responses"]
    assert {"403", "404", "413", "504"} <= set(fetch)
    assert "securitySchemes" not in document["components"]  # no keys: no auth to declare
    keyed = create_app(Settings(_env_file=None, api_keys=["k"])).openapi()
    assert keyed["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    assert keyed["paths"]["/v1/search"]["post"]["security"] == [{"HTTPBearer": []}]
    assert "401" in keyed["paths"]["/v1/search"]["post"]["responses"]
