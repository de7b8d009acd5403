"""The langchain.source-type-blocks variant: the tools' media as langchain-core v0 blocks,
through the langchain target's integrations."""

from __future__ import annotations

import json

import pytest

from conformance.scenarios.build import scenario
from conformance.targets import resolve_target
from langchain_support import ROWS, run_repro, tool_messages

pytest.importorskip(
    "langchain_core",
    reason='LangChain is not installed: nox -s "target(langchain)"',
)

from conformance.targets.langchain import LangChainTarget, to_messages
from conformance.targets.langchain._formats import source_type_block
from conformance.targets.langchain._variants import LangChainSourceTypeBlocksTarget


def test_entry_point_is_a_variant_of_langchain_without_video() -> None:
    target = resolve_target("langchain.source-type-blocks")
    assert isinstance(target, LangChainSourceTypeBlocksTarget)
    assert (target.variant_of, target.version) == ("langchain", LangChainTarget().version)
    assert set(target.not_applicable) == {"content:video"}


def test_it_serves_the_rows_the_langchain_target_serves() -> None:
    main, variant = LangChainTarget(), LangChainSourceTypeBlocksTarget()
    served = {r for r, row in ROWS.items() if main.supports(row) is None}
    assert served
    assert {r for r, row in ROWS.items() if variant.supports(row) is None} == served


@pytest.mark.parametrize(
    ("content_type", "source", "expected"),
    [
        ("image", "inline", {"type": "image", "source_type": "base64", "mime_type": "image/png"}),
        ("image", "url", {"type": "image", "source_type": "url", "mime_type": "image/png"}),
        ("audio", "inline", {"type": "audio", "source_type": "base64", "mime_type": "audio/wav"}),
        ("document", "inline", {"type": "file", "source_type": "base64", "filename": "report.pdf"}),
    ],
)
def test_tool_messages_hold_v0_blocks(
    content_type: str, source: str, expected: dict[str, str]
) -> None:
    (block,) = to_messages(scenario(content_type, source, "result"), source_type_block)[2].content  # type: ignore[arg-type]
    assert isinstance(block, dict)
    assert expected.items() <= block.items()
    assert ("data" in block) == (source == "inline")
    assert ("url" in block) == (source == "url")
    assert "base64" not in block  # the 1.x key: this is not a standard block


def test_the_integrations_meet_the_standard_block_after_normalization() -> None:
    """`_normalize_messages` rewrites v0 blocks before ChatAnthropic converts them: the request
    is byte for byte the main target's."""
    row, history = ROWS["anthropic/claude-sonnet-5"], scenario("image", "inline", "result")
    variant = LangChainSourceTypeBlocksTarget().render(row, history)
    assert json.dumps(variant) == json.dumps(LangChainTarget().render(row, history))


def test_a_v0_file_name_moves_into_extras_on_the_wire() -> None:
    """langchain-mistralai sends a ToolMessage's blocks as is: the main target's block keeps
    `filename`, the normalized v0 block carries it in `extras`."""
    row, history = ROWS["mistral/mistral-medium"], scenario("document", "inline", "result")
    (variant,) = tool_messages(LangChainSourceTypeBlocksTarget().render(row, history))[0]["content"]
    (main,) = tool_messages(LangChainTarget().render(row, history))[0]["content"]
    assert (variant["type"], variant["extras"]) == ("file", {"filename": "report.pdf"})
    assert "filename" not in variant
    assert "source_type" not in variant
    assert main["filename"] == "report.pdf"
    assert "extras" not in main


def test_repro_writes_v0_blocks_and_prints_the_payload() -> None:
    row, history = ROWS["mistral/mistral-medium"], scenario("image", "url", "result")
    script = LangChainSourceTypeBlocksTarget().repro(row, history)
    assert "'source_type': 'url'" in script
    _, payload = run_repro(script)
    (block,) = tool_messages(payload)[0]["content"]
    assert block["type"] == "image"
    assert block["url"].endswith("/conformance/chart.png")


def test_a_video_part_is_the_standard_block() -> None:
    """v0 has no video type: a video part of a generated history (the matrix's video cells are
    n/a) is the 1.x block, so the property search goes on through it."""
    from conformance.history import Video

    video = Video(media_type="video/mp4", data=b"\x00", identifier="clip.mp4")
    assert source_type_block(video) == {"type": "video", "base64": "AA==", "mime_type": "video/mp4"}
