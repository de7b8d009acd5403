"""Each mutant target breaks one rule; the suite must give the failing verdict for it.

The cells each mutant must fail are derived from the matrix and the scenario, never listed by
hand, so a check that silently stops failing shows up here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.errors import NoRequestSent
from conformance.history import Message, ToolCall, ToolResult
from conformance.judging.checks import CellRun, Check, applicable_checks, evaluate, run_cell
from conformance.judging.observe import observe
from conformance.matrix import CellSpec, Matrix, load_matrix
from conformance.scenarios.build import fixture_part
from conformance.targets.base import RowRef, Target
from conformance.targets.reference import ReferenceTarget
from mutants import (
    AddsMarkerToText,
    ChangesHistoryInPlace,
    ChangesMediaType,
    ChangesWhitespace,
    DownloadsAndInlines,
    DownloadsThenDrops,
    DropsMedia,
    ForgetsErrorFlag,
    LosesProvenanceInStorage,
    MarkerNamesWrongCall,
    NativeEverywhere,
    OpenAIAudioOnMistral,
    RaisesWrongType,
    SendsDocumentsAsImages,
    SendsMediaTwice,
    SendsUnsupported,
    SendsUrlWithoutUrlForm,
    StorageStopsRefusing,
    SwallowsUnsupported,
    TruncatesBytes,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(ROOT / "matrix.yaml")


def _runs(target: Target, matrix: Matrix) -> list[CellRun]:
    return [run_cell(target, cell) for cell in matrix.all_cells()]


def _failing(runs: list[CellRun], check: Check) -> set[str]:
    return {
        run.cell.id
        for run in runs
        if check in applicable_checks(run.cell) and not evaluate(run, check).passed
    }


def _ids(matrix: Matrix, check: Check, keep: Callable[[CellSpec], bool]) -> set[str]:
    """The cells where `check` applies and `keep` says the mutant's bug shows."""
    return {c.id for c in matrix.all_cells() if check in applicable_checks(c) and keep(c)}


def test_reference_passes_every_check(matrix: Matrix) -> None:
    """The baseline the mutants are measured against."""
    runs = _runs(ReferenceTarget(), matrix)
    failures = {
        (run.cell.id, check, evaluate(run, check).detail)
        for run in runs
        for check in applicable_checks(run.cell)
        if check != "snapshot" and not evaluate(run, check).passed
    }
    assert failures == set()


def test_dropped_media_is_caught(matrix: Matrix) -> None:
    runs = _runs(DropsMedia(), matrix)
    media = _ids(matrix, "outcome", lambda c: c.content_type != "text")
    assert _failing(runs, "no-silent-loss") == media
    assert _failing(runs, "outcome") == media
    unsupported = _ids(matrix, "unsupported-raises", lambda c: True)
    assert _failing(runs, "unsupported-raises") == unsupported
    assert {r.observation.outcome for r in runs if r.cell.id in media} == {"dropped"}


def test_marker_added_to_text_is_caught(matrix: Matrix) -> None:
    runs = _runs(AddsMarkerToText(), matrix)

    # Tool text is the fixture in text cells, and the short result text of the prompt style.
    def has_tool_text(c: CellSpec) -> bool:
        rendered = c.expect not in ("unsupported", "refuse-or-download")
        return rendered and (c.content_type == "text" or c.style == "prompt")

    rendered = _ids(matrix, "text-identical", has_tool_text)
    assert _failing(runs, "text-identical") == rendered
    assert _failing(runs, "no-silent-loss") == _ids(matrix, "no-silent-loss", has_tool_text)
    outcomes = {r.observation.outcome for r in runs if r.cell.id in rendered}
    assert outcomes == {"altered"}


def test_changed_whitespace_is_caught(matrix: Matrix) -> None:
    runs = _runs(ChangesWhitespace(), matrix)
    text_cells = _ids(matrix, "text-identical", lambda c: c.content_type == "text")
    assert text_cells >= {c.id for c in matrix.error_cells()}, "error text too"
    assert _failing(runs, "text-identical") == text_cells
    assert _failing(runs, "outcome") == text_cells
    assert {r.observation.outcome for r in runs if r.cell.id in text_cells} == {"altered"}


def test_provenance_lost_in_storage_is_caught(matrix: Matrix) -> None:
    runs = _runs(LosesProvenanceInStorage(), matrix)
    # Prompt-style cells store provenance; without it the content renders as a plain user
    # message instead of tool output.
    prompt_rendered = _ids(matrix, "provenance", lambda c: c.style == "prompt")
    failing = _failing(runs, "provenance")
    assert failing == prompt_rendered
    detail = evaluate(next(r for r in runs if r.cell.id in failing), "provenance").detail
    assert "storage round trip" in detail


