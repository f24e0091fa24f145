"""The OpenAPI document matches what the server does: schemathesis against a live uvicorn.

Generated requests (valid and invalid) go to every operation; each answer must be no 5xx,
a status the document declares, a body matching its schema, and the right content type.
Search runs against the research web's SearXNG, fetches against the offline web (guard
on), research and chat against the research web and the scripted model. A second server
with research, chat and fetch switched off (and no model) must answer their routes with
the 503 `disabled` each of them declares.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import positive_data_acceptance

from netsift.config import Settings
from netsift.server import create_app
from tests.integration.research.fixtures import *  # noqa: F403
from tests.offline_web.llm import MODEL
from tests.offline_web.server import serve

# Fuzzing every route takes minutes: CI runs it as a step of its own (.ci/run), not in scripts/test.
pytestmark = pytest.mark.fuzz

MAX_EXAMPLES = 40
GUARDED = {"401", "429", "500", "503"}
BODY = {"400", "413", "422"}


def _settings(tmp_path_factory, provider_sims, offline_web, research_web, **overrides: Any):
    values = provider_sims.settings_values()
    values["resolve"] = provider_sims.pins + offline_web.pins + research_web.pins
    values["searxng_url"] = research_web.url("search.test")
    data = tmp_path_factory.mktemp("schemathesis")
    values.update(
        providers=["searxng"],
        data_dir=data,
        cache_url="memory://",
        jobs_url=f"sqlite:///{data / 'jobs.sqlite3'}",
        server_rate_limit="100000/minute",
        max_sleep=0.2,  # a generated sleep of an hour answers in 0.2 s
        timeout=5,
    )
    values.update(overrides)
    return Settings(**values)


@pytest.fixture(scope="module")
def live_url(tmp_path_factory, provider_sims, offline_web, research_web_server, llm_server):
    config = _settings(
        tmp_path_factory,
        provider_sims,
        offline_web,
        research_web_server,
        llm_model=MODEL,
        openai_base_url=llm_server.base_url,
    )
    with serve(create_app(config), lifespan="on") as server:
        yield server.url("")


@pytest.fixture(scope="module")
def switched_off_url(tmp_path_factory, provider_sims, offline_web, research_web_server):
    config = _settings(
        tmp_path_factory, provider_sims, offline_web, research_web_server, capabilities=["search"]
    )
    with serve(create_app(config), lifespan="on") as server:
        yield server.url("")


# The document does not depend on settings; the answers come from the live server.
schema = schemathesis.openapi.from_dict(create_app(Settings(_env_file=None)).openapi())


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


@schema.parametrize()
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_switched_off_capabilities_answer_what_they_declare(case, switched_off_url):
    # 503 is the honest answer here; every other check (declared status, error body) holds.
    response = case.call_and_validate(
        base_url=switched_off_url,
        timeout=15,
        excluded_checks=[positive_data_acceptance, not_a_server_error],
    )
    assert response.status_code != 500, response.text
    if response.status_code == 503 and case.path != "/readyz":
        assert response.json()["error"]["code"] == "disabled"


def test_document_declares_errors_and_streams():
    document = schema.raw_schema
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


def test_every_operation_declares_the_errors_it_can_give():
    keyed = create_app(Settings(_env_file=None, api_keys=["k"])).openapi()
    # FastAPI's own 422 body ({"detail": [...]}) is never sent: ours is the error shape.
    assert "HTTPValidationError" not in keyed["components"]["schemas"]
    for path, operations in keyed["paths"].items():
        for method, operation in operations.items():
            name = f"{method.upper()} {path}"
            declared = set(operation["responses"])
            if "security" in operation:  # behind the key: key, rate limit, starting, internal
                # (the metrics answer while the server is starting: no 503 there)
                guarded = GUARDED - {"503"} if path == "/metrics" else GUARDED
                assert declared >= guarded, (name, guarded - declared)
            if "requestBody" in operation:
                assert declared >= BODY, (name, BODY - declared)
            if operation.get("parameters"):
                assert "422" in declared, name
            for status, response in operation["responses"].items():
                if int(status) < 400 or path == "/readyz":
                    continue
                body = response["content"]["application/json"]["schema"]["$ref"]
                assert body.endswith("/ErrorBody"), (name, status)
    research = keyed["paths"]["/v1/research"]["post"]["responses"]
    assert research["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/FinishedResearch"
    )
    assert research["202"]["content"]["application/json"]["schema"]["$ref"].endswith("/JobView")
    chat = keyed["paths"]["/v1/chat/completions"]["post"]["responses"]["200"]["content"]
    assert {"application/json", "text/event-stream"} <= set(chat)
