from netsift.crawl.frontier.order import (
    RELEVANCE_LEVELS,
    path_pattern,
    priority,
    query_words,
    relevance,
)


def test_path_pattern_masks_digits_and_query_values():
    assert path_pattern("http://www.Site.test/calendar/2031/07?view=week&d=3") == (
        "site.test/calendar/0/0?d&view"
    )
    assert path_pattern("http://site.test/docs/intro") == "site.test/docs/intro"


def test_relevance_counts_query_words_in_path_and_anchor():
    words = query_words("Pricing plans")
    assert relevance("http://s.test/pricing", "See our plans", words) == 1.0
    assert relevance("http://s.test/blog/1", "Our story", words) == 0.0
    assert relevance("http://s.test/x", "anything", frozenset()) == 0.0


def test_a_relevant_link_goes_ahead_of_shallower_ones():
    assert priority(3, 1.0) < priority(1, 0.0)
    assert priority(2, 0.0) - priority(2, 1.0) == RELEVANCE_LEVELS
