"""Search across providers: failover, cache, limits, de-duplication and ranking."""
