"""Variants of a framework target (`<framework>.<variant>`, `variant_of` naming the framework):
one results file holds the framework and its variants, stored under the framework, and the
comparison shows each variant as its own column right after its framework's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.reports.compare import build_comparison, column_words, render_compare_markdown
from conformance.reports.results import ReportError, load_results
from conformance.reports.store import import_results
from conformance.running.engine import variant_of
from results_data import checks, meta, write

IMAGE = "openai-chat/gpt-4o/image/inline/result"
LL, AM = "litellm", "litellm.anthropic-messages"


def _lines(target: str, version: str, verdict: str = "pass") -> list[dict[str, Any]]:
    return [
        line | {"target": target, "target_version": version}
        for line in checks(IMAGE, verdict=verdict, detail="x")
    ]


def framework_file(
    tmp_path: Path, version: str = "1.110.2", *, variants: dict[str, str] | None = None,
    drop: bool = False, name: str = "r.jsonl",
) -> Path:  # fmt: skip
    """A run of litellm and its variant; `drop` leaves the variant's results out."""
    chosen = {AM: LL} if variants is None else variants
    head = meta(**{LL: version, **dict.fromkeys(chosen, version)})
    head["variant_of"] = chosen
    lines = _lines(LL, version) + ([] if drop else _lines(AM, version, "fail"))
    return write(tmp_path / name, lines, head=head)


class _Target:
    def __init__(self, name: str, variant: str | None = None) -> None:
        self.name = name
        if variant is not None:
            self.variant_of = variant


def test_the_meta_line_names_each_variants_framework() -> None:
    targets = [_Target(LL), _Target(AM, LL), _Target("reference")]
    assert variant_of(targets) == {AM: LL}
    assert variant_of([_Target(LL)]) == {}


def test_a_framework_and_its_variants_are_stored_as_one_release(tmp_path: Path) -> None:
    (done,) = import_results([framework_file(tmp_path)], tmp_path / "results")
    assert done.stored == tmp_path / "results" / LL / "1.110.2.jsonl.gz"
    loaded = load_results([done.stored]).files[0].meta
    assert loaded.variant_of == {AM: LL}


def test_a_variant_of_another_framework_is_refused(tmp_path: Path) -> None:
    path = framework_file(tmp_path, variants={AM: "langchain"})
    with pytest.raises(ReportError, match=r"not of litellm 1\.110\.2"):
        import_results([path], tmp_path / "results")


def test_a_variant_at_another_version_is_refused(tmp_path: Path) -> None:
    head = meta(**{LL: "1.110.2", AM: "1.90.0"})
    head["variant_of"] = {AM: LL}
    lines = _lines(LL, "1.110.2") + _lines(AM, "1.90.0")
    path = write(tmp_path / "r.jsonl", lines, head=head)
    with pytest.raises(
        ReportError, match=r"variant litellm\.anthropic-messages is of litellm at 1\.90"
    ):
        import_results([path], tmp_path / "results")


def test_a_variant_run_without_its_framework_is_stored_as_its_own_target(tmp_path: Path) -> None:
    head = meta(**{AM: "1.110.2"})
    head["variant_of"] = {AM: LL}
    path = write(tmp_path / "r.jsonl", _lines(AM, "1.110.2"), head=head)
    (done,) = import_results([path], tmp_path / "results")
    assert done.stored == tmp_path / "results" / AM / "1.110.2.jsonl.gz"


def test_the_variant_is_a_column_right_after_its_framework(tmp_path: Path) -> None:
    other = write(tmp_path / "ref.jsonl", checks(IMAGE))  # the reference first
    comparison = build_comparison([other, framework_file(tmp_path)])
    assert [c.target for c in comparison.columns] == ["reference", LL, AM]
    assert [c.variant_of for c in comparison.columns] == [None, None, LL]
    assert column_words(comparison.columns[2]) == "↳ anthropic-messages"
    (row,) = comparison.rows
    # the variant's own cells (failing), not its framework's (passing)
    assert [g.cells[0].status for g in row.targets] == ["pass", "pass", "fail"]
    text = render_compare_markdown(comparison)
    assert "| reference 0.1.0 | litellm 1.110.2 | ↳ anthropic-messages |" in text


def test_a_dropped_variant_is_missing_from_the_comparison(tmp_path: Path) -> None:
    """The check fails when a variant's results are dropped: its column has no cells."""
    comparison = build_comparison([framework_file(tmp_path, drop=True)])
    assert [c.target for c in comparison.columns] == [LL, AM]  # named in the meta line
    (row,) = comparison.rows
    assert [len(g.cells) for g in row.targets] == [1, 0]


def test_a_variant_without_variant_of_is_no_sub_column(tmp_path: Path) -> None:
    """Mis-grouped (meta without `variant_of`): a column of its own, not a sub-column."""
    head = meta(**{LL: "1.110.2", AM: "1.110.2"})
    path = write(tmp_path / "r.jsonl", _lines(LL, "1.110.2") + _lines(AM, "1.110.2"), head=head)
    comparison = build_comparison([path])
    assert [c.variant_of for c in comparison.columns] == [None, None]
    assert column_words(comparison.columns[1]) == f"{AM} 1.110.2"
