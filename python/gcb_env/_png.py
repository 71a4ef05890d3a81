"""Just enough PNG to read the bridge's screenshots (8-bit RGB or RGBA, not interlaced) into numpy,
so that render() needs no imaging library."""

from __future__ import annotations

import struct
import zlib

import numpy as np

__all__ = ["decode_png"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {2: 3, 6: 4}


def decode_png(data: bytes) -> np.ndarray:
    """An H×W×3 uint8 array (alpha dropped)."""
    if not data.startswith(_SIGNATURE):
        raise ValueError("not a PNG file")
    at = len(_SIGNATURE)
    header = None
    compressed = bytearray()
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        body = data[at + 8 : at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            compressed += body
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, color, _compression, _filter, interlace = header
    if depth != 8 or color not in _CHANNELS or interlace != 0:
        raise ValueError(f"unsupported PNG: bit depth {depth}, colour type {color}, interlace {interlace}")
    bpp = _CHANNELS[color]
    stride = width * bpp
    raw = np.frombuffer(zlib.decompress(bytes(compressed)), dtype=np.uint8)
    if raw.size != height * (stride + 1):
        raise ValueError("PNG data does not match its size")
    rows = raw.reshape(height, stride + 1)
    out = np.empty((height, stride), dtype=np.uint8)
    previous = np.zeros(stride, dtype=np.uint8)
    for y in range(height):
        kind = rows[y, 0]
        line = rows[y, 1:]
        if kind == 0:
            out[y] = line
        elif kind == 1:  # Sub: a running sum along the row, per channel, modulo 256
            out[y] = np.cumsum(line.reshape(width, bpp), axis=0, dtype=np.uint8).ravel()
        elif kind == 2:  # Up
            out[y] = line + previous
        elif kind in (3, 4):
            out[y] = _sequential(kind, line, previous, bpp)
        else:
            raise ValueError(f"bad PNG filter type {kind} in row {y}")
        previous = out[y]
    return out.reshape(height, width, bpp)[:, :, :3].copy()


def _sequential(kind: int, line: np.ndarray, previous: np.ndarray, bpp: int) -> np.ndarray:
    """Average (3) and Paeth (4) depend on the byte just decoded: done byte by byte."""
    cur = bytearray(line.tobytes())
    up = previous.tobytes()
    for i in range(len(cur)):
        left = cur[i - bpp] if i >= bpp else 0
        above = up[i]
        if kind == 3:
            cur[i] = (cur[i] + ((left + above) >> 1)) & 0xFF
        else:
            corner = up[i - bpp] if i >= bpp else 0
            p = left + above - corner
            pa, pb, pc = abs(p - left), abs(p - above), abs(p - corner)
            predictor = left if pa <= pb and pa <= pc else above if pb <= pc else corner
            cur[i] = (cur[i] + predictor) & 0xFF
    return np.frombuffer(bytes(cur), dtype=np.uint8)
