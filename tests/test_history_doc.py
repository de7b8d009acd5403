"""docs/history.md, the reference for target authors: it names every history type and field,
every style and source of the scenarios, the Target protocol's optional attributes and the
toolkit's recipes; it ships in the wheel and the scaffold points at it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import get_args

import pydantic
import pytest

from conformance import history
from conformance.adoption import init
from conformance.running.config import packaged
from conformance.scenarios import build
from conformance.targets import recipes

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "history.md").read_text(encoding="utf-8")
CODE = set(re.findall(r"`([^`]+)`", DOC))
"""Every code span of the page."""


def _models() -> list[type[pydantic.BaseModel]]:
    return [
        value
        for name in history.__all__
        if isinstance(value := getattr(history, name), type)
        and issubclass(value, pydantic.BaseModel)
        and name != "ExecutionEvent"
    ]


@pytest.mark.parametrize("model", _models(), ids=lambda m: m.__name__)
def test_every_history_type_and_field_is_documented(model: type[pydantic.BaseModel]) -> None:
    assert model.__name__ in CODE or f"`{model.__name__}`" in DOC
    table = DOC.split("## What each scenario holds")[0]
    for field in model.model_fields:
        assert f"`{field}`" in table or f"`{field}: " in table, f"{model.__name__}.{field}"


def test_every_style_source_and_fixture_is_documented() -> None:
    for style in get_args(build.Style):
        assert f"`{style}`" in DOC, style
    for source in get_args(build.Source):
        assert f"`{source}`" in DOC, source
    for call in build.CALL_IDS:
        assert call in DOC
    assert build.PROMPT in DOC
    assert build.PROMPT_STYLE_RESULT_TEXT in DOC
    for content_type in ("image", "document", "audio", "video"):
        assert build.fixture_name(content_type, 1) in DOC
        assert build.fixture_name(content_type, 2) in DOC or "..." in DOC


def test_the_protocol_and_the_recipes_are_documented() -> None:
    for attribute in ("refusal_types", "not_applicable", "sdk_versions", "unavailable", "layers"):
        assert f"`{attribute}" in DOC, attribute
    for method in ("supports(self, row", "render(self, row", "render_stored(self, row"):
        assert method in DOC, method
    assert "repro(row, history) -> str" in DOC
    for name in recipes.__all__:
        assert name in DOC, name
    for words in ("LITELLM_LOCAL_MODEL_COST_MAP", "user_url_allowed_hosts", "suppress_debug_info"):
        assert words in DOC


def test_the_page_ships_in_the_wheel_and_the_scaffold_points_at_it() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert shipped["docs"] == "conformance/data/docs"
    assert packaged("docs/history.md").is_file()
    template = (Path(init.__file__).parent / "templates" / "target.py").read_text("utf-8")
    assert "data/docs/history.md" in template
    assert "def repro(self, row: RowRef, history: History) -> str:" in template
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/history.md)" in readme
