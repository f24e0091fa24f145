"""`python -m netsift` runs the CLI."""

from .cli import main

main()
