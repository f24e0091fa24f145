"""Change tracking: a page compared with its caller's previous reading of it (Firecrawl's
`changeTracking` format, docs/compat-firecrawl.md).

`store.py` keeps each caller's last reading of a URL (under a tag) beside the jobs, bounded;
`compare.py` holds the rules: whether two readings differ (Firecrawl's), their unified diff
and its parsed form, and a schema's fields compared; `tracker.py` runs one comparison and
records the new reading; `model.py` holds what it answers. Nothing is imported here.
"""
