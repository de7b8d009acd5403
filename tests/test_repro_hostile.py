"""Generated code carries no data as code: every string from the matrix, a history or a target
that enters a reproducer is a `repr` literal or a comment escaped line by line. Hostile
citations (words spanning lines), cell ids, tool names, call ids and file names go into each
generator; the script must parse, hold the hostile text nowhere but in string constants and
comments, and (the one that needs no framework to run) do only what it should when run."""

from __future__ import annotations

import ast
import importlib.util
import io
import json
import re
import subprocess
import sys
import tokenize
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.adoption.repro import repro_script
from conformance.history import History, Image, Message, Text, ToolCall, ToolResult
from conformance.matrix import load_matrix
from conformance.scenarios.fixtures import fixture_bytes
from conformance.targets.base import RowRef
from conformance.targets.kit import comment

ROOT = Path(__file__).resolve().parent.parent
IMAGE = "openai-chat/gpt-6/image/inline/result"
ESCAPE = "import pathlib; pathlib.Path('PWNED').touch()"
"""What each hostile text tries to run: a file named PWNED would show that it ran."""
HOSTILE = [
    f'x"""\n{ESCAPE}\n"""',
    f"x'''\n{ESCAPE}\n#",
    f"x\r{ESCAPE}",
    f"x\u2028{ESCAPE}\u2029",
    f"x\x0c{ESCAPE}",
    f'x" + {ESCAPE.split(";")[0]} + "',
    f"x\u202e{ESCAPE}\x1b[2K\x00",
    "{row} {version} {{}}",
]
"""Ways out of a comment, a docstring or a string literal, and of `str.format`."""


def _only_in_literals_and_comments(script: str) -> None:
    """The script parses, and `PWNED` is in no name, attribute or call: only in constants and
    comments. No line holds a character that ends or bends a line."""
    tree = ast.parse(script)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            assert "PWNED" not in name, ast.unparse(node)
            assert name != "touch", ast.unparse(node)
        if isinstance(node, ast.Import | ast.ImportFrom):
            assert all(alias.name != "pathlib" for alias in node.names), ast.unparse(node)
    for token in tokenize.generate_tokens(io.StringIO(script).readline):
        if token.type == tokenize.COMMENT:
            assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029\u202a-\u202e]", token.string)
    assert "\x00" not in script
    assert "\u202e" not in script


@pytest.mark.parametrize("text", HOSTILE)
def test_comment_keeps_any_text_a_comment(text: str) -> None:
    source = comment(text) + "VALUE = 1\n"
    _only_in_literals_and_comments(source)
    scope: dict[str, object] = {}
    exec(compile(source, "<comment>", "exec"), scope)  # the point: it runs nothing
    assert [k for k in scope if not k.startswith("__")] == ["VALUE"]


def _hostile_matrix(tmp_path: Path, says: str) -> Path:
    """The matrix with the image cell's citation saying `says` (a YAML double-quoted string,
    which can hold any character as an escape)."""
    cite = next(c.cite_id for c in load_matrix(ROOT / "matrix.yaml").all_cells() if c.id == IMAGE)
    text = (ROOT / "matrix.yaml").read_text(encoding="utf-8")
    start = text.index(f"\n  {cite}:\n")
    says_at = text.index("    says:", start)
    end = says_at + len("    says:")
    while not re.match(r"\n(?:  \S|\S|    \S)", text[end:]) or text[end:].startswith("\n      "):
        end = text.index("\n", end + 1)
    quoted = json.dumps(says)  # JSON strings are YAML double-quoted strings
    path = tmp_path / "matrix.yaml"
    path.write_text(text[:says_at] + f"    says: {quoted}" + text[end:], encoding="utf-8")
    return path


@pytest.mark.parametrize("says", HOSTILE[:5])
def test_a_citation_spanning_lines_stays_a_comment_and_the_script_runs_as_it_should(
    tmp_path: Path, says: str
) -> None:
    matrix = load_matrix(_hostile_matrix(tmp_path, says))
    cite = next(c.cite_id for c in matrix.all_cells() if c.id == IMAGE)
    assert matrix.citations[cite].says == says  # `conformance check` calls it valid
    script = repro_script(matrix, IMAGE, "repro_target:ReproTarget")
    _only_in_literals_and_comments(script)
    out = tmp_path / "repro.py"
    out.write_text(script, encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, "-I", str(out)], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["model"] == "gpt-6-luna"  # it printed the request, and
    assert not (tmp_path / "PWNED").exists()  # did nothing else


def _history(text: str) -> History:
    png = fixture_bytes("chart-2.png")
    return [
        Message(role="user", content=f"look {text}"),
        ToolCall(tool_call_id=f"call{text}", name=f"get{text}", arguments={f"k{text}": text}),
        ToolResult(
            tool_call_id=f"call{text}",
            name=f"get{text}",
            content=[
                Text(text=text),
                Image(media_type="image/png", data=png, identifier=f"chart{text}.png"),
            ],
        ),
    ]


Generator = Callable[[RowRef, History], str]


def _generators() -> dict[str, Generator]:
    from conformance.targets.langchain._repro import repro_script as langchain
    from conformance.targets.litellm import repro_script as litellm

    found: dict[str, Generator] = {"langchain": langchain, "litellm": litellm}
    if importlib.util.find_spec("pydantic_ai") is None:
        return found
    from conformance.targets.pydantic_ai._repro import repro_script as pydantic_ai

    found["pydantic-ai"] = lambda row, history: pydantic_ai(row, history, "1.0")
    return found


@pytest.mark.parametrize("name", ["langchain", "litellm", "pydantic-ai"])
@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_ids_tool_names_and_file_names_stay_data(name: str, text: str) -> None:
    """Each framework target's generator, given a hostile row id and a history whose texts,
    tool names, call ids, arguments and file names are hostile."""
    generators = _generators()
    if name not in generators:
        pytest.skip(f"{name} is not installed here")
    row = RowRef(id=f"openai-chat/gpt-6{text}", api="openai-chat", family="gpt-6", model="gpt")
    script = generators[name](row, _history(text))
    _only_in_literals_and_comments(script)
