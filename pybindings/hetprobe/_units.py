"""Small unit helpers shared by the plots and tables: byte-size labels and a log2 size axis."""

from __future__ import annotations

import math

from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

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


def size_formatter() -> FuncFormatter:
    """Tick formatter that writes a byte count (the tick's value) as size_label does."""
    return FuncFormatter(lambda value, _pos: size_label(value) if value > 0 else "")


def set_size_axis(ax, sizes=None, axis: str = "x") -> None:
    """Make one axis of `ax` a log2 message-size axis in bytes, with "1 KiB" ... "64 MiB" labels.

    With `sizes`, ticks go on exactly those sizes (thinned to at most ~10 labels); otherwise on
    the powers of 2 matplotlib picks.
    """
    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=2)
    if sizes is not None:
        ticks = sorted({float(s) for s in sizes if s and float(s) > 0})
        step = max(1, math.ceil(len(ticks) / 10))
        target.set_major_locator(FixedLocator(ticks[::step]))
        target.set_minor_locator(NullLocator())
    target.set_major_formatter(size_formatter())
