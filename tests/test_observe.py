"""The classifier on hand-written payloads: one or more for every outcome.

Payloads are written here literally from the providers' documented shapes, not produced by
our mappers, so the classifier is tested on its own.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from conformance import marker
from conformance.errors import NoRequestSent, UnsupportedContent
from conformance.history import (
    ContentType,
    History,
    Image,
    Message,
    Text,
    ToolCall,
    ToolResult,
    ToolReturnProvenance,
)
from conformance.judging.observe import observe, refusal_types_of
from conformance.matrix import LOSSY, SEVERITY
from conformance.scenarios.build import TEXT_FIXTURE, fixture_part, scenario
from conformance.targets.kit import fixture_host

IMAGE = fixture_part("image")
assert isinstance(IMAGE, Image)
assert IMAGE.data is not None
PNG = IMAGE.data
B64 = base64.b64encode(PNG).decode()
DATA_URL = f"data:image/png;base64,{B64}"
MARK = marker.render("get_image", "call_1")


def chat(*tail: dict[str, Any], name: str = "get_image") -> dict[str, Any]:
    """An OpenAI chat body: the scenario's prompt and tool call, then `tail`."""
    return {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "Call the tool, then describe what it returned."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": name, "arguments": "{}"},
                    }
                ],
            },
            *tail,
        ],
    }


def tool(content: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": "call_1", "content": content}


def user(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(parts)}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


IMAGE_PART = {"type": "image_url", "image_url": {"url": DATA_URL}}
IMAGE_HISTORY = scenario("image", "inline", "result", calls=1)
TEXT_HISTORY = scenario("text", "inline", "result", calls=1)


def outcome_of(history: History, payload: dict[str, Any], api: str = "openai-chat") -> str:
    return observe(api, history, payload, None).outcome


def test_native_image_in_a_responses_function_output() -> None:
    payload = {
        "model": "gpt-5",
        "input": [
            {"role": "user", "content": "Call the tool, then describe what it returned."},
            {"type": "function_call", "call_id": "call_1", "name": "get_image", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": [{"type": "input_image", "image_url": DATA_URL}],
            },
        ],
    }
    assert outcome_of(IMAGE_HISTORY, payload, "openai-responses") == "native"


def test_fallback_marked() -> None:
    assert outcome_of(IMAGE_HISTORY, chat(tool(""), user(text(MARK), IMAGE_PART))) == (
        "fallback-marked"
    )


def test_a_target_may_word_its_own_marker() -> None:
    own = text("Output of tool get_image (id call_1):")
    assert outcome_of(IMAGE_HISTORY, chat(tool(""), user(own, IMAGE_PART))) == "fallback-marked"


def test_fallback_without_marker_is_unmarked() -> None:
    assert outcome_of(IMAGE_HISTORY, chat(tool(""), user(IMAGE_PART))) == "fallback-unmarked"


def test_marker_after_the_media_does_not_count() -> None:
    payload = chat(tool(""), user(IMAGE_PART, text(MARK)))
    assert outcome_of(IMAGE_HISTORY, payload) == "fallback-unmarked"


def test_marker_naming_a_longer_id_does_not_count() -> None:
    own = text("Output of tool get_image (id call_12):")
    assert outcome_of(IMAGE_HISTORY, chat(tool(""), user(own, IMAGE_PART))) == "fallback-unmarked"


def test_media_before_its_tool_result_is_unmarked() -> None:
    payload = chat(user(text(MARK), IMAGE_PART), tool(""))
    observation = observe("openai-chat", IMAGE_HISTORY, payload, None)
    assert observation.outcome == "fallback-unmarked"
    assert "before its tool result" in observation.items[0].detail


def test_user_text_that_looks_like_a_marker_is_not_provenance() -> None:
    """A user's own text is sent verbatim and never taken for a marker: provenance comes from
    the structure of the history, not from trusting text."""
    history: History = [
        Message(role="user", content=MARK),
        ToolCall(tool_call_id="call_1", name="get_image"),
        ToolResult(tool_call_id="call_1", name="get_image", content=[IMAGE]),
    ]
    payload = chat(tool(""), user(text(MARK), IMAGE_PART))
    payload["messages"][0]["content"] = MARK
    assert outcome_of(history, payload) == "fallback-unmarked"


def _prompt_text_history(said: str) -> History:
    """A user message saying `said`, one call, and its prompt-style text `said` too."""
    return [
        Message(role="user", content=said),
        ToolCall(tool_call_id="call_1", name="get_text"),
        ToolResult(tool_call_id="call_1", name="get_text", content=[Text(text="Done.")]),
        Message(
            role="user",
            content=[Text(text=said)],
            source=ToolReturnProvenance(tool_name="get_text", tool_call_id="call_1"),
        ),
    ]


def test_prompt_text_after_its_result_is_found_past_the_same_text_said_earlier() -> None:
    """The same string may be the user's own, before the call: the tool's copy after its
    result is where it belongs, and the text is carried (unmarked, a provenance matter)."""
    payload = chat(tool("Done."), user(text("same")), name="get_text")
    payload["messages"][0]["content"] = "same"
    observation = observe("openai-chat", _prompt_text_history("same"), payload, None)
    prompt = observation.items[-1]
    assert prompt.identical, prompt.detail
    assert prompt.detail == "prompt-style text in a user message after its tool result, unmarked"


def test_prompt_text_after_its_result_is_found_past_the_same_text_another_call_returned() -> None:
    history: History = [
        Message(role="user", content="Call the tools."),
        ToolCall(tool_call_id="call_1", name="get_text"),
        ToolCall(tool_call_id="call_2", name="get_text"),
        ToolResult(tool_call_id="call_1", name="get_text", content=[Text(text="Done.")]),
        ToolResult(tool_call_id="call_2", name="get_text", content=[Text(text="same")]),
        Message(
            role="user",
            content=[Text(text="same")],
            source=ToolReturnProvenance(tool_name="get_text", tool_call_id="call_1"),
        ),
    ]
    calls = [
        {"id": c, "type": "function", "function": {"name": "get_text", "arguments": "{}"}}
        for c in ("call_1", "call_2")
    ]
    payload: dict[str, Any] = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "Call the tools."},
            {"role": "assistant", "content": None, "tool_calls": calls},
            {"role": "tool", "tool_call_id": "call_1", "content": "Done."},
            {"role": "tool", "tool_call_id": "call_2", "content": "same"},
            user(text("same")),
        ],
    }
    observation = observe("openai-chat", history, payload, None)
    prompt = observation.items[-1]
    assert prompt.call_id == "call_1"
    assert prompt.identical, prompt.detail
    # ...and without the user message, the other call's copy is all there is: misplaced.
    del payload["messages"][-1]
    prompt = observe("openai-chat", history, payload, None).items[-1]
    assert not prompt.identical
    assert prompt.detail == "in the tool result of 'call_2'"


