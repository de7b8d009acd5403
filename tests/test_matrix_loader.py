"""The matrix loader: the real matrix.yaml, and every kind of bad input reported as file:line:col.

Each file in tests/data/bad_matrix/ is tests/data/bad_matrix/valid.yaml with one defect (its first
line says which), so each is expected to give exactly the one error listed here. The tests of the
real matrix.yaml check its structure and its rules, never a copy of its data.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from conformance.matrix import (
    CONTENT_TYPES,
    ERROR_EXPECTATIONS,
    EXPECTATIONS,
    KNOWN,
    OUTCOMES,
    ROW_API_NAMES,
    ROW_ID_PATTERN,
    SOURCES,
    STYLES,
    Api,
    CellSpec,
    LocatedError,
    Matrix,
    MatrixError,
    json_schema,
    load_matrix,
)

ROOT = Path(__file__).resolve().parent.parent
MATRIX = ROOT / "matrix.yaml"
BAD = Path(__file__).resolve().parent / "data" / "bad_matrix"

DEVIATIONS = """\
deviations:
  pydantic-ai:
    - cell: openai-chat/gpt-4o/image/inline/result
      outcome: dropped
      reason: the image is not sent
      link: https://example.org/issue/1
"""


def api_of(row_id: str) -> Api:
    return next(api for api in ROW_API_NAMES if row_id.startswith(f"{api}/"))


def errors_of(path: str | Path) -> list[LocatedError]:
    with pytest.raises(MatrixError) as info:
        load_matrix(path)
    return info.value.errors


# --- bad input: one test case per kind ---------------------------------------------------


@pytest.mark.parametrize(
    ("name", "line", "col", "phrase"),
    [
        ("syntax", 16, 58, "YAML syntax error: expected ',' or '}', but got ']'"),
        ("tab", 8, 1, "indent with spaces, not tabs"),
        ("duplicate_key", 14, 11, "duplicate key 'prompt'"),
        (
            "unknown_expectation",
            16,
            28,
            "'nativ' is not a valid expectation; use one of: native, fallback, unsupported,"
            " refuse-or-download",
        ),
        (
            "unknown_known",
            20,
            45,
            "'docs' is not a valid value for known; use one of: doc, sdk, third-party, uncertain",
        ),
        (
            "missing_style",
            15,
            9,
            "rows.openai-chat/gpt-4o.cells.image.inline: missing style 'prompt'"
            " — every cell must be declared (expect, known, cite)",
        ),
        ("missing_content_type", 9, 5, "cells: missing content type 'audio'"),
        ("missing_source", 14, 7, "cells.image: missing source 'url'"),
        (
            "unknown_key_row",
            9,
            5,
            "unknown key 'notes' is not allowed here;"
            " allowed keys: model, served, note, released, deprecated, shutdown,"
            " error_result, cells",
        ),
        ("unknown_key_cell", 12, 58, "unknown key 'verified' is not allowed here"),
        (
            "missing_error_result",
            7,
            3,
            "rows.openai-chat/gpt-4o: missing key 'error_result'"
            " — a row needs model, served, released, error_result and cells",
        ),
        (
            "unknown_error_expectation",
            30,
            28,
            "'native' is not a valid error expectation; use one of: flag, text",
        ),
        ("unknown_citation", 24, 59, "unknown citation 'c2'; add it under `citations`"),
        ("unknown_api", 7, 3, "unknown api 'openai' in row id"),
        ("bad_row_id", 7, 3, "row id 'gpt-4o' must be '<api>/<family>'"),
        ("source_not_listed", 18, 9, "source 'url' is not listed in the top-level `sources`"),
        (
            "deviations_in_matrix",
            33,
            1,
            "unknown key 'deviations'",
        ),
        # a shared cell is reported once, where its anchor defines it
        ("alias_defect", 16, 35, "'nativ' is not a valid expectation"),
        ("merge_defect", 12, 60, "unknown citation 'c9'"),
        ("reused_anchor", 28, 19, "anchor '&none' is defined twice (first defined on line 24)"),
        ("empty", 1, 1, "the file is empty"),
        ("text_url", 14, 9, "cells.text: text has one source: remove 'url' under text"),
        (
            "refuse_or_download_inline",
            23,
            28,
            "'refuse-or-download' is for url cells only, not inline ones",
        ),
    ],
)
def test_bad_input_is_located(name: str, line: int, col: int, phrase: str) -> None:
    path = BAD / f"{name}.yaml"
    [error] = errors_of(path)
    assert (error.path, error.line, error.col) == (str(path), line, col)
    assert str(error) == f"{path}:{line}:{col}: {error.message}"
    assert phrase in error.message


def test_the_bad_files_are_copies_of_a_valid_one() -> None:
    matrix = load_matrix(BAD / "valid.yaml")
    assert len(matrix.cells()) == len(CONTENT_TYPES) * len(STYLES)
    assert [e.id for e in matrix.error_cells()] == ["openai-chat/gpt-4o/text/inline/error"]


def test_a_shared_cell_is_named_by_its_anchor_path() -> None:
    """The one error for a cell used in several places names the place its anchor defines it."""
    [aliased] = errors_of(BAD / "alias_defect.yaml")
    assert aliased.message.startswith("rows.openai-chat/gpt-4o.cells.image.inline.result.expect:")
    [merged] = errors_of(BAD / "merge_defect.yaml")
    assert merged.message.startswith("rows.openai-chat/gpt-4o.cells.text.inline.result.cite:")


def test_merged_and_aliased_cells_load_as_copies(tmp_path: Path) -> None:
    valid = (BAD / "valid.yaml").read_text()
    shared = valid.replace(
        "          result: {expect: fallback, known: sdk, cite: c1}\n"
        "          prompt: {expect: fallback, known: sdk, cite: c1}\n      document:",
        "          result: &image {expect: fallback, known: sdk, cite: c1}\n"
        "          prompt: {<<: *image, note: merged}\n      document:",
    )
    assert shared != valid
    path = tmp_path / "m.yaml"
    path.write_text(shared)
    image = load_matrix(path).row("openai-chat/gpt-4o").cells.image["inline"]
    assert image.prompt.note == "merged"
    assert image.prompt.model_copy(update={"note": None}) == image.result


def test_unknown_content_type_names_the_allowed_ones() -> None:
    path = BAD / "unknown_content_type.yaml"
    prefix = "rows.openai-chat/gpt-4o.cells"
    assert [str(e) for e in errors_of(path)] == [
        f"{path}:9:5: {prefix}: missing content type 'video'"
        " — every row must declare all of text, image, document, audio, video",
        f"{path}:26:7: {prefix}: unknown content type 'vidoe';"
        " use one of: text, image, document, audio, video (did you mean 'video'?)",
    ]


def test_several_errors_are_reported_together_in_file_order() -> None:
    path = BAD / "several_errors.yaml"
    with pytest.raises(MatrixError) as info:
        load_matrix(path)
    lines = str(info.value).splitlines()
    assert [line.split(": ", 1)[0] for line in lines] == [
        f"{path}:12:28",
        f"{path}:19:9",
        f"{path}:27:59",
    ]
    assert "'nativ' is not a valid expectation" in lines[0]
    assert "missing style 'prompt'" in lines[1]
    assert "unknown citation 'c9'" in lines[2]


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    [error] = errors_of(path)
    assert str(error) == f"{path}:1:1: no such file; give the path of a matrix.yaml"


def test_a_directory_is_not_a_matrix(tmp_path: Path) -> None:
    [error] = errors_of(tmp_path)
    assert (error.line, error.col) == (1, 1)
    assert error.message.startswith("cannot read the file")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("version: 1\nsources: [caf\xe9]\n".encode("latin-1"))
    [error] = errors_of(path)
    assert (error.line, error.col) == (1, 1)
    assert "not UTF-8: byte 0xe9" in error.message
    assert "(line 2)" in error.message


def test_a_relative_path_stays_relative(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BAD)
    with pytest.raises(MatrixError) as info:
        load_matrix("missing_style.yaml")
    assert str(info.value).startswith("missing_style.yaml:15:9: rows.openai-chat/gpt-4o.")


def test_the_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- version\n- rows\n")
    [error] = errors_of(path)
    assert str(error) == (
        f"{path}:1:1: the file must be a mapping with version, sources, citations and rows,"
        " not a list"
    )


def test_deviations_in_the_matrix_are_sent_to_their_own_file(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text((BAD / "valid.yaml").read_text() + DEVIATIONS)
    [error] = errors_of(path)
    assert "deviations live in their own file, deviations/<target>.yaml" in error.message


# --- the real matrix.yaml -------------------------------------------------------------------


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(MATRIX)


def test_the_matrix_covers_every_api_and_source(matrix: Matrix) -> None:
    assert len(matrix.rows) >= 14
    assert {row_id.partition("/")[0] for row_id in matrix.rows} == set(ROW_API_NAMES)
    assert matrix.sources == SOURCES
    for row_id, row in matrix.rows.items():
        for content_type in CONTENT_TYPES:
            sources = {"inline"} if content_type == "text" else {"inline", "url"}
            assert set(row.cells.get(content_type)) == sources, (row_id, content_type)


def test_every_row_declares_every_cell_once(matrix: Matrix) -> None:
    cells = matrix.cells()
    per_row = (len(CONTENT_TYPES) * len(matrix.sources) - (len(matrix.sources) - 1)) * 2
    assert len(cells) == len(matrix.rows) * per_row
    assert len({c.id for c in cells}) == len(cells)


def test_every_cell_cites_a_real_source(matrix: Matrix) -> None:
    for cell in matrix.all_cells():
        assert cell.cite is matrix.citations[cell.cite_id]
        assert cell.cite.url.startswith("https://")
        assert cell.cite.says.strip()
        assert cell.known in KNOWN
        if cell.known in ("uncertain", "third-party"):
            assert cell.note, f"{cell.id}: an {cell.known} cell must say why in its note"


def test_every_citation_is_cited(matrix: Matrix) -> None:
    cited = {c.cite_id for c in matrix.all_cells()}
    for row in matrix.rows.values():
        cited |= {d.cite for d in (row.released, row.deprecated, row.shutdown) if d is not None}
        cited |= set(row.served)
    assert set(matrix.citations) == cited


def test_both_styles_expect_the_same(matrix: Matrix) -> None:
    """A conformant target routes tool-produced user content like tool output (the file says so)."""
    by_place: dict[tuple[str, str, str], set[str]] = {}
    for cell in matrix.cells():
        by_place.setdefault((cell.row_id, cell.content_type, cell.source), set()).add(cell.expect)
    assert all(len(expects) == 1 for expects in by_place.values())


def test_text_has_one_source(matrix: Matrix) -> None:
    """Text cannot be given by URL: its cells are inline only, so no verdict counts twice."""
    for row in matrix.rows.values():
        assert set(row.cells.text) == {"inline"}
    assert not [c.id for c in matrix.all_cells() if c.content_type == "text" and c.source == "url"]


def test_url_cells_know_their_inline_cell(matrix: Matrix) -> None:
    """A download is judged as the inline cell of the same row, type and style."""
    either = [c for c in matrix.cells() if c.expect == "refuse-or-download"]
    assert either, "the matrix has url cells whose api has no URL form"
    assert all(c.source == "url" for c in either)
    urls = [c for c in matrix.cells() if c.source == "url"]
    for cell in urls:
        inline = matrix.cell(cell.id.replace("/url/", "/inline/"))
        assert cell.inline_expect == inline.expect != "refuse-or-download"
    assert all(c.inline_expect is None for c in matrix.all_cells() if c not in urls)


def test_every_row_has_an_error_result(matrix: Matrix) -> None:
    errors = matrix.error_cells()
    assert [e.row_id for e in errors] == list(matrix.rows)
    for error in errors:
        assert error.id == f"{error.row_id}/text/inline/error"
        assert error.id == f"{error.api}/{error.family}/text/inline/error"
        assert error.expect == "native"
        assert error.error in ERROR_EXPECTATIONS
        assert error.model == matrix.row(error.row_id).model
        assert matrix.cell(error.id) == error
    assert {e.error for e in errors} == set(ERROR_EXPECTATIONS)
    assert matrix.all_cells() == [*matrix.cells(), *errors]


def test_error_cell_spec_fields(matrix: Matrix) -> None:
    row_id, row = next(iter(matrix.rows.items()))
    declared = row.error_result
    assert matrix.error_cells()[0] == CellSpec(
        row_id=row_id,
        api=api_of(row_id),
        family=row_id.partition("/")[2],
        model=row.model,
        content_type="text",
        source="inline",
        style="error",
        expect="native",
        known=declared.known,
        cite=matrix.citations[declared.cite],
        cite_id=declared.cite,
        note=declared.note,
        error=declared.expect,
    )


def test_cells_order(matrix: Matrix) -> None:
    order = [(c.row_id, c.content_type, c.source, c.style) for c in matrix.cells()]
    every = itertools.product(matrix.rows, CONTENT_TYPES, matrix.sources, STYLES)
    assert order == [o for o in every if o[1] != "text" or o[2] == "inline"]


def test_cell_spec_fields_and_id(matrix: Matrix) -> None:
    row_id, row = next(iter(matrix.rows.items()))
    declared = row.cells.image["url"].prompt
    spec = matrix.cell(f"{row_id}/image/url/prompt")
    assert spec == CellSpec(
        row_id=row_id,
        api=api_of(row_id),
        family=row_id.partition("/")[2],
        model=row.model,
        content_type="image",
        source="url",
        style="prompt",
        expect=declared.expect,
        known=declared.known,
        cite=matrix.citations[declared.cite],
        cite_id=declared.cite,
        note=declared.note,
        inline_expect=row.cells.image["inline"].prompt.expect,
    )
    for cell in matrix.cells():
        assert cell.id == f"{cell.api}/{cell.family}/{cell.content_type}/{cell.source}/{cell.style}"


def test_digest_is_of_the_file_bytes_and_stable(tmp_path: Path) -> None:
    first, second = load_matrix(MATRIX), load_matrix(MATRIX)
    expected = "sha256:" + hashlib.sha256(MATRIX.read_bytes()).hexdigest()
    assert first.digest == second.digest == expected

    copy = tmp_path / "matrix.yaml"
    shutil.copy(MATRIX, copy)
    with copy.open("a") as f:
        f.write("# a comment changes the bytes, not the content\n")
    edited = load_matrix(copy)
    assert edited.digest != first.digest
    assert edited == first


def test_digest_of_a_matrix_built_in_code(matrix: Matrix) -> None:
    built = Matrix.model_validate(matrix.model_dump())
    assert built == matrix
    assert built.digest == "sha256:" + hashlib.sha256(built.model_dump_json().encode()).hexdigest()
    assert built.digest == Matrix.model_validate(matrix.model_dump()).digest


def test_a_matrix_built_in_code_gets_the_same_cross_checks(matrix: Matrix) -> None:
    data = matrix.model_dump()
    row_id = next(iter(data["rows"]))
    data["rows"][row_id]["cells"]["video"]["url"]["prompt"]["cite"] = "x"
    with pytest.raises(ValidationError, match="unknown citation 'x'"):
        Matrix.model_validate(data)


def test_row_lookup(matrix: Matrix) -> None:
    for row_id, row in matrix.rows.items():
        assert matrix.row(row_id) is row
    with pytest.raises(KeyError, match="no row 'gemini/gemini-1'"):
        matrix.row("gemini/gemini-1")


def test_a_matrix_built_in_code_needs_error_results(matrix: Matrix) -> None:
    data = matrix.model_dump()
    row_id = next(iter(data["rows"]))
    data["rows"][row_id]["error_result"]["cite"] = "x"
    with pytest.raises(ValidationError, match=r"error_result\.cite: unknown citation 'x'"):
        Matrix.model_validate(data)
    del data["rows"][row_id]["error_result"]
    with pytest.raises(ValidationError, match="error_result"):
        Matrix.model_validate(data)


# --- vocabulary and schema ------------------------------------------------------------------


def test_vocabulary() -> None:
    assert CONTENT_TYPES == ("text", "image", "document", "audio", "video")
    assert SOURCES == ("inline", "url")
    assert STYLES == ("result", "prompt")
    assert EXPECTATIONS == ("native", "fallback", "unsupported", "refuse-or-download")
    assert ERROR_EXPECTATIONS == ("flag", "text")
    assert KNOWN == ("doc", "sdk", "third-party", "uncertain")
    assert {"crashed", "malformed", "duplicated", "altered: media type", "altered: bytes"} <= set(
        OUTCOMES
    )
    assert len(OUTCOMES) == len(set(OUTCOMES)) == 13
    # the ten of the design, Claude and Gemini on Vertex AI, and Claude through Bedrock InvokeModel
    assert len(ROW_API_NAMES) == 13
    assert {"anthropic-vertex", "gemini-vertex", "anthropic-bedrock"} <= set(ROW_API_NAMES)


def test_json_schema_lets_editors_complete_keys() -> None:
    schema = json_schema()
    defs = schema["$defs"]
    assert list(defs["RowCells"]["properties"]) == list(CONTENT_TYPES)
    assert defs["RowCells"]["additionalProperties"] is False
    assert defs["Cell"]["properties"]["expect"]["enum"] == list(EXPECTATIONS)
    assert defs["Cell"]["properties"]["known"]["enum"] == list(KNOWN)
    assert defs["ErrorCell"]["properties"]["expect"]["enum"] == list(ERROR_EXPECTATIONS)
    assert "error_result" in defs["Row"]["required"]
    assert list(schema["properties"]["rows"]["patternProperties"]) == [ROW_ID_PATTERN]
    assert schema["properties"]["rows"]["additionalProperties"] is False
    assert list(defs["RowCells"]["properties"]["image"]["properties"]) == list(SOURCES)
    assert list(defs["RowCells"]["properties"]["text"]["properties"]) == ["inline"]
    assert schema["$schema"].startswith("https://json-schema.org/")


def test_committed_schema_is_the_generated_one() -> None:
    """matrix.schema.json is what `conformance schema` prints; regenerate it after a change."""
    committed = json.loads((MATRIX.parent / "matrix.schema.json").read_text(encoding="utf-8"))
    assert committed == json_schema(), "run: conformance schema -o matrix.schema.json"
