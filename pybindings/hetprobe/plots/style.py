"""Shared pieces of hetprobe.plots: colours, figure creation and saving, ratio lines with their
intervals, the "no effect" margin, and the log2 message-size axis.

Figures are matplotlib.figure.Figure objects built directly (no pyplot, no global state).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from .. import _rules
from ..data.units import size_label

# One colour per layout in every plot: SSB is the black baseline (grey band), the others distinct.
LAYOUT_ORDER = _rules.enum_names()["layout"]["user"]  # C++'s kLayoutNames, in its order
LAYOUT_COLORS = {"SSB": "black", "PSB": "#d62728", "PCB": "#1f77b4", "P2AB": "#2ca02c", "OWN": "#9467bd"}
BAND_COLORS = {**LAYOUT_COLORS, "SSB": "grey"}
ACCESS_ORDER = ["stream", "stacked"]
DIRECTION_COLORS = {"cpu-gpu-cpu": "#1f77b4", "gpu-cpu-gpu": "#ff7f0e"}
DPI = 110
# docs/metrics.md, "Rounds and confidence intervals": an effect is claimed only where a ratio's 95%
# interval lies wholly beyond 1 ± C++'s margin (base/effect.hpp); the plots of ratios shade it.
NO_EFFECT = (1 - _rules.effect_margin, 1 + _rules.effect_margin)
CI_TEXT = "bars: 95% CI over rounds"


def ci_legend(rows: pd.DataFrame) -> str:
    """What the error bars of pooled rows (Results.interference_ratios) are over: "bars: 95% CI over
    rounds", "... over launches", or both where the points differ."""
    over = [o for o in ("launches", "rounds", "samples") if o in set(rows.get("ratio_to_ssb_ci95_over", []))]
    return f"bars: 95% CI over {' or '.join(over)}" if over else CI_TEXT


def ratio_axis_label(
    with_ci: bool, over: str = "rounds", log: bool = False, lines: int = 1, name: str = "ratio_to_ssb"
) -> str:
    """The y label of every plot of ratio_to_ssb (docs/metrics.md), or of another paired ratio `name`:
    its median over `over` where the points have intervals, else median ÷ the SSB median (files from
    before the rounds)."""
    what = f"paired, median over {over}" if with_ci else "median ÷ SSB median"
    return f"{name}{', log' if log else ''}{chr(10) if lines > 1 else ' '}({what})"


def layout_color(layout: str) -> str:
    return LAYOUT_COLORS.get(layout, "#9467bd")


def new_figure(nrows: int, ncols: int, width: float = 6.0, height: float = 4.2, **subplot_kw):
    """A constrained-layout Figure and its 2-D array of axes (width/height per panel, inches)."""
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, **subplot_kw)
    return fig, axes


def finish(fig: Figure, title: str | None, path=None) -> Figure:
    """Sets the title and saves a PNG at `path` (dpi 110) when given."""
    if title:
        fig.suptitle(title)
    if path is not None:
        fig.savefig(path, dpi=DPI)
    return fig


def run_title(rows: pd.DataFrame, what: str) -> str:
    """'<what>: host, device (backend)' from the common columns of the rows plotted."""
    first = rows.iloc[0]
    return f"{what}: {first['host']}, {first['device']} ({first['backend']})"


def log_if_wide(ax, values, axis: str = "y", decades: float = 1.0) -> bool:
    """Makes an axis logarithmic where the positive `values` it shows span more than `decades` decades,
    so that one outlier does not flatten the rest against the axis; returns whether it did."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not len(v) or (v <= 0).any() or v.max() <= v.min() * 10**decades:
        return False
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    return True


def dodges(n: int, step: float) -> list[float]:
    """Sideways offsets of n series, `step` apart and centred on 0."""
    return [(i - (n - 1) / 2) * step for i in range(n)]


def ratio_line(ax, x, y, low, high, color, dodge: float = 0.0, xscale: str = "linear", **style):
    """One ratio series as ax.plot draws it (`style`: marker, label, ...), with its 95% intervals as
    asymmetric error bars (median - low, high - median) where it has them; points without one are drawn
    as before. `dodge` shifts the series sideways so that bars at the same x do not hide each other
    (in octaves where xscale is "log2"); callers pass it only where some interval is drawn, so older
    files keep their x. Returns the line."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    has = np.isfinite(low) & np.isfinite(high) & np.isfinite(y)
    if dodge:
        x = x * 2.0**dodge if xscale == "log2" else x + dodge
    (line,) = ax.plot(x, y, color=color, **style)
    if has.any():
        ax.errorbar(
            x[has],
            y[has],
            yerr=[np.maximum(y[has] - low[has], 0), np.maximum(high[has] - y[has], 0)],
            fmt="none",
            ecolor=color,
            elinewidth=1.2,
            capsize=3,
            alpha=0.85,
        )
    return line


def no_effect_band(ax, axis: str = "y"):
    """The ±5% "no effect" margin around 1 (docs/metrics.md), shaded behind the data along `axis`
    (the ratio's); returns its patch."""
    low, high = NO_EFFECT
    span = ax.axhspan if axis == "y" else ax.axvspan
    return span(low, high, color="grey", alpha=0.18, linewidth=0, zorder=0, label=f"no effect ({low}-{high})")


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
