"""Storage chosen by URL: memory, SQLite (embedded default) or Redis (scaled out)."""
