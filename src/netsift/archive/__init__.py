"""The Internet Archive's Wayback Machine: snapshots of a URL, a save, a snapshot as a page."""
