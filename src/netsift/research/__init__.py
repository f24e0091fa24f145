"""Research: plan → search → read → synthesize → verify citations → find gaps → repeat."""
