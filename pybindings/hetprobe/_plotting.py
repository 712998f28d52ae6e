"""Shared pieces of hetprobe.plots: colours, figure creation and saving, row selection.

Figures are matplotlib.figure.Figure objects built directly (no pyplot, no global state).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .errors import UsageError

# One colour per layout in every plot: SSB is the black baseline (grey band), the others distinct.
LAYOUT_ORDER = ["SSB", "PSB", "PCB", "P2AB"]
LAYOUT_COLORS = {"SSB": "black", "PSB": "#d62728", "PCB": "#1f77b4", "P2AB": "#2ca02c"}
BAND_COLORS = {**LAYOUT_COLORS, "SSB": "grey"}
ACCESS_ORDER = ["stream", "stacked"]
DIRECTION_COLORS = {"cpu-gpu-cpu": "#1f77b4", "gpu-cpu-gpu": "#ff7f0e"}
DPI = 110
US = 1e-3  # ns -> µs
# docs/metrics.md, "Rounds and confidence intervals": an effect is claimed only where a ratio's 95%
# interval lies wholly beyond ±5% of 1; the plots of ratios shade that margin.
NO_EFFECT = (0.95, 1.05)
CI_TEXT = "bars: 95% CI over rounds"


def layout_color(layout: str) -> str:
    return LAYOUT_COLORS.get(layout, "#9467bd")


def ordered(values, order) -> list:
    """The distinct values, those named in `order` first and in that order, the rest as they come."""
    seen = list(dict.fromkeys(v for v in values if isinstance(v, str)))
    return [v for v in order if v in seen] + [v for v in seen if v not in order]


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


def single_run(rows: pd.DataFrame, key: list, what: str) -> pd.DataFrame:
    """The rows, checked to come from one host and device and to hold each key once.

    A resumed file's segments continue one run (their keys differ), so they pass; two runs of the
    same keys, or two hosts, raise UsageError: the caller must filter, or compare them.
    """
    if rows.empty:
        raise UsageError(f"no {what} in these results")
    machines = rows[["host", "device", "backend"]].drop_duplicates()
    if len(machines) > 1:
        names = ", ".join(f"{h} ({d})" for h, d in machines[["host", "device"]].itertuples(index=False))
        raise UsageError(f"{what} from several hosts/devices ({names}): load or select one, or use plots.compare(a, b)")
    if rows.duplicated(key).any():
        raise UsageError(
            f"{what}: several runs of the same points (segments "
            f"{sorted(rows['segment'].unique().tolist())}); filter them (e.g. send_mode=, "
            "writer_side=, or load one file), or use plots.compare(a, b)"
        )
    return rows


def first_run(rows: pd.DataFrame, key: list, what: str) -> pd.DataFrame:
    """Rows of one host (else UsageError), the lowest rank, first occurrence of each key (for tables)."""
    if rows.empty:
        raise UsageError(f"no {what} in these results")
    if len(rows[["host", "device"]].drop_duplicates()) > 1:
        raise UsageError(f"{what} from several hosts/devices: load or select one, or use plots.compare_table")
    rows = rows[rows["rank"] == rows["rank"].min()]
    return rows.drop_duplicates(key, keep="first")


def pick_setup(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows of one flag setup: the default (pinned, line, default host memory) when several are present."""
    cols = ["placement", "spacing", "host_memory"]
    setups = rows[cols].drop_duplicates()
    if len(setups) <= 1:
        return rows
    default = rows[(rows["placement"] == "pinned") & (rows["spacing"] == "line")]
    if default.empty:
        first = setups.iloc[0]
        default = rows[(rows["placement"] == first["placement"]) & (rows["spacing"] == first["spacing"])]
    hm = default["host_memory"]
    return default[hm == "default"] if (hm == "default").any() else default


def log_if_wide(ax, values, axis: str = "y", decades: float = 1.0) -> bool:
    """Makes an axis logarithmic where the positive `values` it shows span more than `decades` decades,
    so that one outlier does not flatten the rest against the axis; returns whether it did."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not len(v) or (v <= 0).any() or v.max() <= v.min() * 10**decades:
        return False
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    return True


def _record_ci(rec) -> tuple[float, float]:
    """A record's ratio_to_ssb_ci95 as (low, high); NaN where it has none (SSB, under 6 rounds, old files)."""
    ci = rec.get("ratio_to_ssb_ci95") if isinstance(rec, dict) else None
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(isinstance(v, (int, float)) for v in ci):
        return float(ci[0]), float(ci[1])
    return np.nan, np.nan


def paired_ratios(results, rows: pd.DataFrame, fallback) -> pd.DataFrame:
    """Per interference point row: `ratio`, `ci_low`, `ci_high` (NaN where none), aligned with `rows`.

    A point measured in rounds is drawn at its `ratio_to_ssb_median` (the median over rounds of the
    paired ratio, which its interval is about); an older point at `fallback` (its median ÷ the SSB
    median, as before). The interval comes from the frame's `ratio_ci95_low`/`ratio_ci95_high` columns
    where the frames have them (pooled launches), else from each row's record (`record_id`)."""
    fallback = np.asarray(fallback, dtype=float)
    if {"ratio_ci95_low", "ratio_ci95_high"} <= set(rows.columns):
        low = rows["ratio_ci95_low"].to_numpy(dtype=float)
        high = rows["ratio_ci95_high"].to_numpy(dtype=float)
    else:
        pairs = [_record_ci(results.records[int(i)]) for i in rows["record_id"]]
        low = np.array([p[0] for p in pairs], dtype=float).reshape(len(rows))
        high = np.array([p[1] for p in pairs], dtype=float).reshape(len(rows))
    rounds = np.array([results.records[int(i)].get("rounds") is not None for i in rows["record_id"]], dtype=bool)
    paired = rows["ratio_to_ssb_median"].to_numpy(dtype=float) if "ratio_to_ssb_median" in rows else fallback
    use = (rounds | np.isfinite(low)) & np.isfinite(paired)
    return pd.DataFrame({"ratio": np.where(use, paired, fallback), "ci_low": low, "ci_high": high}, index=rows.index)


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


def no_effect_band(ax):
    """The ±5% "no effect" margin around 1 (docs/metrics.md), shaded behind the data; returns its patch."""
    low, high = NO_EFFECT
    return ax.axhspan(low, high, color="grey", alpha=0.18, linewidth=0, zorder=0, label=f"no effect ({low}-{high})")
