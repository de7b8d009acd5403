"""The Google ADK target through ADK's LiteLLM wrapper: the same `LlmAgent`, function tools and
resumed `Runner` as `conformance.targets.google_adk`, with `google.adk.models.lite_llm.LiteLlm`
as the model, for every row LiteLLM has a provider prefix for.

`LiteLlm(model="<prefix>/<row model>", api_base=<recorder channel>, api_key=...)` passes its
extra arguments to `litellm.acompletion`; the prefixes and arguments per api are the litellm
target's routes (`conformance.targets.litellm._routes`): Bedrock through the Converse route with
fake credentials, Claude's Messages body on Bedrock (`anthropic-bedrock`) through
`bedrock/invoke/` (InvokeModel) signed the same way, Hugging Face's router base in
`HF_API_BASE`, Vertex AI through `vertex_ai/` with a service account key whose token exchange
stays on 127.0.0.1. ADK translates its session contents into the OpenAI-format messages LiteLLM
takes (`models/lite_llm.py`, `_content_to_message_param`, `_get_content`), LiteLLM translates
those for the provider.

What ADK raises before sending for content a provider cannot take is `ValueError`
(`_get_content`), LiteLLM's own `BadRequestError` for what its prompt factories cannot carry:
both are `refusal_types`. LiteLLM refuses to download URLs on loopback addresses unless the
host is on `litellm.user_url_allowed_hosts`; the fixture host's `host:port` is allowed for the
render, as the litellm target does.

The module imports without ADK or LiteLLM; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import importlib
import json
import textwrap
import warnings
from collections.abc import Generator
from contextlib import contextmanager
from typing import Any

from conformance.errors import NoRequestSent, SuiteError
from conformance.history import History
from conformance.targets.base import Payload, RowRef
from conformance.targets.gcp_credentials import repro_credentials
from conformance.targets.google_adk import (
    DISTRIBUTION,
    NOT_APPLICABLE,
    SDKS,
    Run,
    installed,
    missing_adk,
)
from conformance.targets.kit import environment
from conformance.targets.kit import litellm_media_allowed as _allowed
from conformance.targets.kit import litellm_offline as import_litellm
from conformance.targets.litellm._routes import ENV, ROUTES, signing_missing
from conformance.targets.litellm._vertex import CREDENTIALS_KEY

__all__ = ["INSTALL_HINT", "GoogleADKLiteLLMTarget"]

INSTALL_HINT = 'pip install google-adk litellm boto3  (or: nox -s "target(google-adk-litellm)")'
_BASE_STAND_IN = "http://recorder.conformance.invalid"
"""The recorder's base in a reproducer's route, replaced by the script's own origin."""


def _missing() -> str | None:
    adk = missing_adk()
    if adk is not None:
        return adk
    try:
        import_litellm()  # first: its environment keeps the import offline
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            importlib.import_module("google.adk.models.lite_llm")
    except ImportError as error:
        return f"ADK's LiteLLM wrapper cannot import ({error}): {INSTALL_HINT}"
    return None


def _kwargs(row: RowRef, base: str) -> dict[str, Any]:
    kwargs = ROUTES[row.api](row, base)
    kwargs.pop(ENV, None)
    return kwargs


def _model(row: RowRef, base: str) -> Any:
    from google.adk.models.lite_llm import LiteLlm

    kwargs = _kwargs(row, base)
    return LiteLlm(model=kwargs.pop("model"), **kwargs, timeout=60)


@contextmanager
def _around(row: RowRef, history: History, base: str) -> Generator[None]:
    """The route's environment (Hugging Face's `HF_API_BASE`) and LiteLLM's download allowlist
    for the fixture host, set for the run and restored after it."""
    values: dict[str, str] = ROUTES[row.api](row, base).get(ENV, {})
    with environment(values), _allowed(import_litellm(), history):
        yield


