"""Print a `deviations:` block for a target: every cell whose outcome differs from the matrix.

    python tools/deviations_for.py pydantic-ai > /tmp/block.yaml

Each entry gets the reason and note anchor of the first rule in REASONS that fits it; review
them against docs/deviations.md before pasting the block into matrix.yaml.
"""

from __future__ import annotations

import json
import sys

from conformance.checks import EXPECTED_OUTCOME, run_cell
from conformance.matrix import load_matrix
from conformance.targets import resolve_target

# (expected, observed, a word of the detail or "") -> (reason, anchor in docs/deviations.md)
REASONS: list[tuple[str, str, str, str, str]] = [
    (
        "",
        "raised",
        "DownloadRefused",
        "URL media the provider class cannot pass as a URL is "
        "downloaded by pydantic-ai and sent inline; the suite refuses the download",
        "url-download",
    ),
    (
        "",
        "raised",
        "",
        "pydantic-ai raises for tool-produced user content this provider class "
        "does not take in a user prompt, though the api carries it",
        "prompt-content-raises",
    ),
    (
        "",
        "noted",
        "",
        "media the model profile says the model cannot read is replaced by a "
        "text note ('File ... was not sent') instead of an error",
        "replaced-by-note",
    ),
    (
        "",
        "stringified",
        "",
        "the error text of a failed call is sent JSON-encoded "
        '(`{"error": "..."}`) in the tool message',
        "error-json-encoded",
    ),
    (
        "",
        "altered",
        "",
        "Gemini function responses carry the return value under a "
        "`return_value` key, which the api reads as a JSON object, not the text",
        "gemini-return-value",
    ),
    (
        "unsupported",
        "fallback-marked",
        "",
        "pydantic-ai sends media the matrix says this model cannot take, behind its own marker",
        "sends-unsupported",
    ),
    (
        "unsupported",
        "fallback-unmarked",
        "",
        "pydantic-ai sends tool-produced media the matrix "
        "says this model cannot take, as an ordinary user prompt",
        "sends-unsupported",
    ),
    (
        "",
        "fallback-unmarked",
        "",
        "tool-produced user content (`ToolReturn.content`) becomes a "
        "plain UserPromptPart: pydantic-ai keeps no provenance and sends no marker",
        "prompt-without-provenance",
    ),
]


def main(target_spec: str) -> None:
    target = resolve_target(target_spec)
    matrix = load_matrix("matrix.yaml")
    print("deviations:")
    print(f"  {target.name}:")
    for cell in matrix.all_cells():
        from conformance.checks import row_ref

        if target.supports(row_ref(cell)) is not None:
            continue
        observation = run_cell(target, cell).observation
        if observation.outcome == EXPECTED_OUTCOME[cell.expect]:
            continue
        detail = observation.detail
        reason, anchor = next(
            (r, a)
            for expect, outcome, word, r, a in REASONS
            if expect in ("", cell.expect) and outcome == observation.outcome and word in detail
        )
        print(f"    - cell: {cell.id}")
        print(f"      outcome: {observation.outcome}")
        print(f"      reason: {json.dumps(reason)}")
        print(f"      link: docs/deviations.md#{anchor}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "conformance.targets.pydantic_ai:PydanticAITarget")
