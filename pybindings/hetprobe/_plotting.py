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


def summary_rows(results, record: str, metric: str, probe: str | None = None) -> pd.DataFrame:
    """The summary rows of one record type and metric (of one probe, if given)."""
    s = results.summary
    keep = (s["record"] == record) & (s["metric"] == metric)
    return s[keep & (s["probe"] == probe)] if probe else s[keep]


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
