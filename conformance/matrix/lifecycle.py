"""Where each model row stands in its provider's lifecycle on a given day.

A row names a model id; providers retire ids on announced dates. `lifecycle_findings` says which
rows are past their shutdown on a day (an error: the row tests a model nobody can call) or
within `WARN_DAYS` of it (a warning: replace the row soon). The day is the matrix's `as_of`, or
any other day (`conformance check --today`). A shutdown date is the first day requests fail, so
a row is past shutdown on that very day.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Final, Literal

from conformance.matrix.model import Matrix, Row

__all__ = [
    "WARN_DAYS",
    "LifecycleFinding",
    "Status",
    "lifecycle_findings",
    "lifecycle_meta",
    "located_findings",
    "row_status",
    "status_on",
]

WARN_DAYS: Final = 60
"""A row whose shutdown is at most this many days away is flagged."""

Status = Literal["active", "deprecated", "near-shutdown", "past-shutdown"]
"""A row on a given day: no retirement announced; announced, shutdown further than `WARN_DAYS`
away (or not dated); shutdown at most `WARN_DAYS` away; shutdown on or before that day."""


def row_status(row: Row, on: dt.date) -> Status:
    """Where the row's model id stands on the day `on`."""
    return status_on(
        None if row.deprecated is None else row.deprecated.date,
        None if row.shutdown is None else row.shutdown.date,
        on,
    )


def status_on(deprecated: dt.date | None, shutdown: dt.date | None, on: dt.date) -> Status:
    """Where a model with these announced dates stands on the day `on`."""
    if shutdown is not None:
        days = (shutdown - on).days
        if days <= 0:
            return "past-shutdown"
        if days <= WARN_DAYS:
            return "near-shutdown"
    if deprecated is not None or shutdown is not None:
        return "deprecated"
    return "active"


@dataclass(frozen=True)
class LifecycleFinding:
    """A row past or near its shutdown on a given day."""

    row_id: str
    severity: Literal["error", "warning"]
    shutdown: dt.date
    days: int
    """Days from the reference day to the shutdown; zero or negative once past it."""
    message: str


def lifecycle_findings(matrix: Matrix, on: dt.date | None = None) -> list[LifecycleFinding]:
    """Rows past their shutdown (errors) or within `WARN_DAYS` of it (warnings) on `on`, which
    defaults to the matrix's `as_of`; in file order."""
    day = matrix.as_of if on is None else on
    what = "as_of" if on is None else "the given day"
    findings: list[LifecycleFinding] = []
    for row_id, row in matrix.rows.items():
        status = row_status(row, day)
        if row.shutdown is None or status not in ("past-shutdown", "near-shutdown"):
            continue
        shutdown = row.shutdown.date
        days = (shutdown - day).days
        if status == "past-shutdown":
            message = (
                f"row {row_id!r} names {row.model!r}, shut down on {shutdown.isoformat()}"
                f" ({-days} days before {what} {day.isoformat()}); replace the row with the"
                " model its provider serves today"
            )
            findings.append(LifecycleFinding(row_id, "error", shutdown, days, message))
        else:
            message = (
                f"row {row_id!r} names {row.model!r}, which shuts down on"
                f" {shutdown.isoformat()}, {days} days after {what} {day.isoformat()}"
                f" (warned within {WARN_DAYS} days); plan its replacement"
            )
            findings.append(LifecycleFinding(row_id, "warning", shutdown, days, message))
    return findings


def located_findings(path: str, findings: list[LifecycleFinding]) -> list[str]:
    """Each finding as `path:line:col: error|warning: message`, at the row's shutdown date."""
    from conformance.matrix.load import locate

    lines: list[str] = []
    for finding in findings:
        line, col = locate(path, ("rows", finding.row_id, "shutdown", "date"))
        lines.append(f"{path}:{line}:{col}: {finding.severity}: {finding.message}")
    return lines


def lifecycle_meta(matrix: Matrix) -> dict[str, dict[str, str]]:
    """Per row, its lifecycle dates as ISO strings (absent ones left out), for a results file's
    meta line, so that a report can mark rows near or past shutdown without the matrix."""
    out: dict[str, dict[str, str]] = {}
    for row_id, row in matrix.rows.items():
        dates = {"released": row.released, "deprecated": row.deprecated, "shutdown": row.shutdown}
        out[row_id] = {key: d.date.isoformat() for key, d in dates.items() if d is not None}
    return out
