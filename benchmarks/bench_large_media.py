"""Peak memory of rendering and snapshotting one large media item, per api.

For each size, a fresh subprocess renders a tool result holding one image of that size for a
row of each api, builds the snapshot view, and reports its peak resident memory (ru_maxrss).
The ratio of the peak to the media size says whether memory stays bounded: a constant ratio
across sizes means it grows with the item, not faster, and the snapshot text stays small.

    python benchmarks/bench_large_media.py [--sizes 10,50,100]   (MB)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

ROWS = [
    ("openai-chat/gpt-6", "openai-chat", "gpt-6", "gpt-6-luna"),
    ("anthropic/claude-sonnet-5", "anthropic", "claude-sonnet-5", "claude-sonnet-5-5"),
    ("gemini/gemini-3", "gemini", "gemini-3", "gemini-3-pro-preview"),
    ("bedrock-converse/claude", "bedrock-converse", "claude", "anthropic.claude"),
]

_CHILD = """
import json, resource, sys
from conformance.history import Image, Message, ToolCall, ToolResult
from conformance.judging.payload import snapshot_text
from conformance.targets.base import RowRef
from conformance.targets.reference import ReferenceTarget
size, row = int(sys.argv[1]), RowRef(*json.loads(sys.argv[2]))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
data = b"\x01" * size  # touched pages, so the item itself counts in the peak
history = [
    Message(role="user", content="go"),
    ToolCall(tool_call_id="c", name="get_image"),
    ToolResult(tool_call_id="c", name="get_image",
               content=[Image(media_type="image/png", data=data, identifier="big.png")]),
]
text = snapshot_text(ReferenceTarget().render(row, history))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"base_kb": base, "peak_kb": peak, "snapshot_chars": len(text)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description="Peak memory for one large media item.")
    parser.add_argument("--sizes", default="10,50,100", help="media sizes in MB")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    print("| row | media | peak RSS over start | ratio to media | snapshot |")
    print("|---|---|---|---|---|")
    for row in ROWS:
        for mb in sizes:
            done = subprocess.run(
                [sys.executable, "-c", _CHILD, str(mb * 1024 * 1024), json.dumps(row)],
                capture_output=True,
                text=True,
                check=True,
            )
            found = json.loads(done.stdout)
            grown = (found["peak_kb"] - found["base_kb"]) / 1024
            print(
                f"| {row[0]} | {mb} MB | {grown:.0f} MB | {grown / mb:.1f}x "
                f"| {found['snapshot_chars']} chars |"
            )


if __name__ == "__main__":
    main()
