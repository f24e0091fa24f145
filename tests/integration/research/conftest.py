"""The research web and scripted LLM fixtures for every test in this directory."""

from tests.integration.research.fixtures import *  # noqa: F403
