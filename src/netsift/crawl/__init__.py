"""Map and crawl a site: its URLs (sitemaps, feeds, links) and its pages, within a scope."""
