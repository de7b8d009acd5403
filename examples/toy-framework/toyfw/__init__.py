"""toyfw: a toy multi-provider LLM framework (OpenAI Chat Completions and Anthropic Messages).

It exists to show how a framework adopts tool-result-conformance; it has two known bugs,
declared in its deviations file once `conformance init` has made one:

- Anthropic: a failed tool call is sent without `is_error` (see `anthropic.py`).
- OpenAI Chat: media a tool produced as user content moves to the user message without a
  marker naming its call (see `openai_chat.py`).
"""

from toyfw.messages import (
    Media,
    Message,
    ToolCall,
    ToolOutput,
    Unsupported,
    dumps,
    loads,
)
from toyfw.providers import Provider, provider

__all__ = [
    "Media",
    "Message",
    "Provider",
    "ToolCall",
    "ToolOutput",
    "Unsupported",
    "dumps",
    "loads",
    "provider",
]
__version__ = "0.3.0"