def test_prompt_text_only_before_its_result_is_not_carried() -> None:
    """...while the user's own copy alone does not carry it."""
    payload = chat(tool("Done."), name="get_text")
    payload["messages"][0]["content"] = "same"
    prompt = observe("openai-chat", _prompt_text_history("same"), payload, None).items[-1]
    assert not prompt.identical
    assert prompt.detail == "in a user message before its tool result"


def test_raised() -> None:
    error = UnsupportedContent(
        api="cohere",
        model="m",
        content_type="audio",
        tool_name="get_audio",
        tool_call_id="call_1",
        reason="no",
    )
    observation = observe("cohere", IMAGE_HISTORY, None, error)
    assert observation.outcome == "raised"
    assert observation.raised is not None
    assert "get_audio" in observation.raised


def test_dropped() -> None:
    assert outcome_of(IMAGE_HISTORY, chat(tool(""))) == "dropped"


def test_noted() -> None:
    observation = observe("openai-chat", IMAGE_HISTORY, chat(tool("[image omitted]")), None)
    assert observation.outcome == "noted"
    assert "image omitted" in observation.items[0].detail


def test_stringified_base64() -> None:
    assert outcome_of(IMAGE_HISTORY, chat(tool(f'{{"image": "{B64}"}}'))) == "stringified"


def test_stringified_bytes_repr() -> None:
    assert outcome_of(IMAGE_HISTORY, chat(tool(str(PNG)))) == "stringified"