def test_media_sent_natively_where_not_accepted_is_caught(matrix: Matrix) -> None:
    runs = _runs(NativeEverywhere(), matrix)
    fallback = _ids(matrix, "outcome", lambda c: c.expect == "fallback")
    assert fallback, "the matrix has fallback cells to test this on"
    assert _failing(runs, "outcome") == fallback
    assert _failing(runs, "api-accepts") == fallback
    outcomes = {(r.cell.api, r.observation.outcome) for r in runs if r.cell.id in fallback}
    # Cohere's tool message defines only text and document blocks: media there is no block of
    # its tool result at all, so it is malformed, not native.
    assert {o for _, o in outcomes} == {"native", "malformed"}
    assert {api for api, o in outcomes if o == "malformed"} == {"cohere"}


def test_media_sent_where_unsupported_is_caught(matrix: Matrix) -> None:
    """The probe for uncertain refusals (docs/live-verification.md) breaks the rule it probes."""
    runs = _runs(SendsUnsupported(), matrix)
    unsupported = _ids(matrix, "unsupported-raises", lambda c: True)
    sent = _failing(runs, "unsupported-raises")
    assert sent <= unsupported
    assert "openai-chat/gpt-audio/document/inline/result" in sent
    assert "gemini/gemini-3/audio/url/result" in sent
    assert _failing(runs, "outcome") >= sent


def test_swallowed_unsupported_error_is_caught(matrix: Matrix) -> None:
    runs = _runs(SwallowsUnsupported(), matrix)
    unsupported = _ids(matrix, "unsupported-raises", lambda c: True)
    assert _failing(runs, "unsupported-raises") == unsupported
    assert _failing(runs, "no-silent-loss") == unsupported
    assert _failing(runs, "outcome") == unsupported
    # what it sent holds none of the refused media, so api-accepts has nothing to object to
    assert _failing(runs, "api-accepts") == set()


def test_marker_naming_the_wrong_call_is_caught(matrix: Matrix) -> None:
    runs = _runs(MarkerNamesWrongCall(), matrix)
    fallback = _ids(matrix, "provenance", lambda c: c.expect == "fallback")
    assert _failing(runs, "provenance") == fallback
    assert {r.observation.outcome for r in runs if r.cell.id in fallback} == {"fallback-unmarked"}


def test_marker_swapped_between_parallel_calls_is_caught() -> None:
    """Two calls in one turn, each returning an image: markers must name their own call."""
    image = fixture_part("image")
    other = image.model_copy(update={"data": b"\x89PNG other", "identifier": "b.png"})
    history = [
        Message(role="user", content="Fetch both charts."),
        ToolCall(tool_call_id="call_1", name="get_chart", arguments={"n": 1}),
        ToolCall(tool_call_id="call_2", name="get_chart", arguments={"n": 2}),
        ToolResult(tool_call_id="call_1", name="get_chart", content=[image]),
        ToolResult(tool_call_id="call_2", name="get_chart", content=[other]),
    ]
    row = RowRef(id="openai-chat/gpt-6", api="openai-chat", family="gpt-6", model="gpt-6-luna")
    good = observe("openai-chat", history, ReferenceTarget().render(row, history), None)
    assert [i.outcome for i in good.items] == ["fallback-marked", "fallback-marked"]
    bad = observe("openai-chat", history, MarkerNamesWrongCall().render(row, history), None)
    assert [i.outcome for i in bad.items] == ["fallback-unmarked", "fallback-unmarked"]
    assert "names 'call_2'" in bad.items[0].detail


def test_a_forgotten_error_flag_is_caught(matrix: Matrix) -> None:
    runs = _runs(ForgetsErrorFlag(), matrix)
    flagged = _ids(matrix, "error-flag", lambda c: True)
    assert flagged == {c.id for c in matrix.error_cells() if c.error == "flag"}
    assert flagged, "the matrix has rows whose api flags errors"
    assert _failing(runs, "error-flag") == flagged
    # Rows without a flag carry the text as is, and that is all a target can do there.
    assert _failing(runs, "text-identical") & {c.id for c in matrix.error_cells()} == set()


# --- verdicts that hold on frameworks we did not write --------------------------------------


def _refusing(c: CellSpec) -> bool:
    return c.expect in ("unsupported", "refuse-or-download")


def _rendered_media(c: CellSpec) -> bool:
    return c.content_type != "text" and c.error is None and not _refusing(c)


def _outcomes(runs: list[CellRun], cells: set[str]) -> set[str]:
    return {r.observation.outcome for r in runs if r.cell.id in cells}


