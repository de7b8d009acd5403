"""What every render of the LiteLLM targets (`litellm.completion` and its variants) runs under:
one render at a time in the process (LiteLLM's settings are module globals), LiteLLM's import
warnings ignored, the fixture host on LiteLLM's allow-list for loopback downloads, and LiteLLM's
download caches fresh for each render (`kit.litellm_media_allowed`)."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Generator
from contextlib import contextmanager
from typing import Any

from conformance.history import History
from conformance.targets.kit import litellm_media_allowed

__all__ = ["offline_render"]

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