def test_text_native_byte_for_byte() -> None:
    assert outcome_of(TEXT_HISTORY, chat(tool(TEXT_FIXTURE), name="get_text")) == "native"
    payload = chat(tool([text(TEXT_FIXTURE)]), name="get_text")
    assert outcome_of(TEXT_HISTORY, payload) == "native"


def test_text_with_whitespace_changed_is_altered() -> None:
    tidy = TEXT_FIXTURE.replace("\r\n", "\n").rstrip()
    assert outcome_of(TEXT_HISTORY, chat(tool(tidy), name="get_text")) == "altered"


def test_text_wrapped_is_altered() -> None:
    wrapped = marker.render("get_text", "call_1") + TEXT_FIXTURE
    assert outcome_of(TEXT_HISTORY, chat(tool(wrapped), name="get_text")) == "altered"


def test_text_behind_an_added_marker_part_is_altered() -> None:
    payload = chat(
        tool([text(marker.render("get_text", "call_1")), text(TEXT_FIXTURE)]), name="get_text"
    )
    assert outcome_of(TEXT_HISTORY, payload) == "altered"


def test_text_json_escaped_is_stringified() -> None:
    for ascii_only in (False, True):
        body = json.dumps({"result": TEXT_FIXTURE}, ensure_ascii=ascii_only)
        assert outcome_of(TEXT_HISTORY, chat(tool(body), name="get_text")) == "stringified"


def test_text_dropped() -> None:
    assert outcome_of(TEXT_HISTORY, chat(tool(""), name="get_text")) == "dropped"


def test_rewritten_call_ids_are_followed_through_the_wire_tool_call() -> None:
    payload = chat(
        {"role": "tool", "tool_call_id": "tc_9", "content": ""},
        user(text(marker.render("get_image", "tc_9")), IMAGE_PART),
    )
    payload["messages"][1]["tool_calls"][0]["id"] = "tc_9"
    assert outcome_of(IMAGE_HISTORY, payload) == "fallback-marked"


def test_anthropic_native_and_error_flag_ignored_for_outcome() -> None:
    payload: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "Call the tool, then describe what it returned."},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "call_1", "name": "get_image", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "call_1",
                        "content": [
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": B64,
                                },
                            }
                        ],
                    }
                ],
            },
        ],
    }
    assert outcome_of(IMAGE_HISTORY, payload, "anthropic") == "native"


def test_the_cell_outcome_is_the_worst_item() -> None:
    history: History = [
        Message(role="user", content="go"),
        ToolCall(tool_call_id="call_1", name="get_image"),
        ToolResult(tool_call_id="call_1", name="get_image", content=[Text(text="chart:"), IMAGE]),
    ]
    payload = chat(tool("chart:"))
    payload["messages"][0]["content"] = "go"
    observation = observe("openai-chat", history, payload, None)
    assert [i.outcome for i in observation.items] == ["native", "dropped"]
    assert observation.outcome == "dropped"


# --- typed refusals, exact media accounting, malformed payloads, URLs ------------------------


def test_only_a_declared_refusal_type_is_raised() -> None:
    error = ValueError("cannot send audio\nsecond line")
    crashed = observe("cohere", IMAGE_HISTORY, None, error)
    assert crashed.outcome == "crashed"
    assert crashed.raised == "ValueError: cannot send audio"
    assert crashed.refusal is None
    typed = observe("cohere", IMAGE_HISTORY, None, error, refusal_types=(ValueError,))
    assert typed.outcome == "raised"
    assert typed.refusal == "builtins.ValueError"


def test_the_suites_own_errors_are_never_a_refusal() -> None:
    error = NoRequestSent("nothing was sent")
    observation = observe("cohere", IMAGE_HISTORY, None, error, refusal_types=(Exception,))
    assert observation.outcome == "crashed"


def test_refusal_types_fall_back_to_unsupported_error_then_unsupported_content() -> None:
    class Declares:
        refusal_types = (KeyError, ValueError)

    class Older:
        unsupported_error = LookupError

    assert refusal_types_of(Declares()) == (KeyError, ValueError)
    assert refusal_types_of(Older()) == (LookupError,)
    assert refusal_types_of(object()) == (UnsupportedContent,)