def test_a_wrong_exception_type_is_crashed_not_raised(matrix: Matrix) -> None:
    runs = _runs(RaisesWrongType(), matrix)
    refusing = _ids(matrix, "unsupported-raises", lambda c: True)
    assert refusing == {c.id for c in matrix.all_cells() if _refusing(c)}
    assert _failing(runs, "unsupported-raises") == refusing
    assert _failing(runs, "outcome") == refusing
    assert _outcomes(runs, refusing) == {"crashed"}
    run = next(r for r in runs if r.cell.id in refusing)
    assert run.observation.raised is not None
    assert run.observation.raised.startswith("ValueError: cannot send this")
    assert (
        "declared refusal types: UnsupportedContent" in evaluate(run, "unsupported-raises").detail
    )


def test_a_declared_refusal_type_of_the_target_counts() -> None:
    class Refuses(RaisesWrongType):
        refusal_types = (ValueError,)

    matrix = load_matrix(ROOT / "matrix.yaml")
    cell = matrix.cell("anthropic/claude-sonnet-5/audio/inline/result")
    run = run_cell(Refuses(), cell)
    assert run.observation.outcome == "raised"
    assert evaluate(run, "unsupported-raises").passed


def test_the_suites_own_error_never_counts_as_a_refusal() -> None:
    class RaisesSuiteError(ReferenceTarget):
        refusal_types = (Exception,)

        def render(self, row: RowRef, history: list[Any]) -> Any:
            raise NoRequestSent("nothing was sent")

    matrix = load_matrix(ROOT / "matrix.yaml")
    run = run_cell(RaisesSuiteError(), matrix.cell("anthropic/claude-sonnet-5/audio/inline/result"))
    assert run.observation.outcome == "crashed"
    assert not evaluate(run, "unsupported-raises").passed


def test_a_storage_path_that_stops_refusing_is_caught(matrix: Matrix) -> None:
    runs = _runs(StorageStopsRefusing(), matrix)
    refusing = _ids(matrix, "unsupported-raises", lambda c: True)
    assert _failing(runs, "unsupported-raises") == refusing
    run = next(r for r in runs if r.cell.id in refusing)
    assert "after storage: sent a request instead of refusing" in (
        evaluate(run, "unsupported-raises").detail
    )


def test_media_sent_twice_is_duplicated(matrix: Matrix) -> None:
    runs = _runs(SendsMediaTwice(), matrix)
    media = _ids(matrix, "outcome", _rendered_media)
    assert _failing(runs, "no-silent-loss") == media
    assert _failing(runs, "outcome") == media
    assert _outcomes(runs, media) == {"duplicated"}


def _states_a_type(matrix: Matrix) -> set[str]:
    """Rendered media cells whose reference payload states the item's media type."""
    out: set[str] = set()
    for cell in matrix.cells():
        if not _rendered_media(cell):
            continue
        run = run_cell(ReferenceTarget(), cell)
        assert run.view is not None
        slots = [p for r in run.view.tool_results for p in r.parts]
        slots += [p for m in run.view.messages for p in m.parts]
        if any(p.kind == cell.content_type and p.media_type for p in slots):
            out.add(cell.id)
    return out


def test_a_changed_media_type_is_caught(matrix: Matrix) -> None:
    runs = _runs(ChangesMediaType(), matrix)
    stated = _states_a_type(matrix)
    inline = _ids(matrix, "outcome", lambda c: _rendered_media(c) and c.source == "inline")
    assert len(stated & inline) >= len(inline) - 2, "nearly every inline item states its type"
    assert _failing(runs, "no-silent-loss") == stated
    assert _failing(runs, "outcome") == stated
    assert _outcomes(runs, stated) == {"altered: media type"}


def test_truncated_bytes_are_altered_bytes(matrix: Matrix) -> None:
    runs = _runs(TruncatesBytes(), matrix)
    inline = _ids(matrix, "outcome", lambda c: _rendered_media(c) and c.source == "inline")
    assert _failing(runs, "no-silent-loss") == inline
    assert _outcomes(runs, inline) == {"altered: bytes"}


def test_an_undefined_part_shape_is_malformed(matrix: Matrix) -> None:
    runs = _runs(OpenAIAudioOnMistral(), matrix)
    run = run_cell(ReferenceTarget(), matrix.cell("mistral/voxtral-small/audio/inline/result"))
    assert run.observation.outcome == "fallback-marked", "the reference sends Mistral's shape"
    audio = _ids(
        matrix, "api-accepts", lambda c: c.api == "mistral" and c.id.endswith("audio/inline/result")
    ) | _ids(matrix, "api-accepts", lambda c: c.api == "mistral" and "/audio/inline/" in c.id)
    sent = {c for c in audio if matrix.cell(c).expect != "unsupported"}
    assert sent, "the matrix has Mistral audio cells that render"
    assert _failing(runs, "api-accepts") == sent
    assert _failing(runs, "no-silent-loss") == sent
    assert _outcomes(runs, sent) == {"malformed"}
    bad = next(r for r in runs if r.cell.id in sent)
    assert bad.observation.malformed is not None
    assert ".input_audio: expected a string, got dict" in bad.observation.malformed
    assert bad.first.payload is not None, "the payload is still there to snapshot"


