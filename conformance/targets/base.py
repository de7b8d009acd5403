"""The Target interface: what the suite needs from an implementation under test."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from conformance.history import History

__all__ = ["Payload", "RowRef", "Target"]

Payload = dict[str, Any]
"""What a target would send, per api: the JSON request body, except for `bedrock-converse`,
where it is the Converse parameters as boto3's `converse(**params)` takes them: `modelId` (it
travels in the URL) with the body's keys, media as raw `bytes`. `conformance.toolkit.payload_of`
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
      adds a header with the cell, its expectation and the expected shape.
    - `supports_cell(row, content_type, source, style) -> str | None`: why the framework has no
      form for a cell (a feature it does not have, e.g. no URL source for media), else None;
      the cell is skipped with that reason, as for `supports`.
    - `unavailable`: `None`, or why the target cannot run here, e.g. `"pydantic-ai is not
      installed: pip install ..."`. Its tests then skip with that reason, or the run stops
      with `--conformance-require-targets` (or `CONFORMANCE_REQUIRE_TARGETS=1`), as a nox
      session for that target passes.

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