class GoogleADKLiteLLMTarget:
    """ADK's `LlmAgent` on its `LiteLlm` wrapper, resumed by its `Runner` so its tools run."""

    name = "google-adk-litellm"
    not_applicable = NOT_APPLICABLE

    def __init__(self) -> None:
        self.unavailable = _missing()
        self.version = installed(DISTRIBUTION) or "not installed"
        self.sdk_versions = {n: v for n in SDKS if (v := installed(n)) is not None}
        self.refusal_types: tuple[type[BaseException], ...] = (ValueError,)
        """ADK's `ValueError` (`models/lite_llm.py`, `_get_content`: "does not support content
        part with MIME type", "File URI ... not supported for provider") and LiteLLM's
        `BadRequestError` (its prompt factories, before sending)."""
        if self.unavailable is None:
            self.refusal_types = (ValueError, import_litellm().BadRequestError)
        self._run = Run(_model, _around)

    def supports(self, row: RowRef) -> str | None:
        if self.unavailable is not None:
            return self.unavailable
        if row.api not in ROUTES:
            return f"LiteLLM has no provider prefix for api {row.api!r}"
        return signing_missing(row.api, installed)

    def render(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history)[0]

    def repro(self, row: RowRef, history: History) -> str:
        """A standalone script (ADK, LiteLLM and the standard library) that sends this cell's
        request through ADK's `LiteLlm` to a recorder on 127.0.0.1 and prints the payload."""
        from conformance.targets.google_adk._repro import repro_script

        route = ROUTES[row.api](row, _BASE_STAND_IN)
        environment = list(route.pop(ENV, {}))
        # A Vertex route's service account key: the script makes its own (never the key here).
        vertex = route.pop(CREDENTIALS_KEY, None) is not None
        credentials = repro_credentials(f"kwargs[{CREDENTIALS_KEY!r}]") if vertex else ""
        code = (
            "    import os\n\n"
            '    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline\n'
            "    import litellm\n"
            "    from google.adk.models.lite_llm import LiteLlm\n\n"
            "    litellm.suppress_debug_info = True  # no banner printed per failed call\n"
            f"    kwargs = json.loads({json.dumps(route)!r}.replace({_BASE_STAND_IN!r}, ORIGIN))\n"
            f"{textwrap.indent(credentials, '    ')}"
            f"    for name in {environment!r}:  # a base the route reads from the environment\n"
            "        os.environ[name] = ORIGIN\n"
            '    return LiteLlm(model=kwargs.pop("model"), **kwargs)'
        )
        extra = " litellm" + {
            "bedrock-converse": " boto3",
            "anthropic-bedrock": " boto3",
            "anthropic-vertex": " 'google-auth[requests]'",
            "gemini-vertex": " 'google-auth[requests]'",
        }.get(row.api, "")
        return repro_script(row, history, self.version, model_code=code, extra=extra)

    def render_stored(self, row: RowRef, history: History) -> Payload:
        from conformance.targets.google_adk import dump_session, load_session

        _, session = self._send(row, history)
        loaded = load_session(dump_session(session))
        return self._send(row, history, list(loaded.events))[0]

    def _send(
        self, row: RowRef, history: History, events: list[Any] | None = None
    ) -> tuple[Payload, Any]:
        try:
            return self._run.send(row, history, events)
        except (json.JSONDecodeError, NoRequestSent) as error:
            # payload_of reports a recorded body that is not a JSON object as NoRequestSent
            if not _from_the_recorders_capture(error):
                raise
            raise UploadNotObserved(
                "ADK uploads inline documents to the provider's Files API first "
                "(models/lite_llm.py, _get_content: litellm.acreate_file for openai); the first "
                "request was that multipart upload, which the recorder cannot answer, so the "
                "request that would carry the file_id is not observed offline"
            ) from error


class UploadNotObserved(SuiteError):
    """The first request ADK made was a file upload, not the provider request: the suite cannot
    observe the request that follows an upload (the recorder answers every request with an
    error). The suite's own exception, never a refusal of the target."""


def _from_the_recorders_capture(error: BaseException) -> bool:
    """Whether the exception came from reading a recorded body as JSON (a multipart upload)."""
    trace = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_name == "payload_of":
            return True
        trace = trace.tb_next
    return False