def test_media_sent_twice_is_duplicated() -> None:
    payload = chat(tool(""), user(text(MARK), IMAGE_PART, IMAGE_PART))
    observation = observe("openai-chat", IMAGE_HISTORY, payload, None)
    assert observation.outcome == "duplicated"
    assert observation.items[0].placed == "fallback-marked"
    assert "2 times" in observation.items[0].detail


def test_the_same_bytes_from_two_calls_are_not_duplicates() -> None:
    history: History = [
        Message(role="user", content="go"),
        ToolCall(tool_call_id="call_1", name="get_image"),
        ToolCall(tool_call_id="call_2", name="get_image"),
        ToolResult(tool_call_id="call_1", name="get_image", content=[IMAGE]),
        ToolResult(tool_call_id="call_2", name="get_image", content=[IMAGE]),
    ]
    two = marker.render("get_image", "call_2")
    payload = chat(
        tool(""),
        {"role": "tool", "tool_call_id": "call_2", "content": ""},
        user(text(MARK), IMAGE_PART, text(two), IMAGE_PART),
    )
    payload["messages"][0]["content"] = "go"
    payload["messages"][1]["tool_calls"].append(
        {"id": "call_2", "type": "function", "function": {"name": "get_image", "arguments": "{}"}}
    )
    observation = observe("openai-chat", history, payload, None)
    assert [i.outcome for i in observation.items] == ["fallback-marked", "fallback-marked"]
    assert [i.where for i in observation.items] == [
        "messages[4].content[1]",
        "messages[4].content[3]",
    ]


def test_a_wrong_data_url_type_is_altered_media_type() -> None:
    wrong = {"type": "image_url", "image_url": {"url": DATA_URL.replace("png", "jpeg", 1)}}
    observation = observe(
        "openai-chat", IMAGE_HISTORY, chat(tool(""), user(text(MARK), wrong)), None
    )
    assert observation.outcome == "altered: media type"
    assert "'image/jpeg'" in observation.items[0].detail


def _data_url(content_type: ContentType) -> tuple[History, str]:
    history = scenario(content_type, "inline", "result", calls=1)
    part = fixture_part(content_type)
    assert not isinstance(part, Text)
    assert part.data is not None
    return history, f"data:{part.media_type};base64,{base64.b64encode(part.data).decode()}"


def test_media_in_a_part_of_another_media_type_is_malformed_not_carried() -> None:
    """Each api part holds the media type it is defined for: a PDF in an `image_url` is
    refused ("Invalid MIME type. Only image types are supported.", BerriAI/litellm#6120), an
    audio file in a Chat `file` part too (it takes PDFs, trpc-group/trpc-agent-go#1816), so
    neither is a fallback, although the media type the payload states is the history's."""
    document, pdf = _data_url("document")
    audio, wav = _data_url("audio")
    video, mp4 = _data_url("video")
    cases = [
        (document, "get_document", {"type": "image_url", "image_url": {"url": pdf}}, "image"),
        (audio, "get_audio", {"type": "file", "file": {"file_data": wav}}, "document"),
        (video, "get_video", {"type": "image_url", "image_url": {"url": mp4}}, "image"),
    ]
    for history, name, part, carries in cases:
        payload = chat(tool(""), user(text(marker.render(name, "call_1")), part), name=name)
        observation = observe("openai-chat", history, payload, None)
        item = observation.items[0]
        assert observation.outcome == "malformed", (name, observation.detail)
        assert item.where == "messages[3].content[1]"
        assert item.placed == "fallback-marked", "where it sits is still said"
        assert f"{carries} part, which openai-chat defines for" in item.detail, item.detail
    # The same documents in the parts defined for them are carried.
    right = {"type": "file", "file": {"file_data": pdf, "filename": "report.pdf"}}
    payload = chat(
        tool(""), user(text(marker.render("get_document", "call_1")), right), name="get_document"
    )
    assert outcome_of(document, payload) == "fallback-marked"


