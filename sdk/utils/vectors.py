"""Embedding vectors as SQLite BLOBs (little-endian float32) and their similarity."""

from __future__ import annotations

import math
import operator
import sys
from array import array
from collections.abc import Sequence


def normalized(vector: Sequence[float]) -> list[float]:
    """``vector`` scaled to unit length (a zero vector stays zero)."""
    norm = math.sqrt(sum(value * value for value in vector))
    if norm == 0.0 or not math.isfinite(norm):
        return [0.0] * len(vector)
    return [value / norm for value in vector]


def pack(vector: Sequence[float]) -> bytes:
    """Encode ``vector`` as little-endian float32 bytes."""
    values = array("f", vector)
    if sys.byteorder == "big":
        values.byteswap()
    return values.tobytes()


def unpack(blob: bytes) -> array[float]:
    """Decode bytes written by :func:`pack`."""
    values = array("f")
    values.frombytes(blob)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    """The dot product (the cosine similarity of two unit vectors); 0 if the sizes differ."""
    if len(a) != len(b):
        return 0.0
    return float(sum(map(operator.mul, a, b)))
