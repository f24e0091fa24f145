"""One module per search provider; each builds requests and parses responses, no I/O.

Each module's docstring is that provider's page (official API, contract in shared/providers/).
The shared pieces are small and named for what they do: `status.py` (HTTP status → typed
error), `text.py` (markup → plain text), `dates.py` (provider dates → ISO dates) and
`region.py` (the region option → country and language). `search/registry.py` lists them.
"""
