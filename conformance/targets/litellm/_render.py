"""What every render of the LiteLLM targets (`litellm.completion` and its variants) runs under:
one render at a time in the process (LiteLLM's settings are module globals), LiteLLM's import
warnings ignored, the fixture host on LiteLLM's allow-list for loopback downloads."""

from __future__ import annotations

import importlib
import threading
import warnings
from collections.abc import Generator
from contextlib import contextmanager
from typing import Any

from conformance.history import History
from conformance.targets.kit import litellm_media_allowed

__all__ = ["offline_render", "own_download_cache"]

_RENDER_LOCK = threading.Lock()


@contextmanager
def offline_render(litellm: Any, history: History) -> Generator[None]:
    """The block renders alone among the LiteLLM targets of the process.

    LiteLLM imports provider modules lazily, on first use, and some of them warn (pydantic
    `ReadOnly` TypedDicts); the suite runs with warnings as errors, LiteLLM users do not. The
    fixture host's URLs go on LiteLLM's allow-list for loopback downloads for the block
    (`kit.litellm_media_allowed`)."""
    with _RENDER_LOCK, warnings.catch_warnings(), litellm_media_allowed(litellm, history):
        warnings.simplefilter("ignore")
        yield


_DOWNLOADS = "litellm.litellm_core_utils.prompt_templates.image_handling"
_DOWNLOAD_CACHES = ("in_memory_cache", "pdf_probe_verdicts")
"""LiteLLM's process-wide caches of URL media it downloaded (and of its PDF probes), keyed by
URL, in `image_handling.py`."""


@contextmanager
def own_download_cache() -> Generator[None]:
    """The block sees LiteLLM's download caches as a fresh process has them (empty), and the
    process's caches are put back after.

    LiteLLM keeps downloaded URL media by URL for the process, so a URL another target (or an
    earlier cell) rendered is not fetched again and the fixture host records no fetch: the cell
    would be judged by what ran before it. With a cache of its own per render, a variant's
    outcome is the same alone and beside its framework, whatever the order; what LiteLLM sends
    is unchanged (the bytes are the same, downloaded once more). A release without these
    caches is left as it is."""
    try:
        module = importlib.import_module(_DOWNLOADS)
    except ImportError:
        yield
        return
    saved = {n: getattr(module, n) for n in _DOWNLOAD_CACHES if hasattr(module, n)}
    for name, cache in saved.items():
        size = getattr(cache, "max_size_in_memory", None)
        setattr(module, name, type(cache)(max_size_in_memory=size) if size else type(cache)())
    try:
        yield
    finally:
        for name, cache in saved.items():
            setattr(module, name, cache)
