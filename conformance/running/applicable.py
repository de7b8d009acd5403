"""What a target declares it does not have: cells reported `n/a`, with the target's reason.

A target may declare, in its optional `not_applicable` attribute, the features it does not
have, each with the reason (`conformance.targets.base.Target`):

```python
not_applicable = {
    "style:prompt": "the framework has no tool-produced user content",
    "content:video": "the framework has no video part",
    "api:cohere": "no Cohere provider",
}
```

A feature is `api:<api>`, `content:<content type>`, `source:<source>` or `style:<style>`
(`result`, `prompt`, `error`). Every cell with one of the target's declared features is
skipped with the reason and marked `na: declared` on its results lines, as a row the target
cannot serve (`supports`) is marked `na: unserved`: the reports count those cells apart,
never as passes, and give compliance over the cells that apply beside the number that do
not (`conformance.reports.figures`). A feature name that means nothing stops the run with
what to write instead, so a typo cannot hide cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, cast, get_args

from conformance.history import ContentType
from conformance.matrix.vocabulary import ROW_API_NAMES, CellStyle, Source
from conformance.targets import TargetError

if TYPE_CHECKING:
    from conformance.matrix import CellSpec
    from conformance.targets import Target

__all__ = ["FEATURES", "declared_not_applicable", "not_applicable_reason"]

FEATURES: Final[dict[str, tuple[str, ...]]] = {
    "api": ROW_API_NAMES,
    "content": get_args(ContentType),
    "source": get_args(Source),
    "style": get_args(CellStyle),
}
"""Each kind of feature a target may declare not applicable, with the values it takes."""


def declared_not_applicable(target: Target) -> dict[str, str]:
    """The target's `not_applicable`, checked: feature -> reason (empty when it has none)."""
    where = f"target {target.name!r}: not_applicable"
    try:
        given: object = getattr(target, "not_applicable", None)
    except Exception as error:  # a property or __getattr__ of the target's
        raise TargetError(f"{where}: reading it raised {type(error).__name__}: {error}") from None
    if given is None:
        return {}
    if not isinstance(given, Mapping):
        raise TargetError(
            f"{where} is a {type(given).__name__}; give a mapping of feature to reason,"
            ' e.g. {"style:prompt": "no tool-produced user content"}'
        )
    declared: dict[str, str] = {}
    for key, reason in cast("Mapping[object, object]", given).items():
        kind, _, value = str(key).partition(":")
        if kind not in FEATURES:
            raise TargetError(
                f"{where}[{key!r}]: unknown kind of feature {kind!r}; use one of"
                f" {', '.join(f'{k}:<value>' for k in FEATURES)}"
            )
        if value not in FEATURES[kind]:
            raise TargetError(
                f"{where}[{key!r}]: unknown {kind} {value!r}; use one of"
                f" {', '.join(FEATURES[kind])}"
            )
        if not isinstance(reason, str) or not reason.strip():
            raise TargetError(f"{where}[{key!r}]: give the reason, a sentence saying why")
        declared[f"{kind}:{value}"] = reason
    return declared


def not_applicable_reason(declared: Mapping[str, str], cell: CellSpec) -> str | None:
    """Why the cell is not applicable to the target (`n/a (feature): reason`), or None."""
    for feature in (
        f"api:{cell.api}",
        f"content:{cell.content_type}",
        f"source:{cell.source}",
        f"style:{cell.style}",
    ):
        if feature in declared:
            return f"n/a ({feature}): {declared[feature]}"
    return None
