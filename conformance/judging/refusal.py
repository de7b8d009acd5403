"""A typed refusal before sending never fails a `required` check.

`required` protects the user's data (`conformance.judging.levels`). A target that raises its
declared refusal type before anything is sent loses nothing: the user gets a clear error. A
check that judges the payload (`text-identical`, `error-flag`) has none to judge then, and
used to fail with "no payload to carry the text" on a cell the row could carry. That is a
capability gap, not damage: the reports count it in the target's capability ("carried N of M
carriable cells", `conformance.reports.figures`), and the `reference` level's `outcome` check
still fails it (the row expected the media carried).

Applied by the plugin to each check's result (`conformance.running.engine`), after the check
and before the deviations file. A refusal that changed the history in place is still a
finding (no-silent-loss reports it), so it is never excused here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from conformance.judging.checks import CheckResult
from conformance.judging.levels import CHECK_LEVELS

if TYPE_CHECKING:
    from conformance.judging.checks import CellRun

__all__ = ["PAYLOAD_CHECKS", "refusal_kept"]

PAYLOAD_CHECKS: Final[frozenset[str]] = frozenset({"text-identical", "error-flag"})
"""The required checks that judge a payload and have none on a refusal."""


def refusal_kept(run: CellRun, check: str, result: CheckResult) -> CheckResult:
    """`result`, or a pass where the only fault is that the target refused, typed, before
    sending, on a check of the `required` level."""
    if result.passed or check not in PAYLOAD_CHECKS or CHECK_LEVELS.get(check) != "required":
        return result
    if run.observation.outcome != "raised" or run.first.payload is not None:
        return result
    if run.first.changed is not None or run.stored.changed is not None:
        return result
    return CheckResult(
        True,
        f"nothing sent, nothing lost: {run.first.describe()} before sending (a typed refusal;"
        " what the row could carry and the target did not is counted in its capability)",
    )
