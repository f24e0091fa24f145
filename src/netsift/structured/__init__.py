"""Structured extraction: a JSON Schema (and/or a prompt) in, typed data out, every field with
the verbatim passage and URL it came from (docs/structured.md).

`extract.py` runs it (sources, budgets, the two modes), `model.py` holds the answer,
`schema.py` checks a caller's schema, `page_data.py` fills it without a model from the page's
structured data, `llm_fill.py` with one, `evidence.py` checks what a value stands on, and
`summary.py` writes a page's summary with citations. Nothing is imported here, so that
`params.py` can check a schema without loading the rest.
"""
