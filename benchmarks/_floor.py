"""A framework's own floor: what one call of its public API costs, with nothing of the suite's
around it. Run with the Python of the framework's venv (`bench_framework.py` does):

    python benchmarks/_floor.py pydantic-ai

Prints one JSON object: CPU milliseconds per call (user and system of this process, so the
loopback recorder's threads count too), median of a few batches, after warm-up calls. The
requests go to the suite's loopback recorder (`conformance.targets.kit.recorder`), which answers
400, as in a cell; each floor says what it builds per call.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

from conformance.targets.kit import recorder

KEY = "conformance-not-a-key"
BATCHES, PER_BATCH, WARM = 5, 20, 3


def per_call_ms(call: Callable[[], object]) -> float:
    """Median CPU milliseconds of one call over a few batches, after warm-up calls."""
    for _ in range(WARM):
        call()
    batches: list[float] = []
    for _ in range(BATCHES):
        start = time.process_time()
        for _ in range(PER_BATCH):
            call()
        batches.append((time.process_time() - start) / PER_BATCH * 1000)
    return statistics.median(batches)


def swallow(call: Callable[[], object]) -> Callable[[], None]:
    """The call, its exception (the recorder's 400 answer) dropped."""

    def run() -> None:
        try:
            call()
        except Exception:  # the recorder's answer is an error by design
            return

    return run


def _module(name: str) -> Any:
    """A framework module (imported by name: the repository's type check has no framework)."""
    return importlib.import_module(name)


def pydantic_ai() -> dict[str, float]:
    agent_type = _module("pydantic_ai").Agent
    messages = _module("pydantic_ai.messages")
    function_model = _module("pydantic_ai.models.function").FunctionModel
    chat_model = _module("pydantic_ai.models.openai").OpenAIChatModel
    provider_type = _module("pydantic_ai.providers.openai").OpenAIProvider
    models = _module("pydantic_ai.models")
    loop = asyncio.new_event_loop()

    def answer(history: list[Any], info: Any) -> Any:
        return messages.ModelResponse(parts=[messages.TextPart("ok")])

    def bare() -> None:
        agent = agent_type(function_model(answer))
        loop.run_until_complete(agent.run("hello"))

    client = models.create_async_httpx2_client()

    def request() -> None:
        with recorder().channel() as (base, _):
            provider = provider_type(base_url=base + "/v1", api_key=KEY, http_client=client)
            agent = agent_type(chat_model("gpt-6", provider=provider))
            loop.run_until_complete(agent.run("hello"))

    return {
        "Agent.run, FunctionModel (no HTTP), agent built per call": per_call_ms(bare),
        "Agent.run, OpenAIChatModel to the recorder, provider built per call, one client": (
            per_call_ms(swallow(request))
        ),
    }


def litellm() -> dict[str, float]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    lib = _module("litellm")
    lib.suppress_debug_info = True
    messages = [{"role": "user", "content": "hello"}]

    def completion() -> None:
        with recorder().channel() as (base, _):
            lib.completion(model="openai/gpt-6", messages=messages, api_base=base, api_key=KEY)

    return {"litellm.completion, openai/ to the recorder": per_call_ms(swallow(completion))}


def langchain() -> dict[str, float]:
    from pydantic import SecretStr

    chat_openai = _module("langchain_openai").ChatOpenAI
    messages = [_module("langchain_core.messages").HumanMessage("hello")]

    def build(base: str) -> Any:
        return chat_openai(
            model="gpt-6", api_key=SecretStr(KEY), base_url=base + "/v1", max_retries=0
        )

    def fresh() -> None:
        with recorder().channel() as (base, _):
            build(base).invoke(messages)

    with recorder().channel() as (base, _):
        kept = build(base)

    def reused() -> None:
        kept.invoke(messages)

    return {
        "ChatOpenAI(...).invoke, model built per call (per base URL)": per_call_ms(swallow(fresh)),
        "ChatOpenAI.invoke, one model": per_call_ms(swallow(reused)),
    }


FLOORS: dict[str, Callable[[], dict[str, float]]] = {
    "pydantic-ai": pydantic_ai,
    "litellm": litellm,
    "langchain": langchain,
}


def main() -> None:
    name = sys.argv[1]
    if name not in FLOORS:
        print(json.dumps({}))
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        print(json.dumps(FLOORS[name]()))


if __name__ == "__main__":
    main()
