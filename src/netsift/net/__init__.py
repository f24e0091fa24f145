"""The network layer: the SSRF guard, guarded transport, the one HTTP client, robots.txt."""
