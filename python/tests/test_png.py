"""The PNG reader behind render(), on images written with each of PNG's five row filters."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

from gcb_env._png import decode_png


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def encode(image: np.ndarray, filters: list[int]) -> bytes:
    """A PNG of `image` (H×W×3 or ×4), row y filtered with filters[y % len(filters)]."""
    height, width, channels = image.shape
    bpp = channels
    rows = image.reshape(height, width * channels).astype(int)
    out = bytearray()
    for y in range(height):
        kind = filters[y % len(filters)]
        line = rows[y]
        up = rows[y - 1] if y > 0 else np.zeros_like(line)
        encoded = []
        for i, value in enumerate(line):
            left = line[i - bpp] if i >= bpp else 0
            corner = up[i - bpp] if i >= bpp else 0
            predictor = [0, left, up[i], (left + up[i]) // 2, _paeth(left, up[i], corner)][kind]
            encoded.append((value - predictor) % 256)
        out += bytes([kind, *encoded])

    def chunk(tag: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))

    color = {3: 2, 4: 6}[channels]
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(bytes(out)))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("channels", [3, 4])
def test_every_filter_round_trips(channels):
    rng = np.random.default_rng(channels)
    image = rng.integers(0, 256, size=(10, 7, channels), dtype=np.uint8)
    decoded = decode_png(encode(image, [0, 1, 2, 3, 4]))
    assert decoded.dtype == np.uint8 and decoded.shape == (10, 7, 3)
    np.testing.assert_array_equal(decoded, image[:, :, :3])


def test_not_a_png():
    with pytest.raises(ValueError, match="not a PNG"):
        decode_png(b"GIF89a")
