"""Citation bundles: each source's facts for a reference, and the formats references go in."""
