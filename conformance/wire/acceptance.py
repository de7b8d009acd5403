"""Provider acceptance rules: where blocks may sit, beyond which blocks exist.

A provider can refuse a request although every block in it is defined, for where the blocks
sit: what must come right after a tool call, what may share a message with tool results, how
many results a turn takes. `breaches(api, payload)` lists the rules a request body breaks, each
with the provider's own error text and the source that quotes it. The `api-accepts` check
fails on any breach, and the local provider double (`conformance.recording.double`) answers a
request that breaks one with the provider's status and error body.

Only rules whose refusal is quoted from the provider (its documentation, or its error body in a
public issue) are enforced. Rules that are model-dependent or that sources contradict are not,
and are listed, with why, next to each api's rules. The rules read the raw request body, which
the api's wire locator has already read without a shape error (`conformance.wire.locate`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, cast

__all__ = ["RULES", "Breach", "breaches"]


@dataclass(frozen=True)
class Breach:
    """One acceptance rule a request breaks."""

    rule: str
    """The rule's id, e.g. `OC-1`."""
    path: str
    """Where in the body the provider reports it, e.g. `messages[3]`."""
    message: str
    """The provider's error message for it, as the provider words it."""
    source: str
    """Where the rule and its error text are quoted."""

    def __str__(self) -> str:
        return f"{self.rule} at {self.path}: {self.message} ({self.source})"


def _objects(value: object) -> list[Mapping[str, Any]]:
    if not isinstance(value, list):
        return []
    return [
        cast("Mapping[str, Any]", v) for v in cast("list[object]", value) if isinstance(v, dict)
    ]


