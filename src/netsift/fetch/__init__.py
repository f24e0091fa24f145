"""Fetching pages and turning them into clean content with metadata."""
