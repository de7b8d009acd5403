"""The __TARGET_NAME__ target of tool-result-conformance.

It drives the framework the way its users do, through its public API, against the suite's
loopback recorder (`conformance.targets.kit`), so what is judged is the request the framework would
really send. Fill in the three places marked FILL, then run `pytest --snapshot-update` once.

- `APIS`: the suite's api names this framework speaks (openai-chat, anthropic, gemini, ...).
- `_send`: rebuild the canonical history in the framework's own message types and make the call
  against `base_url`; a refusal the framework raises before sending propagates as it is.
- `_stored`: the history after a round trip through the framework's own storage.

The canonical history (every type and field), what each scenario holds, how to map a type or
a style the framework has no word for, the optional attributes (`refusal_types`, `repro`,
`unavailable`, `sdk_versions`, `layers`) and the recipes for LiteLLM, environment-configured
clients and async frameworks are in the reference for target authors, shipped with the suite:
`python -c "import conformance, pathlib; print(pathlib.Path(conformance.__file__).parent /
'data/docs/history.md')"` (docs/history.md in the suite's repository).
"""

from __future__ import annotations

from conformance.history import History, dump, load
from conformance.targets.base import Payload, RowRef
from conformance.targets.kit import body_or_raise, render_script

APIS: frozenset[str] = frozenset()  # FILL: e.g. frozenset({"openai-chat", "anthropic"})


class Target:
    name = "__TARGET_NAME__"
    version = "0"  # FILL: importlib.metadata.version("your-distribution")
    # The exception types your framework raises, before sending, for content an api cannot
    # carry; any other exception counts as a crash. Default: conformance's UnsupportedContent.
    # refusal_types: tuple[type[BaseException], ...] = (YourError,)
    # The features your framework does not have, each with the reason: their cells are
    # reported `n/a` with it, counted apart (never as passes), and compliance is given over
    # the cells that apply. Features: api:<api>, content:<type>, source:<source>,
    # style:<result|prompt|error>.
    # not_applicable: dict[str, str] = {"style:prompt": "no tool-produced user content"}

    def supports(self, row: RowRef) -> str | None:
        return None if row.api in APIS else f"__TARGET_NAME__ does not speak {row.api}"

    def render(self, row: RowRef, history: History) -> Payload:
        return body_or_raise(row.api, lambda base_url: _send(row, history, base_url))

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self.render(row, _stored(history))

    def repro(self, row: RowRef, history: History) -> str:
        """`conformance repro CELL --target __TARGET_NAME__` writes this script: it renders the
        cell with this target and prints the request body. Before filing one upstream, return a
        script that needs the framework alone (docs/history.md, "Reproducers")."""
        return render_script(row, history, f"{__name__}:Target")


def _send(row: RowRef, history: History, base_url: str) -> object:
    """FILL: call the framework for `row.model` with this history, its client at `base_url`."""
    raise NotImplementedError(f"fill in _send in {__file__} for {row.api}")


def _stored(history: History) -> History:
    """FILL: dump and load the history with the framework's own storage format."""
    return load(dump(history))
