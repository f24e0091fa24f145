"""Agent tools: definitions for OpenAI, Anthropic and MCP, and a dispatcher that never raises."""

from .dispatch import Toolbox, dispatch
from .schemas import TOOLS, ToolFormat, definitions

__all__ = ["TOOLS", "ToolFormat", "Toolbox", "definitions", "dispatch"]
