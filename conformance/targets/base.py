"""The Target interface: what the suite needs from an implementation under test."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from conformance.history import History

__all__ = ["Payload", "RowRef", "Target"]

Payload = dict[str, Any]
"""What a target would send, per api: the JSON request body, except for `bedrock-converse`,
where it is the Converse parameters as boto3's `converse(**params)` takes them: `modelId` (it
travels in the URL) with the body's keys, media as raw `bytes`. `conformance.targets.kit.payload_of`
makes it from a recorded request. Snapshots, the classifier and `sdk-schema` judge this."""


@dataclass(frozen=True)
class RowRef:
    """A model row as a target sees it: which api and model, never what is expected."""

    id: str
    api: str
    family: str
    model: str


@runtime_checkable
class Target(Protocol):
    """An implementation under test.

    `render` returns the payload for the row (`Payload`: the request body; Converse parameters
    for Bedrock), or raises before anything is sent.
    `render_stored` does the same after a storage round trip in the target's own history
    format: translate, dump, load, render.

    Optional attributes, read with `getattr` (a target without them is still a target):

    - `refusal_types`: a tuple of the exception types the target raises, before sending, for
      content an api cannot carry (default `(conformance.errors.UnsupportedContent,)`). Only
      these count as a refusal (`raised`); any other exception is `crashed`, and the suite's
      own (`conformance.errors.SuiteError`) never counts. `unsupported_error`, a single type,
      is the older spelling and is still read when `refusal_types` is absent.
    - `sdk_versions`: a mapping of distribution name to version for the SDKs the target drives
      (recorded in the results beside the target's own version).
    - `repro(row, history) -> str`: the source of a standalone Python script that uses only the
      framework and the standard library, rebuilds `history` in the framework's own types,
      drives its public API against a stdlib `http.server` on 127.0.0.1 that records the
      request and answers 400, and prints the captured request body as indented JSON (URL
      media: the script serves the fixture bytes itself on 127.0.0.1). `conformance repro`
      adds a header with the cell, its expectation and the expected shape. Every value from
      the row or the history goes into the script as a `repr` literal, or as a comment made by
      `conformance.targets.kit.comment`, never as code.
    - `not_applicable`: a mapping of feature to reason, for the features the framework does not
      have: `api:<api>` (e.g. `api:cohere`), `content:<content type>` (`content:video`),
      `source:<source>` (`source:url`) or `style:<style>` (`style:prompt`, `style:error`).
      Every cell with a declared feature is skipped with `n/a (<feature>): <reason>` and marked
      `na: declared` in the results; the reports count such cells apart (never as passes),
      give compliance over the cells that apply with the number of n/a cells beside it, and
      count them as carriable but not carried, so declaring everything n/a cannot look good.
      A row `supports` turns down is counted apart the same way (`na: unserved`). An unknown
      feature stops the run (`conformance.running.applicable`).
    - `isolate`: `True` to render in a worker process killed at the cell time limit
      (`conformance.judging.isolation`), for renders that can hold the GIL (a regular
      expression, C code) or ignore signals; the target must then be importable from its
      spec in a fresh interpreter, and its arguments, payloads and errors picklable.
    - `unavailable`: `None`, or why the target cannot run here, e.g. `"pydantic-ai is not
      installed: pip install ..."`. Its tests then skip with that reason, or the run stops
      with `--conformance-require-targets` (or `CONFORMANCE_REQUIRE_TARGETS=1`), as a nox
      session for that target passes.
    - `layers(row) -> Sequence[tuple[str, str]]`, or a mapping of row id (or api) to such a
      sequence: the other layers the target serves that row through, each `(distribution,
      version)`, outermost first, e.g. `[("litellm", "1.110.2")]` for an agent framework's
      LiteLLM model. Recorded in the results' meta line (`layers`); the report and `conformance
      compare` say "openai-agents 0.24 via litellm 1.110.2" for those rows.
    - `variant_of`: the name of the framework target this one is another entry point of (its
      name then `<framework>.<variant>`, its version the framework's): recorded in the meta
      line, stored with the framework's results and shown next to its column
      (docs/writing-a-target.md, "a variant").

    docs/history.md (shipped as `conformance/data/docs/history.md`) documents the history
    every method is given, what each scenario holds and these attributes with examples.

    Targets are found by name through the `conformance.targets` entry-point group:
    `[project.entry-points."conformance.targets"] my-framework = "my_pkg.conformance:Target"`.
    """

    name: str
    version: str

    def supports(self, row: RowRef) -> str | None:
        """None if the target can render for this row, else the reason it cannot."""
        ...

    def render(self, row: RowRef, history: History) -> Payload: ...

    def render_stored(self, row: RowRef, history: History) -> Payload: ...