def test_a_document_in_an_image_part_is_malformed(matrix: Matrix) -> None:
    """An image part holds images only (OpenAI: "Invalid MIME type. Only image types are
    supported.", BerriAI/litellm#6120; Anthropic's image source takes image types): a PDF
    there, its media type stated truly, is no fallback and no native document."""
    runs = _runs(SendsDocumentsAsImages(), matrix)
    documents = _ids(
        matrix,
        "api-accepts",
        lambda c: (
            c.api in ("openai-chat", "anthropic")
            and c.content_type == "document"
            and _rendered_media(c)
        ),
    )
    reference = {c: run_cell(ReferenceTarget(), matrix.cell(c)) for c in documents}
    by_id = {r.cell.id: r for r in runs}
    moved = {c for c, r in reference.items() if by_id[c].first.payload != r.first.payload}
    assert documents, "the matrix has rendered documents on both apis"
    assert moved == documents, "the mutant moves every one of them"
    assert _failing(runs, "api-accepts") == documents
    assert _failing(runs, "no-silent-loss") == documents
    assert _outcomes(runs, documents) == {"malformed"}
    bad = next(r for r in runs if r.cell.id in documents and r.cell.api == "openai-chat")
    item = next(i for i in bad.observation.items if i.content_type == "document")
    assert item.detail.startswith("a document (application/pdf) in an image part"), item.detail
    assert item.placed in ("fallback-marked", "native"), "where it sits is still reported"
    # The reference sends the same documents in the apis' document parts: the other legal
    # shape passes (test_reference_passes_every_check), and so do a mutant's images.
    assert {r.observation.outcome for r in reference.values()} <= {"native", "fallback-marked"}
    images = {r.cell.id for r in runs if r.cell.content_type == "image"}
    assert not (_failing(runs, "api-accepts") & images)


def test_a_history_changed_in_place_is_reported(matrix: Matrix) -> None:
    runs = _runs(ChangesHistoryInPlace(), matrix)
    media = _ids(matrix, "no-silent-loss", lambda c: c.content_type != "text")
    assert _failing(runs, "no-silent-loss") == media
    # the payload itself is right: only the history the target was given changed
    assert _failing(runs, "outcome") == set()
    run = next(r for r in runs if r.cell.id in media)
    assert "changed the history it was given, in place" in evaluate(run, "no-silent-loss").detail


def test_a_url_downloaded_then_dropped_is_caught(matrix: Matrix) -> None:
    runs = _runs(DownloadsThenDrops(), matrix)
    url_media = _ids(matrix, "no-silent-loss", lambda c: c.source == "url")
    assert _failing(runs, "no-silent-loss") == url_media
    assert _outcomes(runs, url_media) == {"dropped"}
    assert {r.observation.url for r in runs if r.cell.id in url_media} == {"downloaded"}


def test_downloading_satisfies_refuse_or_download(matrix: Matrix) -> None:
    runs = _runs(DownloadsAndInlines(), matrix)
    either = {c.id for c in matrix.cells() if c.expect == "refuse-or-download"}
    assert either, "the matrix has refuse-or-download cells"
    for check in ("outcome", "unsupported-raises", "api-accepts", "no-silent-loss"):
        assert _failing(runs, check) & either == set(), check
    carried = {r.cell.id for r in runs if r.cell.id in either and r.observation.outcome != "raised"}
    assert carried, "some refuse-or-download cells are carried as bytes"
    assert {r.observation.url for r in runs if r.cell.id in carried} == {"downloaded"}


def test_refuse_or_download_is_not_a_pass_for_lost_bytes(matrix: Matrix) -> None:
    """Sending the URL where the api has no URL form fails api-accepts and the outcome."""
    runs = _runs(SendsUrlWithoutUrlForm(), matrix)
    either = {c.id for c in matrix.cells() if c.expect == "refuse-or-download"}
    sent = {r.cell.id for r in runs if r.cell.id in either and r.observation.url == "sent-url"}
    assert {i.split("/")[0] for i in sent} >= {"gemini", "openai-chat"}
    assert _failing(runs, "api-accepts") == sent
    assert _failing(runs, "outcome") & either == sent
    assert _failing(runs, "unsupported-raises") & either == sent
    run = next(r for r in runs if r.cell.id in sent)
    assert "sent as a URL" in evaluate(run, "api-accepts").detail