def gemini(*parts: dict[str, Any]) -> dict[str, Any]:
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "Call the tool, then describe what it returned."}]},
            {"role": "model", "parts": [{"functionCall": {"id": "call_1", "name": "get_image"}}]},
            {"role": "user", "parts": list(parts)},
        ]
    }


def test_a_wrong_gemini_mime_type_is_altered_media_type() -> None:
    response: dict[str, Any] = {
        "functionResponse": {
            "id": "call_1",
            "name": "get_image",
            "response": {},
            "parts": [{"inlineData": {"mimeType": "image/webp", "data": B64}}],
        }
    }
    assert outcome_of(IMAGE_HISTORY, gemini(response), "gemini") == "altered: media type"


def bedrock(image: dict[str, Any]) -> dict[str, Any]:
    return {
        "modelId": "m",
        "messages": [
            {
                "role": "user",
                "content": [{"text": "Call the tool, then describe what it returned."}],
            },
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "call_1", "name": "get_image", "input": {}}}],
            },
            {
                "role": "user",
                "content": [{"toolResult": {"toolUseId": "call_1", "content": [{"image": image}]}}],
            },
        ],
    }


def test_a_wrong_bedrock_format_is_altered_media_type() -> None:
    payload = bedrock({"format": "gif", "source": {"bytes": B64}})
    assert outcome_of(IMAGE_HISTORY, payload, "bedrock-converse") == "altered: media type"


def test_corrupt_bedrock_bytes_are_altered_bytes_not_dropped() -> None:
    payload = bedrock({"format": "png", "source": {"bytes": "%%% not base64 %%%"}})
    observation = observe("bedrock-converse", IMAGE_HISTORY, payload, None)
    assert observation.outcome == "altered: bytes"
    assert "do not decode" in observation.items[0].detail


