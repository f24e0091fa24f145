from netsift.crawl.frontier.order import (
    RELEVANCE_LEVELS,
    is_tail,
    path_pattern,
    priority,
    query_words,
    relevance,
)


def test_path_pattern_masks_digits_and_query_values():
    # a URL with a query is a view: the resource it shows (its last segment) is masked too
    assert path_pattern("http://www.Site.test/calendar/2031/07?view=week&d=3") == (
        "site.test/calendar/0/*?d&view"
    )
    assert path_pattern("http://site.test/guide/vat?print=1") == "site.test/guide/*?print"
    assert path_pattern("http://site.test/guide/?lang=de") == "site.test/guide/?lang"
    assert path_pattern("http://site.test/intro") == "site.test/intro"
    assert path_pattern("http://site.test/news/page/12") == "site.test/news/page/0"


def test_a_path_named_by_its_last_segment_is_patterned_by_it_alone():
    # a relative link's loop: every copy of /contact/ under another path is one pattern
    assert path_pattern("http://s.test/about/services/contact/") == "s.test/**/contact/"
    assert path_pattern("http://s.test/projects/porch/contact/") == "s.test/**/contact/"
    assert path_pattern("http://s.test/docs/intro") == "s.test/**/intro"
    assert is_tail("s.test/**/contact/") and not is_tail("s.test/contact/")
    # a numbered series keeps its directory (a calendar's months, an archive's pages)
    assert path_pattern("http://s.test/calendar/2031/07") == "s.test/calendar/0/0"
    assert path_pattern("http://s.test/s/sec12/p012.html") == "s.test/s/sec0/p0.html"


def test_path_pattern_masks_hex_ids_but_not_names():
    assert path_pattern("http://s.test/ideas/0c51905797") == "s.test/ideas/0"
    assert path_pattern("http://s.test/ideas/9fa2e01b7c") == "s.test/ideas/0"
    assert path_pattern("http://s.test/s/sec12/p012.html") == "s.test/s/sec0/p0.html"
    assert path_pattern("http://s.test/x/deadbeef") == "s.test/**/deadbeef"  # no digit: a word


def test_relevance_counts_query_words_in_path_and_anchor():
    words = query_words("Pricing plans")
    assert relevance("http://s.test/pricing", "See our plans", words) == 1.0
    assert relevance("http://s.test/blog/1", "Our story", words) == 0.0
    assert relevance("http://s.test/x", "anything", frozenset()) == 0.0


def test_a_relevant_link_goes_ahead_of_shallower_ones():
    assert priority(3, 1.0) < priority(1, 0.0)
    assert priority(2, 0.0) - priority(2, 1.0) == RELEVANCE_LEVELS
