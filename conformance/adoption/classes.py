"""`conformance classes`: a target's required failures by class, as the Markdown table its
docs keep ("Required failures that remain").

A class is a rule of the target's reasons file (`conformance.adoption.reasons`): the rule that
gives a failing cell its reason, matched exactly as `conformance deviations` matches it (first
match wins). Rules with the same `title` are one class. The counts come from the results file;
what a person writes comes from the rule: its `title` (else its notes anchor) and its
`sample`, the one outcome of the class read by hand in the framework's source.

Docs keep the table between two comments, the first naming the command that writes it, so
`tests/test_committed_docs_tables.py` can check that a doc's table is the command's output:

```markdown
<!-- conformance classes results/x/1.0.jsonl.gz --target x --reasons deviations/x.reasons.yaml -->
| class | cells | uncertain | required checks failed | sample read by hand |
...
<!-- end conformance classes -->
```
"""

from __future__ import annotations

import re
import shlex
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conformance.adoption.reasons import Rule, Rules, load_rules, rule_for_cell, rule_for_property
from conformance.judging.levels import PROPERTY_LEVELS
from conformance.reports.results import ReportError, ResultLine, Results, load_results

__all__ = ["BEGIN", "END", "Class", "classes", "main_text", "render_classes", "write_classes"]

BEGIN = "<!-- conformance classes "
END = "<!-- end conformance classes -->"
UNREASONED = "no rule of the reasons file (a placeholder reason)"


@dataclass
class Class:
    """One class of required failures: the cells and properties one rule (or one title)
    gives a reason to."""

    title: str
    sample: str = ""
    cells: set[str] = field(default_factory=set[str])
    uncertain: set[str] = field(default_factory=set[str])
    properties: set[str] = field(default_factory=set[str])
    checks: Counter[str] = field(default_factory=Counter[str])


def _title(rule: Rule | None) -> str:
    if rule is None:
        return UNREASONED
    if rule.title:
        return rule.title
    if rule.notes:
        return f"({rule.notes.rsplit('#', 1)[-1]})" if "#" in rule.notes else rule.notes
    return rule.reason.split(";", 1)[0][:80]


def classes(results: Results, target: str, rules: Rules) -> list[Class]:
    """Every class of `target`'s entries that fail a required check (fail or xfail), most
    cells first, then properties, then by title."""
    found: dict[object, Class] = {}

    def of(rule: Rule | None) -> Class:
        # One class per title; a rule without one is a class of its own.
        key: object = rule.title if rule is not None and rule.title else id(rule)
        known = found.setdefault(key, Class(_title(rule)))
        if rule is not None and rule.sample and not known.sample:
            known.sample = rule.sample
        return known

    lines_of: dict[str, list[ResultLine]] = {}
    for file in results.files:
        for line in file.results:
            if line.target == target:
                lines_of.setdefault(line.cell, []).append(line)
    for cell, lines in lines_of.items():
        required = [x for x in lines if x.verdict in ("fail", "xfail") and x.level == "required"]
        if not required:
            continue
        the = of(rule_for_cell(rules, lines))
        the.cells.add(cell)
        if lines[0].known == "uncertain":
            the.uncertain.add(cell)
        the.checks.update({x.check for x in required})
    for file in results.files:
        for line in file.properties:
            if line.target != target or line.verdict not in ("fail", "xfail"):
                continue
            if PROPERTY_LEVELS[line.check] != "required":
                continue
            the = of(rule_for_property(rules, line))
            the.properties.add(line.cell)
            the.checks[line.check] += 1
    for the in found.values():
        named = _SAMPLE_CELL.match(the.sample)
        if named and named[1] not in the.cells | the.properties:
            raise ReportError(
                f"the sample of class {the.title!r} names {named[1]}, which is not one of its"
                f" cells: read a sample of the class ({', '.join(sorted(the.cells)[:3])}, ...)"
            )
    return sorted(found.values(), key=lambda c: (-len(c.cells), -len(c.properties), c.title))


_SAMPLE_CELL = re.compile(r"`((?:[a-z0-9.-]+/){3,}[a-z]+|property/[a-z-]+)`")
"""A sample that starts with a cell id (or a property) in backticks: it must be the class's."""


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def render_classes(found: Sequence[Class], *, command: str) -> str:
    """The table with its two comments and a line of totals above it."""
    cells = sum(len(c.cells) for c in found)
    uncertain = sum(len(c.uncertain) for c in found)
    properties = sum(len(c.properties) for c in found)
    lines = [
        f"{BEGIN}{command} -->",
        f"{_count(cells, 'cell', 'cells')} and {_count(properties, 'property', 'properties')}"
        f" fail a required check; {uncertain} of the"
        " cells rest on unsettled expectations (`known: uncertain`), counted apart. A cell is"
        " counted once, in the class of the rule that gives its reason.",
        "",
        "| class | cells | uncertain | required checks failed | sample read by hand |",
        "|---|---|---|---|---|",
    ]
    for the in found:
        counted = [str(len(the.cells))] if the.cells else []
        if the.properties:
            counted.append(_count(len(the.properties), "property", "properties"))
        checks = ", ".join(f"{name} {n}" for name, n in sorted(the.checks.items(), key=_worst))
        lines.append(
            f"| {_cell(the.title)} | {' + '.join(counted)} | {len(the.uncertain)}"
            f" | {checks} | {_cell(the.sample)} |"
        )
    lines.append(END)
    return "\n".join(lines) + "\n"


def _worst(item: tuple[str, int]) -> tuple[int, str]:
    return (-item[1], item[0])


def main_text(results: str, target: str, reasons: str | None) -> str:
    """What `conformance classes` prints for these arguments."""
    loaded = load_results([results])
    names = {line.target for file in loaded.files for line in file.results}
    if target not in names:
        raise ReportError(f"{results}: no results of target {target!r}; it has {sorted(names)}")
    rules = load_rules(reasons) if reasons else Rules()
    command = shlex.join(
        ["conformance", "classes", results, "--target", target]
        + (["--reasons", reasons] if reasons else [])
    )
    return render_classes(
        classes(loaded, target, rules), command=command.removeprefix("conformance classes ")
    )


def write_classes(results: str, target: str, reasons: str | None) -> int:
    sys.stdout.write(main_text(results, target, reasons))
    return 0


def tables_in(doc: Path) -> list[tuple[str, str]]:
    """Each table a doc keeps: (its command's arguments, the text from its first comment to
    its last, both included). The comments stand on lines of their own."""
    text = doc.read_text(encoding="utf-8")
    out: list[tuple[str, str]] = []
    for begin in re.finditer(rf"^{re.escape(BEGIN)}(.*) -->$", text, re.MULTILINE):
        end = text.find(f"\n{END}\n", begin.end())
        if end == -1:
            raise ReportError(f"{doc}: {begin[0]} has no {END} on a line of its own after it")
        out.append((begin[1], text[begin.start() : end + len(END) + 2]))
    return out