def test_truncated_media_is_altered_bytes_not_stringified() -> None:
    half = base64.b64encode(PNG[: len(PNG) // 2]).decode()
    cut = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{half}"}}
    observation = observe("openai-chat", IMAGE_HISTORY, chat(tool(""), user(text(MARK), cut)), None)
    assert observation.outcome == "altered: bytes"
    assert observation.items[0].placed == "fallback-marked"


def test_filler_text_next_to_carried_media_is_not_a_note() -> None:
    """One call's media carried with the provider's own filler text; the other call's media
    dropped: that one is dropped, not `noted` by the first one's filler."""
    other = IMAGE.model_copy(update={"data": PNG + b"\0", "identifier": "other.png"})
    history: History = [
        Message(role="user", content="go"),
        ToolCall(tool_call_id="call_1", name="get_image"),
        ToolResult(tool_call_id="call_1", name="get_image", content=[IMAGE, other]),
    ]
    payload = chat(tool(""), user(text(MARK), text("Here is the image:"), IMAGE_PART))
    payload["messages"][0]["content"] = "go"
    observation = observe("openai-chat", history, payload, None)
    assert [i.outcome for i in observation.items] == ["fallback-marked", "dropped"]


def test_an_undefined_part_shape_is_malformed_with_its_path() -> None:
    """OpenAI's `input_audio` object sent to Mistral, whose AudioChunk takes a string."""
    history = scenario("audio", "inline", "result")
    audio = {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}
    payload = chat(tool(""), user(text(marker.render("get_audio", "call_1")), audio))
    observation = observe("mistral", history, payload, None)
    assert observation.outcome == "malformed"
    assert observation.malformed == (
        "messages[3].content[1].input_audio: expected a string, got dict"
    )
    assert observation.detail.startswith("malformed payload at messages[3].content[1]")


def url_history(name: str = "chart.png") -> History:
    part = IMAGE.model_copy(update={"data": None, "url": fixture_host().url(name)})
    return [
        Message(role="user", content="Call the tool, then describe what it returned."),
        ToolCall(tool_call_id="call_1", name="get_image"),
        ToolResult(tool_call_id="call_1", name="get_image", content=[part]),
    ]


def test_a_url_sent_as_a_url() -> None:
    history = url_history()
    sent = {"type": "image_url", "image_url": {"url": fixture_host().url("chart.png")}}
    observation = observe("openai-chat", history, chat(tool(""), user(text(MARK), sent)), None)
    assert (observation.outcome, observation.url) == ("fallback-marked", "sent-url")
    assert observation.items[0].sent_as == "url"


def test_a_url_downloaded_and_sent_as_bytes() -> None:
    history = url_history()
    fetched = ["/conformance/chart.png"]
    payload = chat(tool(""), user(text(MARK), IMAGE_PART))
    observation = observe("openai-chat", history, payload, None, fetched=fetched)
    assert (observation.outcome, observation.url) == ("fallback-marked", "downloaded")
    assert observation.items[0].sent_as == "bytes"


def test_a_url_downloaded_then_dropped_or_refused() -> None:
    history = url_history()
    fetched = ["/conformance/chart.png"]
    dropped = observe("openai-chat", history, chat(tool("")), None, fetched=fetched)
    assert (dropped.outcome, dropped.url) == ("dropped", "downloaded")
    error = UnsupportedContent(
        api="a", model="m", content_type="image", tool_name="t", tool_call_id="c", reason="r"
    )
    refused = observe("openai-chat", history, None, error)
    assert (refused.outcome, refused.url) == ("raised", "not-fetched")


def test_a_downloaded_url_whose_bytes_changed_is_altered_bytes() -> None:
    history = url_history()
    half = base64.b64encode(PNG[: len(PNG) // 2]).decode()
    cut = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{half}"}}
    payload = chat(tool(""), user(text(MARK), cut))
    observation = observe("openai-chat", history, payload, None, fetched=["/conformance/chart.png"])
    assert (observation.outcome, observation.url) == ("altered: bytes", "downloaded")


def test_a_broken_marker_names_no_call() -> None:
    broken = text('<conformance:tool_return tool_name="get "x"" tool_call_id="call_1" />')
    history = [*IMAGE_HISTORY[:1], ToolCall(tool_call_id="call_1", name='get "x"')]
    history.append(ToolResult(tool_call_id="call_1", name='get "x"', content=[IMAGE]))
    payload = chat(tool(""), user(broken, IMAGE_PART), name='get "x"')
    assert outcome_of(history, payload) == "fallback-unmarked"


def test_severity_is_worst_first_and_lossy_is_documented() -> None:
    assert SEVERITY[:3] == ("crashed", "malformed", "dropped")
    assert SEVERITY.index("altered: bytes") < SEVERITY.index("duplicated")
    assert SEVERITY.index("duplicated") < SEVERITY.index("fallback-unmarked")
    assert SEVERITY[-2:] == ("native", "raised")
    assert frozenset(SEVERITY[: SEVERITY.index("fallback-unmarked")]) == LOSSY


def test_media_in_a_block_type_the_api_does_not_define_is_malformed() -> None:
    """A `video_url` part (not a Chat Completions type) holding the history's video: found,
    but in a shape the api does not define."""
    history = scenario("video", "inline", "result")
    video = fixture_part("video")
    assert video.type == "video"
    assert video.data is not None
    url = f"data:video/mp4;base64,{base64.b64encode(video.data).decode()}"
    block = {"type": "video_url", "video_url": {"url": url}}
    mark = text(marker.render("get_video", "call_1"))
    payload = chat(tool(""), user(mark, block), name="get_video")
    observation = observe("openai-chat", history, payload, None)
    assert observation.outcome == "malformed"
    assert observation.malformed is None, "the payload itself was read"
    item = observation.items[0]
    assert (item.where, item.placed) == ("messages[3].content[1]", "fallback-marked")
    assert "'video_url' block, which openai-chat does not define" in item.detail


def test_a_framework_neutral_base64_block_is_found_and_malformed_not_dropped() -> None:
    """LangChain's standard block (`{"type": "image", "base64": ..., "mime_type": ...}`) sent
    as is in a tool message: the image is there, in a shape the api does not define. Without
    reading `base64` it would look dropped, a different bug than the one the target has."""
    block = {"type": "image", "base64": B64, "mime_type": "image/png"}
    observation = observe("openai-chat", IMAGE_HISTORY, chat(tool([block])), None)
    assert observation.outcome == "malformed"
    (item,) = observation.items
    assert item.where == "messages[2].content[0]"
    assert "'image' block, which openai-chat does not define" in item.detail
