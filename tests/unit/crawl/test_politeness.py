from netsift.crawl.politeness import (
    DEFAULT_CONCURRENCY,
    MAX_CRAWL_DELAY,
    MAX_RETRY_AFTER,
    backoff,
    host_policy,
)


def test_a_crawl_delay_means_one_at_a_time_that_far_apart():
    assert host_policy(None).concurrency == DEFAULT_CONCURRENCY
    assert host_policy(None).delay == 0
    polite = host_policy(2.5)
    assert (polite.delay, polite.concurrency) == (2.5, 1)


def test_hostile_delays_are_capped():
    assert host_policy(86_400).delay == MAX_CRAWL_DELAY
    assert backoff(10**9, 1) == MAX_RETRY_AFTER


def test_backoff_honours_retry_after_else_doubles():
    assert backoff(3, 1) == 3
    assert [backoff(None, tries) for tries in (1, 2, 3)] == [1.0, 2.0, 4.0]
    assert backoff("soon", 2) == 2.0  # not a number: the doubling rule


def test_the_concurrency_setting_applies_only_to_a_host_that_asked_nothing():
    assert host_policy(None, concurrency=32).concurrency == 32
    assert host_policy(2.5, concurrency=32).concurrency == 1  # its Crawl-delay wins
