"""Write the tiny, real fixture media in conformance/fixtures/ (run once; the files are committed).

clip.mp4 is made with ffmpeg, which this script does not run:
    ffmpeg -f lavfi -i color=c=red:s=16x16:d=0.04:r=25 -frames:v 1 -c:v mpeg4 \
        -fflags +bitexact -flags:v +bitexact -map_metadata -1 -movflags +faststart clip.mp4
"""

from __future__ import annotations

import io
import struct
import wave
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "conformance" / "fixtures"


def png() -> bytes:
    """An 8x8 RGB image: a red/blue checkerboard."""
    width = height = 8
    rows = b"".join(
        b"\x00"
        + b"".join(b"\xff\x00\x00" if (x + y) % 2 else b"\x00\x00\xff" for x in range(width))
        for y in range(height)
    )

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


def pdf() -> bytes:
    """A one-page PDF 1.4 with one line of text, with a correct xref table."""
    stream = b"BT /F1 12 Tf 20 40 Td (Quarterly chart: 42) Tj ET"
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


def wav() -> bytes:
    """25 ms of a 400 Hz square wave, 8 kHz mono 8-bit PCM."""
    samples = bytes(0xC0 if (i // 10) % 2 else 0x40 for i in range(200))
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        w.writeframes(samples)
    return out.getvalue()


if __name__ == "__main__":
    (OUT / "chart.png").write_bytes(png())
    (OUT / "report.pdf").write_bytes(pdf())
    (OUT / "tone.wav").write_bytes(wav())
