"""One module per search provider; each builds requests and parses responses, no I/O."""
