"""toyfw: a toy multi-provider LLM framework (OpenAI Chat Completions and Anthropic Messages).

It exists to show how a framework adopts tool-result-conformance; it has two known bugs,
declared in its deviations file once `conformance init` has made one:

- Anthropic: a failed tool call is sent without `is_error` (see `anthropic.py`).
- OpenAI Chat: of the media a turn's tools return, which the tool message cannot carry and
  toyfw moves to a user message, only the first call's is behind a line naming its call
  (see `openai_chat.py`).

A tool's output is a `ToolOutput`, nothing else: toyfw has no notion of content a tool adds
to the conversation as a user message, which its target declares not applicable.
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
