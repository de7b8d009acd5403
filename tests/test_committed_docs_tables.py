"""The docs' tables of required failures are what `conformance classes` writes.

Each `docs/*.md` table between `<!-- conformance classes ARGS -->` and
`<!-- end conformance classes -->` must be the command's output for those arguments, byte for
byte: counts come from the committed results, titles and samples from the reasons file.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from conformance.adoption.classes import BEGIN, END, main_text, tables_in
from conformance.adoption.reasons import Rules, load_rules
from conformance.reports.results import ReportError, load_results

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))
TABLES = [(doc, arguments, block) for doc in DOCS for arguments, block in tables_in(doc)]


def _run(arguments: str) -> str:
    words = shlex.split(arguments)
    results, target = words[0], words[words.index("--target") + 1]
    reasons = words[words.index("--reasons") + 1] if "--reasons" in words else None
    return main_text(results, target, reasons)


def test_some_docs_keep_a_generated_table() -> None:
    kept = {doc.name for doc, _, _ in TABLES}
    assert kept >= {f"{t}.md" for t in ("ai-sdk", "litellm", "llamaindex", "strands")}
    assert kept >= {"openai-agents.md", "openai-agents-litellm.md", "deviations.md", "langchain.md"}


@pytest.mark.parametrize(
    ("doc", "arguments", "block"),
    TABLES,
    ids=[f"{doc.name}:{arguments.split()[0]}" for doc, arguments, _ in TABLES],
)
def test_a_docs_table_is_the_generators_output(
    doc: Path, arguments: str, block: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the arguments are paths from the repository's root
    assert block == _run(arguments), (
        f"{doc.relative_to(ROOT)}: regenerate the table: conformance classes {arguments}"
    )


def test_the_generator_counts_what_the_results_say(tmp_path: Path) -> None:
    """A changed count, a class without its rule and a block without its end are caught."""
    from conformance.adoption.classes import classes

    results = ROOT / "results" / "openai-agents" / "0.24.0.jsonl.gz"
    loaded = load_results([results])
    rules = load_rules(ROOT / "deviations" / "openai-agents.reasons.yaml")
    found = {c.title: c for c in classes(loaded, "openai-agents", rules)}
    placeholder = found["[Chat Completions placeholder](#chat-placeholder) (`noted`)"]
    assert len(placeholder.cells) == 10
    assert placeholder.checks["no-silent-loss"] == 10
    assert all(c.startswith("openai-chat/") for c in placeholder.cells)
    bare = classes(loaded, "openai-agents", Rules())
    assert [c.title for c in bare] == ["no rule of the reasons file (a placeholder reason)"]
    assert len(bare[0].cells) == sum(len(c.cells) for c in found.values())
    wrong = Rules(
        rules=tuple(
            r.model_copy(update={"sample": "`openai-responses/gpt-6/audio/inline/result`: x"})
            for r in rules.rules
        )
    )
    with pytest.raises(ReportError, match="which is not one of its cells"):
        classes(loaded, "openai-agents", wrong)
    doc = tmp_path / "x.md"
    doc.write_text(f"{BEGIN}a --target b -->\n| x |\n", encoding="utf-8")
    with pytest.raises(ReportError, match="has no"):
        tables_in(doc)
    doc.write_text(f"{BEGIN}a --target b -->\n| x |\n{END}\n", encoding="utf-8")
    assert tables_in(doc) == [("a --target b", f"{BEGIN}a --target b -->\n| x |\n{END}\n")]


def test_the_totals_line_says_one_property_and_one_cell_in_the_singular() -> None:
    from conformance.adoption.classes import Class, render_classes

    one = Class(title="t", sample="s", cells={"a/b/image/inline/result"}, properties={"property/x"})
    text = render_classes([one], command="r --target t")
    assert "1 cell and 1 property fail a required check" in text
    two = Class(title="t", sample="s", cells={"a", "b"}, properties={"p", "q"})
    assert "2 cells and 2 properties fail" in render_classes([two], command="r --target t")
