"""Units of the tables and the plots' labels: byte sizes as text (binary units) and ns -> µs."""

from __future__ import annotations

import math

US = 1e-3  # ns -> µs


_BINARY = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def size_label(n_bytes) -> str:
    """A byte count as text in binary units: 1024 -> "1 KiB", 67108864 -> "64 MiB", 1536 -> "1.5 KiB"."""
    n = float(n_bytes)
    if not math.isfinite(n):
        return str(n_bytes)
    unit = 0
    while abs(n) >= 1024 and unit < len(_BINARY) - 1:
        n /= 1024
        unit += 1
    text = f"{n:.0f}" if n == int(n) else f"{n:.3g}"
    return f"{text} {_BINARY[unit]}"
