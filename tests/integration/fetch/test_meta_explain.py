"""`meta --explain` over real HTTP: why a fetched page was read as its page type."""

from __future__ import annotations

from netsift.client import Client
from tests.offline_web.fixtures import OfflineWeb


async def test_explain_shows_each_signal_where_found_and_the_runner_up(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    url = offline_web.url("shop.test", "/product")
    card = await web_client.meta(url, explain=True)
    why = card.page_type_explanation
    assert why is not None and card.page_type == why.type == "product"
    assert why.rule.startswith("highest")
    schema = next(s for s in why.signals if s.signal == "schema=product")
    assert (schema.where, schema.type, schema.weight) == ("json-ld", "product", 4.0)
    assert {s.where for s in why.signals} >= {"json-ld", "body"}
    assert why.scores["product"] == max(why.scores.values())
    assert sum(s.weight for s in why.signals if s.type == "product") == why.scores["product"]
    if why.runner_up is not None:
        assert why.runner_up != "product"
        assert why.runner_up_score == why.scores[why.runner_up]


async def test_explain_names_the_rule_that_overruled_the_highest_total(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    # the pricing page is read as blocks; whatever decided, the explanation says which rule
    card = await web_client.meta(offline_web.url("pricing.test", "/plans"), explain=True)
    why = card.page_type_explanation
    assert why is not None and why.type == card.page_type == "service"
    assert any(s.type == "service" for s in why.signals) or not why.rule.startswith("highest")


async def test_a_card_without_explain_has_none(web_client: Client, offline_web: OfflineWeb) -> None:
    card = await web_client.meta(offline_web.url("shop.test", "/product"))
    assert card.page_type == "product" and card.page_type_explanation is None
