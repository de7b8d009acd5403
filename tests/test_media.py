"""Media in snapshots stored once by digest (`conformance.recording.media`): exact expansion, a
changed byte fails, unused, missing and damaged blobs are found, `--snapshot-update` writes and
prunes."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest

from conformance.judging.payload import BLOB_THRESHOLD, snapshot_text
from conformance.recording.media import (
    MEDIA_MIN,
    STORE,
    audit,
    blob_path,
    collect,
    copy_snapshot,
    expand,
    prune,
    references,
    sniff,
    write_blobs,
)
from conformance.scenarios import build as scenarios
from conformance.scenarios.fixtures import FIXTURE_TYPES, fixture_bytes

ROOT = Path(__file__).resolve().parent.parent
CELL = "openai-chat/gpt-6/image/inline/result"
SNAPSHOT = Path("snapshots/reference/openai-chat/gpt-6.image.inline.result.json")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _payload() -> dict[str, Any]:
    pdf, wav, png = (fixture_bytes(n) for n in ("report.pdf", "tone.wav", "chart-2.png"))
    return {
        "base64": _b64(pdf),
        "base64url": base64.urlsafe_b64encode(b"\xfb\xff" * 40).decode("ascii"),
        "bytes": png,
        "data_url": f"data:audio/x-wav;base64,{_b64(wav)}",
        "again": [_b64(pdf), {"deep": _b64(pdf)}],
        "long_text": "no media here. " * (BLOB_THRESHOLD // 10),
        "short_base64": _b64(b"x" * (MEDIA_MIN - 1)),
        "short_bytes": b"\x00\x01",
        # b"A" * 100 ends in "QQ=="; "QR==" decodes to the same bytes but is not their encoding
        "not_canonical": _b64(b"A" * 100)[:-3] + "R==",
        "text": "Quarterly revenue rose.",
    }


def _old_view(value: Any) -> Any:
    """`value` as JSON with bytes as `{"$bytes": ...}`: what the expansion must give back."""
    if isinstance(value, dict):
        return {k: _old_view(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [_old_view(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, bytes):
        return {"$bytes": _b64(value)}
    return value


def test_each_encoding_becomes_a_reference_and_expands_back_exactly(tmp_path: Path) -> None:
    payload = _payload()
    view: dict[str, Any] = json.loads(snapshot_text(payload))
    kinds = {k: r["as"] for k, v in view.items() for r in references(v)}
    assert kinds == {
        "base64": "base64",
        "base64url": "base64url",
        "bytes": "bytes",
        "data_url": "data:audio/x-wav;base64",
        "long_text": "text",
        "again": "base64",
    }
    assert view["data_url"]["$media"]["type"] == "audio/wav"  # what the bytes are
    assert view["again"][0] == view["again"][1]["deep"] == view["base64"]
    for kept in ("short_base64", "text", "not_canonical"):
        assert view[kept] == payload[kept]
    assert view["short_bytes"] == {"$bytes": "AAE="}
    written = write_blobs(tmp_path, collect(payload, BLOB_THRESHOLD))
    assert len(written) == 5  # the PDF once, though three strings carry it
    assert expand(view, tmp_path) == _old_view(payload)


def test_a_reference_names_digest_type_and_size() -> None:
    for name, media_type in FIXTURE_TYPES.items():
        data = fixture_bytes(name)
        assert len(data) >= MEDIA_MIN  # every fixture item is stored by digest
        assert sniff(data) == media_type
        (reference,) = references(json.loads(snapshot_text({"d": _b64(data)})))
        assert reference["type"] == media_type
        assert reference["size"] == len(data)


def test_one_changed_byte_changes_the_snapshot_text() -> None:
    data = bytearray(fixture_bytes("report.pdf"))
    before = snapshot_text({"data": _b64(bytes(data))})
    data[300] ^= 1
    after = snapshot_text({"data": _b64(bytes(data))})
    changed = [
        (a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b
    ]
    assert len(changed) == 1
    assert '"sha256"' in changed[0][0]


def test_expansion_refuses_a_missing_or_damaged_blob(tmp_path: Path) -> None:
    payload = {"d": _b64(fixture_bytes("clip.mp4"))}
    view = json.loads(snapshot_text(payload))
    with pytest.raises(ValueError, match="missing media blob"):
        expand(view, tmp_path)
    (path,) = write_blobs(tmp_path, collect(payload, BLOB_THRESHOLD))
    assert path.name.endswith(".mp4")
    path.write_bytes(path.read_bytes()[:-1] + b"\x00")
    with pytest.raises(ValueError, match="does not match"):
        expand(view, tmp_path)


def test_blobs_are_written_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = collect({"d": fixture_bytes("report.pdf")}, BLOB_THRESHOLD)

    def interrupted(source: str, target: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(OSError, match="disk full"):
        write_blobs(tmp_path, found)
    assert list(tmp_path.iterdir()) == []  # no part of a blob, no temporary file left
    monkeypatch.undo()
    (path,) = write_blobs(tmp_path, found)
    assert path.read_bytes() == fixture_bytes("report.pdf")
    assert write_blobs(tmp_path, found) == []  # stored once


def test_audit_finds_unused_missing_and_damaged_blobs(tmp_path: Path) -> None:
    root = tmp_path / "snapshots" / "reference"
    copy_snapshot(ROOT / SNAPSHOT, root / SNAPSHOT.relative_to("snapshots/reference"))
    assert audit(root).ok
    named = sorted((root / STORE).iterdir())
    assert named
    unused = root / STORE / ("0" * 64 + ".bin")
    unused.write_bytes(b"left over")
    found = audit(root)
    assert found.unused == [unused]
    assert not found.missing
    assert not found.damaged
    assert len(named) == 2  # the two images of the cell's two calls
    named[0].write_bytes(b"changed")
    named[1].unlink()
    found = audit(root)
    assert found.damaged == [named[0]]
    assert len(found.missing) == 1
    assert named[1].name in found.missing[0]
    assert prune(root) == [unused]
    assert not unused.exists()


def test_the_committed_golden_data_names_every_blob_it_holds() -> None:
    roots = [p for p in sorted((ROOT / "snapshots").iterdir()) if p.is_dir()]
    assert roots
    for root in roots:
        found = audit(root)
        assert found.lines() == [], root
        assert (root / STORE).is_dir(), f"{root}: its media is not stored by digest"


# --- through the plugin --------------------------------------------------------------------------


def test_update_writes_the_blobs_and_a_changed_media_byte_fails(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    selected = f"{CELL}:snapshot"
    project.runpytest("-k", selected, "--snapshot-update").assert_outcomes(passed=1)
    root = project.path / "snapshots/reference"
    written = root / SNAPSHOT.relative_to("snapshots/reference")
    assert written.read_bytes() == (ROOT / SNAPSHOT).read_bytes()
    assert sorted(p.name for p in (root / STORE).iterdir()) == sorted(
        blob_path(root / STORE, r).name for r in references(json.loads(written.read_text()))
    )
    project.runpytest("-k", selected).assert_outcomes(passed=1)

    def changed(name: str) -> bytes:
        data = bytearray(fixture_bytes(name))
        data[-1] ^= 1
        return bytes(data)

    monkeypatch.setattr(scenarios, "fixture_bytes", changed)
    run = project.runpytest("-k", selected)
    run.assert_outcomes(failed=1)
    run.stdout.fnmatch_lines(['*"sha256": *'])


def test_an_unused_blob_fails_the_run_and_update_deletes_it(project: pytest.Pytester) -> None:
    selected = f"{CELL}:snapshot"
    project.runpytest("-k", selected, "--snapshot-update").assert_outcomes(passed=1)
    unused = project.path / "snapshots/reference" / STORE / ("a" * 64 + ".png")
    unused.write_bytes(b"an image no snapshot names")
    run = project.runpytest("-k", selected)
    run.assert_outcomes(passed=1)
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    run.stdout.fnmatch_lines(["*media blobs*", f"*unused media blob: *{unused.name}*"])
    run = project.runpytest("-k", selected, "--snapshot-update")
    assert run.ret == pytest.ExitCode.OK
    run.stdout.fnmatch_lines([f"*deleted unused media blob *{unused.name}*"])
    assert not unused.exists()


def test_a_missing_or_damaged_blob_fails_the_run_and_update_writes_it(
    project: pytest.Pytester,
) -> None:
    selected = f"{CELL}:snapshot"
    project.runpytest("-k", selected, "--snapshot-update").assert_outcomes(passed=1)
    store = project.path / "snapshots/reference" / STORE
    lost = sorted(store.iterdir())[0]
    lost.unlink()
    run = project.runpytest("-k", selected)
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    run.stdout.fnmatch_lines([f"*missing media blob: *{lost.name}*"])
    assert project.runpytest("-k", selected, "--snapshot-update").ret == pytest.ExitCode.OK
    assert lost.is_file()
    damaged = sorted(store.iterdir())[-1]
    damaged.write_bytes(b"not the image")
    run = project.runpytest("-k", selected)
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    run.stdout.fnmatch_lines([f"*damaged media blob*{damaged.name}*"])
    assert project.runpytest("-k", selected, "--snapshot-update").ret == pytest.ExitCode.OK
    assert audit(project.path / "snapshots/reference").ok