def _blocks(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return _objects(message.get("content"))


def _ids(values: Sequence[str]) -> str:
    return ", ".join(values)


# --- openai-chat ------------------------------------------------------------------------------
#
# Not enforced: an `image_url` part in a tool message (400 "Image URLs are only allowed for
# messages with role 'user'" in 2025, OpenHands/OpenHands#7700; accepted and not read by newer
# models, openai/openai-openapi#523): model- and date-dependent. Order within a turn: results
# are paired by id, not position (a community answer), so out-of-order results are accepted.

_OC = "https://github.com/sdcb/chats/issues/132 (the provider's 400 body), BerriAI/litellm#10083"
_OC2 = "https://github.com/smarter-sh/smarter/issues/264 (the provider's 400 body)"


def _openai_chat(body: Mapping[str, Any]) -> list[Breach]:
    """OC-1: an assistant message with `tool_calls` is followed directly by `role: "tool"`
    messages, one per `tool_call_id`, no other role between. OC-2: a tool message answers a
    preceding `tool_calls` message."""
    found: list[Breach] = []
    messages = _objects(body.get("messages"))
    open_ids: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_ids:
                found.append(
                    Breach(
                        "OC-2",
                        f"messages[{index}]",
                        "Invalid parameter: messages with role 'tool' must be a response to a"
                        " preceeding message with 'tool_calls'.",
                        _OC2,
                    )
                )
            continue
        open_ids = set()
        calls = _objects(message.get("tool_calls")) if role == "assistant" else []
        if not calls:
            continue
        wanted = [str(c.get("id")) for c in calls]
        answered: set[object] = set()
        after = index + 1
        while after < len(messages) and messages[after].get("role") == "tool":
            answered.add(messages[after].get("tool_call_id"))
            after += 1
        missing = [i for i in wanted if i not in answered]
        if missing:
            found.append(
                Breach(
                    "OC-1",
                    f"messages[{after}]",
                    "An assistant message with 'tool_calls' must be followed by tool messages"
                    " responding to each 'tool_call_id'. The following tool_call_ids did not"
                    f" have response messages: {_ids(missing)}",
                    _OC,
                )
            )
        open_ids = set(wanted)
    return found


# --- openai-responses -------------------------------------------------------------------------
#
# Not enforced: adjacency. The api pairs calls and outputs by `call_id` wherever they sit
# (deepseek-ai/awesome-deepseek-integration#740 contrasts it with a clone that does not).


def _openai_responses(body: Mapping[str, Any]) -> list[Breach]:
    """OR-1: every `function_call` has a `function_call_output` with its `call_id`
    (openai/openai-agents-python#673). OR-2: every output has its call
    (continuedev/continue#10092)."""
    items = _objects(body.get("input"))
    calls = [(i, str(item.get("call_id"))) for i, item in enumerate(items) if _typed(item, "call")]
    outputs = [(i, str(item.get("call_id"))) for i, item in enumerate(items) if _typed(item, "out")]
    answered = {call_id for _, call_id in outputs}
    made = {call_id for _, call_id in calls}
    found = [
        Breach(
            "OR-1",
            f"input[{i}]",
            f"No tool output found for function call {call_id}.",
            "https://github.com/openai/openai-agents-python/issues/673",
        )
        for i, call_id in calls
        if call_id not in answered
    ]
    found += [
        Breach(
            "OR-2",
            f"input[{i}]",
            f"No tool call found for function call output with call_id {call_id}.",
            "https://github.com/continuedev/continue/issues/10092",
        )
        for i, call_id in outputs
        if call_id not in made
    ]
    return found


def _typed(item: Mapping[str, Any], what: str) -> bool:
    kinds = ("function_call", "custom_tool_call")
    if what == "out":
        kinds = ("function_call_output", "custom_tool_call_output")
    return item.get("type") in kinds


# --- anthropic --------------------------------------------------------------------------------
#
# Not enforced: one result per call (the only quote is a third-party copy); role alternation
# (a 400 in 2024, FlowiseAI/Flowise#2006; consecutive turns are merged now).

_AN = (
    'https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use ("return'
    " one tool_result for each tool_use block, all together in the next user message ... put"
    ' every tool_result block before any text content"); the 400 body: anthropics/claude-code#3512'
)
_AN3 = "https://github.com/openai/openai-agents-python/issues/1797 (the provider's 400 body)"


def _anthropic(body: Mapping[str, Any]) -> list[Breach]:
    """AN-1/AN-2: each `tool_use` is answered in the next message, whose content begins with
    the `tool_result` blocks (a result after any other block does not count). AN-3: a
    `tool_result` answers a `tool_use` of the previous message."""
    found: list[Breach] = []
    messages = _objects(body.get("messages"))
    for index, message in enumerate(messages):
        blocks = _blocks(message)
        previous = _blocks(messages[index - 1]) if index else []
        used = {b.get("id") for b in previous if b.get("type") == "tool_use"}
        for number, block in enumerate(blocks):
            if block.get("type") == "tool_result" and block.get("tool_use_id") not in used:
                found.append(
                    Breach(
                        "AN-3",
                        f"messages[{index}].content[{number}]",
                        f"messages.{index}.content.{number}: unexpected `tool_use_id` found in"
                        f" `tool_result` blocks: {block.get('tool_use_id')}. Each `tool_result`"
                        " block must have a corresponding `tool_use` block in the previous"
                        " message.",
                        _AN3,
                    )
                )
        calls = [str(b.get("id")) for b in blocks if b.get("type") == "tool_use"]
        if not calls:
            continue
        following = _blocks(messages[index + 1]) if index + 1 < len(messages) else None
        if following is None:
            continue  # the request ends on the call: nothing to answer yet
        leading: set[object] = set()
        for block in following:
            if block.get("type") != "tool_result":
                break
            leading.add(block.get("tool_use_id"))
        missing = [c for c in calls if c not in leading]
        if missing:
            found.append(
                Breach(
                    "AN-1",
                    f"messages[{index + 1}]",
                    f"messages.{index}: `tool_use` ids were found without `tool_result` blocks"
                    f" immediately after: {_ids(missing)}. Each `tool_use` block must have a"
                    " corresponding `tool_result` block in the next message.",
                    _AN,
                )
            )
    return found


# --- anthropic-bedrock, anthropic-vertex ------------------------------------------------------
#
# Claude's Messages body sent through a cloud's endpoint: Claude's own ordering rules (AN-1 to
# AN-3) hold as on the Anthropic API (through Converse, Bedrock passes the same refusal on:
# BE-5), and the cloud's envelope has rules of its own. Not enforced: Vertex AI's
# `anthropic_version: vertex-2023-10-16` and a `model` key in its body (documented, but no
# refusal of either is quoted).

_AB_VERSION = "bedrock-2023-05-31"
_AB1 = (
    "https://docs.aws.amazon.com/bedrock/latest/userguide/"
    "model-parameters-anthropic-claude-messages-request-response.html (anthropic_version is"
    ' required and "must be bedrock-2023-05-31"); a wrong value is answered "Invalid API'
    ' version" (boto/boto3#4218, the provider\'s 400 body), a missing required key "required key'
    ' [...] not found" (diffbot/code-gpt-docs#300)'
)
_AB2 = (
    "Bedrock's schema for Claude's body refuses a key it does not define (sigoden/aichat#543:"
    " [stream]; BerriAI/litellm#7416: [chat_id]); the model id is in the URL and streaming is the"
    " other operation, InvokeModelWithResponseStream (the request page above)"
)


def _malformed(problem: str) -> str:
    return f"Malformed input request: #: {problem}, please reformat your input and try again."


_AB3 = (
    "Claude's own refusal, passed on by Bedrock as \"The model returned the following errors:"
    ' ..." (the 400 body in n8n-io/n8n#16987, a ValidationException, and continuedev/continue'
    "#11929 with Claude Opus 4.6)"
)
_AV = (
    "Claude's own refusal through Vertex AI (the 400 bodies with `req_vrtx_` request ids in"
    " Kilo-Org/kilocode#5163 and lbjlaq/Antigravity-Manager#654)"
)


def _anthropic_vertex(body: Mapping[str, Any]) -> list[Breach]:
    """Claude's own rules (`_anthropic`), which Vertex AI answers as Anthropic words them."""
    return [replace(breach, source=f"{breach.source}; {_AV}") for breach in _anthropic(body)]


def _anthropic_bedrock(body: Mapping[str, Any]) -> list[Breach]:
    """AB-1: `anthropic_version` is `bedrock-2023-05-31`. AB-2: no `model` or `stream` key
    (Bedrock's schema refuses keys it does not define, and those two are the Messages API's
    own that InvokeModel moves out of the body). Then Claude's own rules (`_anthropic`), whose
    refusal Bedrock passes on behind its own words."""
    found: list[Breach] = []
    version = body.get("anthropic_version")
    if version is None:
        message = _malformed("required key [anthropic_version] not found")
        found.append(Breach("AB-1", "anthropic_version", message, _AB1))
    elif version != _AB_VERSION:
        found.append(Breach("AB-1", "anthropic_version", f"Invalid API version: {version}", _AB1))
    for key in ("model", "stream"):
        if key in body:
            message = _malformed(f"extraneous key [{key}] is not permitted")
            found.append(Breach("AB-2", key, message, _AB2))
    return found + [
        replace(
            breach,
            message=f"The model returned the following errors: {breach.message}",
            source=f"{breach.source}; {_AB3}",
        )
        for breach in _anthropic(body)
    ]


# --- gemini -----------------------------------------------------------------------------------
#
# Not enforced: text or media parts beside the function responses in their Content. Rejected
# in parallel turns by some reports (google-gemini/gemini-cli#16135), sent by gemini-cli itself
# for a single call (diegosouzapw/OmniRoute#14173): contradictory until a live exchange.

_GE1 = (
    "https://github.com/google-gemini/gemini-cli/issues/16415 (the provider's 400 body); split"
    " parallel responses: cloudwego/eino-ext#571, citing"
    " https://docs.cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling"
    "#parallel-samples"
)


def _parts(content: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return _objects(content.get("parts"))


def _count(content: Mapping[str, Any], camel: str, snake: str) -> int:
    return sum(1 for p in _parts(content) if p.get(camel) is not None or p.get(snake) is not None)


def _gemini(body: Mapping[str, Any]) -> list[Breach]:
    """GE-1: the Content after a function-call turn holds as many function responses as the
    turn has calls. GE-2: a function-response turn comes right after a function-call turn
    (langchain-ai/langchain#27799). GE-3: a function-call turn comes after a user turn or a
    function-response turn (google-gemini/gemini-cli#11814)."""
    found: list[Breach] = []
    contents = _objects(body.get("contents"))
    for index, content in enumerate(contents):
        calls = _count(content, "functionCall", "function_call")
        responses = _count(content, "functionResponse", "function_response")
        before = contents[index - 1] if index else None
        if calls and (before is None or before.get("role") == "model"):
            found.append(
                Breach(
                    "GE-3",
                    f"contents[{index}]",
                    "Please ensure that function call turn comes immediately after a user turn"
                    " or after a function response turn.",
                    "https://github.com/google-gemini/gemini-cli/issues/11814",
                )
            )
        if responses and (before is None or not _count(before, "functionCall", "function_call")):
            found.append(
                Breach(
                    "GE-2",
                    f"contents[{index}]",
                    "Please ensure that function response turn comes immediately after a"
                    " function call turn.",
                    "https://github.com/langchain-ai/langchain/issues/27799",
                )
            )
        if calls and index + 1 < len(contents):
            answered = _count(contents[index + 1], "functionResponse", "function_response")
            if answered != calls:
                found.append(
                    Breach(
                        "GE-1",
                        f"contents[{index + 1}]",
                        "Please ensure that the number of function response parts is equal to"
                        " the number of function call parts of the function call turn.",
                        _GE1,
                    )
                )
    return found


# --- bedrock-converse -------------------------------------------------------------------------
#
# Not enforced: "Conversation blocks and tool result blocks cannot be provided in the same turn"
# (langchain-ai/langchain-aws#141, BerriAI/litellm#6053, strands-agents/harness-sdk#1223): some
# models refuse any other block beside tool results, while Claude accepts media after all of
# them (openclaw/openclaw#149336): model-dependent.

_BE5 = (
    "Claude's own rule passed through Bedrock (anthropics/anthropic-sdk-typescript#653 quotes"
    " the text); interleaving fails on Claude over Bedrock (openclaw/openclaw#149336)"
)


def _member(block: Mapping[str, Any]) -> str | None:
    set_members = [k for k, v in block.items() if v is not None]
    return set_members[0] if len(set_members) == 1 else None


def _tool_use_ids(message: Mapping[str, Any], member: str, key: str) -> list[str]:
    out: list[str] = []
    for block in _blocks(message):
        value = block.get(member)
        if isinstance(value, dict):
            out.append(str(cast("Mapping[str, Any]", value).get(key)))
    return out


def _bedrock(body: Mapping[str, Any]) -> list[Breach]:
    """BE-1: the results of an assistant turn's `toolUse` blocks are all in the next message
    (camel-ai/camel#3957). BE-2: no more `toolResult` blocks than the previous turn's
    `toolUse` blocks (pydantic/pydantic-ai#2327). BE-3: roles alternate
    (langchain-ai/langchain-aws#130). BE-5, for Anthropic model ids: the `toolResult` blocks
    come before any other block of their message."""
    found: list[Breach] = []
    messages = _objects(body.get("messages"))
    claude = "anthropic." in str(body.get("modelId", ""))
    for index, message in enumerate(messages):
        if index and message.get("role") == messages[index - 1].get("role"):
            found.append(
                Breach(
                    "BE-3",
                    f"messages[{index}]",
                    "A conversation must alternate between user and assistant roles. Make sure"
                    " the conversation alternates between user and assistant roles and try"
                    " again.",
                    "https://github.com/langchain-ai/langchain-aws/issues/130",
                )
            )
        results = _tool_use_ids(message, "toolResult", "toolUseId")
        used = _tool_use_ids(messages[index - 1], "toolUse", "toolUseId") if index else []
        if len(results) > len(used):
            found.append(
                Breach(
                    "BE-2",
                    f"messages[{index}]",
                    f"The number of toolResult blocks at messages.{index}.content exceeds the"
                    " number of toolUse blocks of previous turn.",
                    "https://github.com/pydantic/pydantic-ai/issues/2327",
                )
            )
        calls = _tool_use_ids(message, "toolUse", "toolUseId")
        if calls and index + 1 < len(messages):
            answered = set(_tool_use_ids(messages[index + 1], "toolResult", "toolUseId"))
            missing = [c for c in calls if c not in answered]
            if missing:
                found.append(
                    Breach(
                        "BE-1",
                        f"messages[{index + 1}]",
                        f"Expected toolResult blocks at messages.{index + 1}.content for the"
                        f" following Ids: {_ids(missing)}",
                        "https://github.com/camel-ai/camel/issues/3957",
                    )
                )
        members = [_member(b) for b in _blocks(message)]
        leading = 0
        while leading < len(members) and members[leading] == "toolResult":
            leading += 1
        if claude and results and leading < len(results):
            found.append(
                Breach(
                    "BE-5",
                    f"messages[{index}]",
                    f"The model returned the following errors: messages.{index}: Did not find"
                    f" {len(results)} tool_result block(s) at the beginning of this message."
                    " Messages following tool_use blocks must begin with a matching number of"
                    " tool_result blocks.",
                    _BE5,
                )
            )
    return found


# --- mistral ----------------------------------------------------------------------------------
#
# Not enforced: the last role (one report, 0xPlaygrounds/rig#1130) and text-only tool messages
# (a Mistral-backed endpoint of another provider, LibreChat-AI/agents#344).


def _mistral(body: Mapping[str, Any]) -> list[Breach]:
    """MI-1: an assistant message's tool calls are answered by as many tool messages
    (mistralai/client-python#234). MI-2: no user message right after a tool message
    (avante-corp/avante.nvim#2562). MI-3: no tool message right after a user message
    (mistralai/mistral-vibe#1114)."""
    found: list[Breach] = []
    messages = _objects(body.get("messages"))
    for index, message in enumerate(messages):
        role = message.get("role")
        before = messages[index - 1].get("role") if index else None
        if (before, role) in (("tool", "user"), ("user", "tool")):
            rule, source = (
                ("MI-2", "https://github.com/avante-corp/avante.nvim/issues/2562")
                if role == "user"
                else ("MI-3", "https://github.com/mistralai/mistral-vibe/issues/1114")
            )
            found.append(
                Breach(
                    rule,
                    f"messages[{index}]",
                    f"Unexpected role '{role}' after role '{before}'",
                    source,
                )
            )
        calls = _objects(message.get("tool_calls")) if role == "assistant" else []
        if not calls:
            continue
        after = index + 1
        while after < len(messages) and messages[after].get("role") == "tool":
            after += 1
        if after - index - 1 != len(calls):
            found.append(
                Breach(
                    "MI-1",
                    f"messages[{index}]",
                    "Not the same number of function calls and responses",
                    "https://github.com/mistralai/client-python/issues/234",
                )
            )
    return found


RULES: Final[Mapping[str, Callable[[Mapping[str, Any]], list[Breach]]]] = {
    "openai-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "anthropic-bedrock": _anthropic_bedrock,
    "anthropic-vertex": _anthropic_vertex,
    "gemini": _gemini,
    "gemini-vertex": _gemini,  # the same model behind Vertex AI, whose own docs _GE1 cites
    "bedrock-converse": _bedrock,
    "mistral": _mistral,
}
"""Per api, its enforced rules. Cohere (v2), Groq, xAI and Hugging Face have none: no ordering
refusal of theirs is quoted (Groq's quoted errors are field checks; Hugging Face's depend on
the backend's chat template)."""


def breaches(api: str, payload: Mapping[str, Any]) -> list[Breach]:
    """The acceptance rules of `api` that the request body `payload` breaks, in body order."""
    rules = RULES.get(api)
    return rules(payload) if rules is not None else []
