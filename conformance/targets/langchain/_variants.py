"""The langchain target's variants: the other ways LangChain users hand tool results over.

- `langchain.source-type-blocks`: the tools' outputs as langchain-core v0 multimodal blocks
  (`{"type": "image", "source_type": "base64", "data": ..., "mime_type": ...}`, `file`,
  `audio`), which stored histories and older tools still hold and 1.x still reads; otherwise
  the main target's path (`invoke` on each integration's chat model).
- `langchain.native-blocks`: the tools' outputs as each provider's own blocks (`_formats.py`),
  as a user writes them from the provider's documentation; a part with no native form is a
  standard block.
- `langchain.openai-converter`: the main target's messages through langchain-core's
  `convert_to_openai_messages`, sent with the official `openai` SDK
  (`OpenAI(base_url=...).chat.completions.create`), the tools through
  `convert_to_openai_tool`, to the rows whose api is OpenAI's Chat Completions or compatible
  with it. langchain-anthropic has no public message converter (its `__init__` exports
  `ChatAnthropic`, `convert_to_anthropic_tool` and `AnthropicLLM`; `_format_messages` is
  private), so there is no Anthropic counterpart.
"""

from __future__ import annotations

from typing import Any, ClassVar

from conformance.history import History
from conformance.targets.base import RowRef
from conformance.targets.langchain import LangChainTarget, model
from conformance.targets.langchain._formats import native_block, source_type_block
from conformance.targets.langchain._messages import Block
from conformance.targets.langchain._models import API_KEY, ModelSpec

__all__ = [
    "CONVERTER_PATHS",
    "LangChainNativeBlocksTarget",
    "LangChainOpenAIConverterTarget",
    "LangChainSourceTypeBlocksTarget",
]


class LangChainSourceTypeBlocksTarget(LangChainTarget):
    """The main target with the tools' media as langchain-core v0 blocks."""

    name = "langchain.source-type-blocks"
    variant_of = "langchain"
    not_applicable: ClassVar[dict[str, str]] = {
        "content:video": (
            "langchain-core's v0 multimodal blocks are image, audio and file only"
            " (`_convert_v0_multimodal_input_to_v1` in"
            " langchain_core/messages/block_translators/langchain_v0.py): a v0 history holds"
            " no video"
        ),
    }

    def block_for(self, row: RowRef) -> Block:
        del row
        return source_type_block


class LangChainNativeBlocksTarget(LangChainTarget):
    """The main target with the tools' media as each provider's native blocks."""

    name = "langchain.native-blocks"
    variant_of = "langchain"

    def supports(self, row: RowRef) -> str | None:
        if native_block(row.api) is None:
            return f"the native-blocks variant has no native block format for api {row.api!r}"
        return super().supports(row)

    def block_for(self, row: RowRef) -> Block:
        block = native_block(row.api)
        assert block is not None  # `supports` turned the row down
        return block


def _client(path: str) -> ModelSpec:
    def build(row: RowRef, base: str) -> Any:
        from openai import OpenAI

        del row
        return OpenAI(api_key=API_KEY, base_url=base + path, max_retries=0)

    return ModelSpec(
        "openai",
        "openai",
        "openai",
        build,
        f'OpenAI(api_key="fake", base_url=BASE + {path!r}, max_retries=0)',
        call=(
            "from langchain_core.messages import convert_to_openai_messages\n"
            "from langchain_core.utils.function_calling import convert_to_openai_tool\n"
            "model.chat.completions.create(\n"
            "    model={model!r},\n"
            "    messages=convert_to_openai_messages(messages),\n"
            "    tools=[convert_to_openai_tool(t) for t in tools],\n"
            ")"
        ),
    )


CONVERTER_PATHS: dict[str, str] = {
    "openai-chat": "/v1",  # https://api.openai.com/v1
    "xai": "/v1",  # https://api.x.ai/v1, OpenAI-compatible
    "groq": "/openai/v1",  # https://api.groq.com/openai/v1, OpenAI-compatible
    "huggingface": "/v1",  # https://router.huggingface.co/v1, OpenAI-compatible
}
"""The rows the converter serves: Chat Completions and the apis compatible with it, each with
the path its OpenAI-compatible base URL ends in."""

_CLIENTS = {api: _client(path) for api, path in CONVERTER_PATHS.items()}


class LangChainOpenAIConverterTarget(LangChainTarget):
    """`convert_to_openai_messages` on the main target's messages, sent with the `openai`
    SDK's Chat Completions client."""

    name = "langchain.openai-converter"
    variant_of = "langchain"

    def __init__(self) -> None:
        super().__init__()
        self.sdk_versions = {
            k: v for k, v in self.sdk_versions.items() if k in {"langchain-core", "openai"}
        }

    def supports(self, row: RowRef) -> str | None:
        if self.unavailable is not None:
            return self.unavailable
        if row.api not in CONVERTER_PATHS:
            return (
                "convert_to_openai_messages gives OpenAI Chat Completions messages, which the"
                f" {row.api} api does not take (served: {', '.join(CONVERTER_PATHS)})"
            )
        return None

    def invoke(
        self, spec: ModelSpec, row: RowRef, base: str, tools: list[Any], messages: list[Any]
    ) -> None:
        from langchain_core.messages import convert_to_openai_messages
        from langchain_core.utils.function_calling import convert_to_openai_tool

        del spec
        client = model(_CLIENTS[row.api], row, base)
        client.chat.completions.create(
            model=row.model,
            messages=convert_to_openai_messages(messages),
            tools=[convert_to_openai_tool(t) for t in tools],
        )

    def repro(self, row: RowRef, history: History) -> str:
        from conformance.targets.langchain._repro import repro_script

        return repro_script(row, history, spec=_CLIENTS[row.api])
