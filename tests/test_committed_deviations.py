"""Every committed deviations file is what `conformance deviations` writes from the committed
results of its target's latest release and the person-written reasons beside it.

So a deviations file cannot drift from what the framework was last seen to do (a rerun that
changes a verdict changes the file, or this fails), a hand edit that no rule explains is
refused, and every reason is a person's: its link goes to the framework's tracker, its notes
anchor exists. These checks need no framework installed, so they run in the `tests` session
for every target at once, variants included (a target's own tests only run in its session).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.adoption.reasons import from_results, load_rules, render_deviations
from conformance.judging.deviations import load_deviations
from conformance.matrix import load_matrix
from conformance.reports.results import load_results

ROOT = Path(__file__).resolve().parent.parent
DEVIATIONS = ROOT / "deviations"
RESULTS = ROOT / "results"

# Where a framework's bugs are tracked, as https://github.com/<owner>/<repo>: a reason links
# there, or to a layer the target goes through (LiteLLM under three of them; langchain's
# integrations live in repositories of their own). Named by the framework, so a variant
# (`<framework>.<variant>`) links where its framework does.
TRACKERS = {
    "pydantic-ai": ("pydantic/pydantic-ai",),
    "litellm": ("BerriAI/litellm",),
    "langchain": ("langchain-ai/",),
    "openai-agents": ("openai/openai-agents-python",),
    "openai-agents-litellm": ("openai/openai-agents-python", "BerriAI/litellm"),
    "strands": ("strands-agents/",),
    "strands-litellm": ("strands-agents/", "BerriAI/litellm"),
    "llamaindex": ("run-llama/",),
    "google-adk": ("google/adk-python",),
    "google-adk-litellm": ("google/adk-python", "BerriAI/litellm"),
    "ai-sdk": ("vercel/ai",),
}
_LINK = re.compile(r"https://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull|discussions)/\d+")


def _targets() -> list[str]:
    return sorted(p.name.removesuffix(".reasons.yaml") for p in DEVIATIONS.glob("*.reasons.yaml"))


def _latest(target: str) -> Path:
    """The committed results of the target's newest release (stored under its framework's name
    for a variant run with it, else under its own)."""
    for name in (target, target.partition(".")[0]):
        folder = RESULTS / name
        if folder.is_dir():
            files = sorted(
                folder.glob("*.jsonl.gz"),
                key=lambda p: tuple(int(n) for n in re.findall(r"\d+", p.name)),
            )
            if files:
                return files[-1]
    raise AssertionError(f"{target}: no committed results under {RESULTS}")


def test_every_target_with_deviations_has_reasons_and_a_tracker() -> None:
    files = {p.name.removesuffix(".yaml") for p in DEVIATIONS.glob("*.yaml")}
    deviations = {n for n in files if not n.endswith(".reasons")}
    assert deviations == set(_targets())
    assert {t.partition(".")[0] for t in deviations} <= set(TRACKERS)


@pytest.mark.parametrize("target", _targets())
def test_the_deviations_are_written_from_the_results_and_the_reasons(target: str) -> None:
    rules = load_rules(DEVIATIONS / f"{target}.reasons.yaml")
    results = load_results([_latest(target)])
    expected = render_deviations(target, from_results(results, target, rules))
    committed = (DEVIATIONS / f"{target}.yaml").read_text(encoding="utf-8")
    assert "TODO" not in expected, f"{target}: a deviation no rule gives a reason for"
    assert committed == expected, (
        f"deviations/{target}.yaml is not what `conformance deviations {_latest(target).name}"
        f" --target {target} --reasons deviations/{target}.reasons.yaml` writes: regenerate it"
    )
    matrix = load_matrix(ROOT / "matrix.yaml")
    cells = [c.id for c in [*matrix.cells(), *matrix.error_cells()]]
    load_deviations(DEVIATIONS / f"{target}.yaml", target=target, cells=cells)


@pytest.mark.parametrize("target", _targets())
def test_each_reason_links_the_frameworks_tracker_and_its_notes_exist(target: str) -> None:
    rules = load_rules(DEVIATIONS / f"{target}.reasons.yaml").rules  # keys, regexes checked
    assert rules
    trackers = TRACKERS[target.partition(".")[0]]
    for rule in rules:
        assert len(rule.reason.split()) >= 8, rule
        if rule.link is not None:
            found = _LINK.fullmatch(rule.link)
            assert found, f"{target}: {rule.link} is not an issue or PR on GitHub"
            assert found.group(1).startswith(trackers), (target, rule.link, trackers)
        assert rule.notes, rule
        path, _, anchor = rule.notes.partition("#")
        assert re.fullmatch(r"docs/[\w.-]+\.md", path), rule.notes
        assert anchor in _anchors(ROOT / path), f"{target}: {rule.notes}: no such anchor"


def _anchors(page: Path) -> set[str]:
    """The anchors of a Markdown page as GitHub renders it: its `<a id>`s and the slug of each
    heading (lower case, punctuation but `-` and `_` dropped, spaces as `-`)."""
    text = page.read_text(encoding="utf-8")
    found = set(re.findall(r'<a id="([^"]+)"', text))
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.MULTILINE):
        found.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return found
