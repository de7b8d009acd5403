"""Write the tiny, real fixture media in conformance/scenarios/fixtures/ (run once; the files are
committed).

Two items per media type, so that the two parallel calls of a scenario return different items
of the same type (`call_1` the first, `call_2` the second): chart.png / chart-2.png,
report.pdf / report-2.pdf, tone.wav / tone-2.wav, clip.mp4 / clip-2.mp4.

The MP4s are made with ffmpeg (Debian's `apt-get install ffmpeg`; nothing is downloaded), run by
this script when `ffmpeg` is on PATH, else skipped with a message (the committed files stay):
    ffmpeg -f lavfi -i color=c=<colour>:s=16x16:d=0.04:r=25 -frames:v 1 -c:v mpeg4 \
        -fflags +bitexact -flags:v +bitexact -map_metadata -1 -movflags +faststart <name>
(clip.mp4 red, clip-2.mp4 blue).
"""

from __future__ import annotations

import io
import shutil
import struct
import subprocess
import sys
import wave
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "conformance" / "fixtures"


def png(second: bool = False) -> bytes:
    """An 8x8 RGB image: a red/blue checkerboard (the second: green/yellow stripes)."""
    width = height = 8

    def pixel(x: int, y: int) -> bytes:
        if second:
            return b"\x00\xc0\x00" if y % 2 else b"\xff\xff\x00"
        return b"\xff\x00\x00" if (x + y) % 2 else b"\x00\x00\xff"

    rows = b"".join(b"\x00" + b"".join(pixel(x, y) for x in range(width)) for y in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def pdf(second: bool = False) -> bytes:
    """A one-page PDF 1.4 with one line of text, with a correct xref table."""
    line = b"Annual summary: 7" if second else b"Quarterly chart: 42"
    stream = b"BT /F1 12 Tf 20 40 Td (%s) Tj ET" % line
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    )
    return out.getvalue()


def wav(second: bool = False) -> bytes:
    """25 ms of a square wave, 8 kHz mono 8-bit PCM: 400 Hz (the second: 800 Hz)."""
    half_period = 5 if second else 10
    samples = bytes(0xC0 if (i // half_period) % 2 else 0x40 for i in range(200))
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        w.writeframes(samples)
    return out.getvalue()


def mp4(name: str, colour: str) -> None:
    """One 16x16 frame of `colour`, MPEG-4 part 2 in an MP4, written by ffmpeg."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        print(f"ffmpeg is not on PATH: {name} left as committed", file=sys.stderr)
        return
    subprocess.run(
        [ffmpeg, "-loglevel", "error", "-y", "-f", "lavfi", "-i",
         f"color=c={colour}:s=16x16:d=0.04:r=25", "-frames:v", "1", "-c:v", "mpeg4",
         "-fflags", "+bitexact", "-flags:v", "+bitexact", "-map_metadata", "-1",
         "-movflags", "+faststart", str(OUT / name)],
        check=True,
    )  # fmt: skip


if __name__ == "__main__":
    (OUT / "chart.png").write_bytes(png())
    (OUT / "chart-2.png").write_bytes(png(second=True))
    (OUT / "report.pdf").write_bytes(pdf())
    (OUT / "report-2.pdf").write_bytes(pdf(second=True))
    (OUT / "tone.wav").write_bytes(wav())
    (OUT / "tone-2.wav").write_bytes(wav(second=True))
    mp4("clip.mp4", "red")
    mp4("clip-2.mp4", "blue")
