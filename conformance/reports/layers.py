"""How reports name the layers a target's rows go through: "openai-agents 0.24 via litellm
1.110" (`conformance.running.layers` records them in the meta line)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["Layers", "layer_lines", "merged_layers", "via"]

Layers = Mapping[str, Sequence[tuple[str, str]]]
"""Per row id, the (name, version) of each layer it goes through, outermost first."""


def via(name: str, version: str, chain: Sequence[tuple[str, str]]) -> str:
    """`openai-agents 0.24 via litellm 1.110` (each further layer after another `via`)."""
    return " via ".join([f"{name} {version}", *(f"{layer} {at}" for layer, at in chain)])


def merged_layers(
    files: Sequence[Mapping[str, Mapping[str, Sequence[tuple[str, str]]]]],
) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """The layers of every file's meta line, per target and row (later files add rows)."""
    out: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for layers in files:
        for target, rows in layers.items():
            known = out.setdefault(target, {})
            for row, chain in rows.items():
                known[row] = [(str(a), str(b)) for a, b in chain]
    return out


def layer_lines(name: str, version: str, layers: Layers) -> list[str]:
    """Markdown lines naming, per chain of layers, the rows the target serves through it;
    none when every row goes through the target alone."""
    if not layers:
        return []
    from conformance.reports.markdown import md_code, md_text  # markdown.py imports this module

    groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for row, chain in layers.items():
        groups.setdefault(tuple((a, b) for a, b in chain), []).append(row)
    out = ["Rows served through other layers (the target's `layers`):", ""]
    for chain, rows in sorted(groups.items()):
        shown = ", ".join(md_code(row) for row in sorted(rows))
        out.append(f"- {md_text(via(name, version, chain))}: {shown}")
    return [*out, ""]
