"""The interference loads' figures: MPI_Send slowdown against the GPU traffic measured during the
sends (per kind and size), and against the number of GPUs loading at once; their tables are
hetprobe.data.loads'.

slowdown = send time ÷ the SSB's at the same size and access (the GPU idle): for points measured in
           rounds, the median over rounds of the paired ratio (ratio_to_ssb_median), drawn with its
           95% interval as error bars; for older points, median ÷ the SSB median of the same run;
traffic  = bytes every load GPU moved inside the timed sends ÷ their time, GB/s (10^9 B/s).
The plots shade the ±5% "no effect" margin around 1 (docs/metrics.md, "Rounds and confidence intervals").
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..data.loads import KIND_ORDER, headline_sizes, load_points
from ..data.rates import load_label, same_rate
from ..data.run_steps import LOADS, RATES, steps_text
from ..data.units import size_label
from ..errors import UsageError
from .style import (
    ci_legend,
    dodges,
    finish,
    log_if_wide,
    new_figure,
    no_effect_band,
    ratio_axis_label,
    ratio_line,
    run_title,
)

KIND_COLORS = {"write": "#d62728", "read": "#1f77b4", "poll": "#9467bd", "copy-d2h": "#2ca02c", "copy-h2d": "#ff7f0e"}
GPU_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def _kinds(points) -> list[str]:
    seen = list(dict.fromkeys(points["load_kind"]))
    return [k for k in KIND_ORDER if k in seen] + [k for k in seen if k not in KIND_ORDER]


def _ratio_axis(left, points) -> bool:
    """The shared slowdown axis, labelled on each of the `left` column's panels: logarithmic when the
    slowdowns, their intervals and 1 span more than a factor of 10. Returns whether some point has an
    interval (the legend then says what the bars are)."""
    shown = pd.concat([points["ratio_to_ssb"], points["ci_low"], points["ci_high"]]).dropna()
    log = log_if_wide(left[0], list(shown) + [1.0])
    with_ci = bool(points["ci_low"].notna().any())
    for ax in left:  # two lines where long: one per row of panels, each no taller than its panel
        ax.set_ylabel(ratio_axis_label(with_ci, log=log, lines=2))
    return with_ci


def size_panels(n: int, width: float, height: float, **subplot_kw):
    """A figure of n panels (one per message size) in rows of at most two, so that the PNG stays narrow
    enough for its text to read on a page; the cell left over is removed. Returns (fig, grid, panels):
    the 2-D array, and the n panels in order."""
    ncols = min(2, n)
    fig, grid = new_figure(math.ceil(n / ncols), ncols, width=width, height=height, **subplot_kw)
    for ax in grid.flat[n:]:
        ax.remove()
    return fig, grid, list(grid.flat[:n])


def _label_left_and_bottom(grid, n: int, xlabel: str) -> None:
    """The x label under the lowest panel of each column, the y ticks read from the left column's."""
    nrows, ncols = grid.shape
    for i in range(n):
        row, col = divmod(i, ncols)
        if i + ncols >= n:  # nothing drawn below it
            grid[row][col].set_xlabel(xlabel)
            grid[row][col].xaxis.set_tick_params(labelbottom=True)


def _shared_traffic_range(ax, traffic) -> None:
    """One x range for every panel: from 0 (or below) to the largest traffic, with room on both sides
    so that a point at 0 GB/s (poll) or at the largest traffic is drawn whole."""
    t = np.asarray(traffic, dtype=float)
    t = t[np.isfinite(t)]
    low, high = min(0.0, t.min()) if len(t) else 0.0, t.max() if len(t) else 1.0
    pad = 0.06 * (high - low) if high > low else 1.0
    ax.set_xlim(low - pad, high + pad)


def _label_rates(ax, d, color) -> None:
    """Each point's rate ("@0.5") beside it, above and below in turn along the traffic axis, so that the
    labels of neighbouring points do not run into each other."""
    d = d.sort_values("traffic")
    for i, (x, y, rate) in enumerate(zip(d["traffic"], d["ratio_to_ssb"], d["load_rate"])):
        up = i % 2 == 0
        ax.annotate(
            f"@{rate}",
            (x, y),
            xytext=(4, 5 if up else -5),
            textcoords="offset points",
            va="bottom" if up else "top",
            fontsize="small",
            color=color,
        )


def slowdown_vs_traffic(results, layout=None, access=None, sizes=None, path=None, title=None, step=None):
    """MPI_Send slowdown (÷ SSB) against the GPU traffic during the sends (GB/s), one panel per message
    size (two to a row, one x range for all): a colour per load kind, a marker per GPU count. A load
    measured at several rates has each point labelled with its rate (@0.5: half the full rate), not
    joined: its traffic need not grow with the rate. 95% intervals as error bars where the points have
    them, the ±5% "no effect" margin shaded. `results`: a Results or a run directory; each point pooled
    over its step's launches, the steps those of the loads and the write load's rates (interference,
    interference-rate) unless `step` names others."""
    points = load_points(results, layout, access, step, default=(LOADS, RATES))
    sizes = headline_sizes(points, sizes)
    fig, grid, panels = size_panels(len(sizes), width=4.6, height=3.6, sharex=True, sharey=True)
    rated = False
    for ax, size in zip(panels, sizes):
        panel = points[points["size_bytes"] == size]
        for kind in _kinds(panel):
            labelled = set()
            color = KIND_COLORS.get(kind, "grey")
            # One series per step of a kind and GPU count; its rates labelled where it has several.
            for (gpus, _), d in panel[panel["load_kind"] == kind].groupby(["load_gpus", "step"]):
                label = load_label(kind, gpus, None)
                ratio_line(
                    ax,
                    d["traffic"],
                    d["ratio_to_ssb"],
                    d["ci_low"],
                    d["ci_high"],
                    color,
                    marker=GPU_MARKERS[int(gpus - 1) % len(GPU_MARKERS)],
                    ms=6,
                    linestyle="none",
                    label=None if label in labelled else label,
                )
                labelled.add(label)
                if d["load_rate"].nunique() > 1:
                    rated = True
                    _label_rates(ax, d, color)
        no_effect_band(ax)
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1)
        ax.set_title(size_label(size))
        ax.grid(True, which="both", alpha=0.3)
    shown = points[points["size_bytes"].isin(sizes)]
    _shared_traffic_range(panels[0], shown["traffic"])
    _label_left_and_bottom(grid, len(sizes), "GPU traffic during the send (GB/s)")
    with_ci = _ratio_axis(grid[:, 0], shown)
    notes = ([ci_legend(shown)] if with_ci else []) + (["@r: the load's rate (of full)"] if rated else [])
    grid[0][-1].legend(
        fontsize="small",
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),  # beside the panels: never over a point
        title="\n".join(notes) or None,
        title_fontsize="small",
    )
    first = points.iloc[0]
    return finish(
        fig,
        title
        or run_title(
            points,
            f"MPI_Send slowdown against GPU traffic ({first['layout']}, {first['access']}; {steps_text(points)})",
        ),
        path,
    )


def slowdown_vs_gpus(results, rate="1", layout=None, access=None, sizes=None, path=None, title=None, step=None):
    """MPI_Send slowdown (÷ SSB) against the number of GPUs loading at once (0: the SSB baseline), one
    panel per message size (two to a row), a line per load kind, at one rate (default full); 95% intervals
    as error bars where the points have them (the kinds nudged apart), the ±5% "no effect" margin shaded.
    `results`: a Results or a run directory; each point pooled over the launches of the loads' step
    (interference) unless `step` names another."""
    points = load_points(results, layout, access, step)
    points = points[same_rate(points["load_rate"], rate)]
    if points.empty:
        raise UsageError(f"no load points at rate {rate}")
    sizes = headline_sizes(points, sizes)
    with_ci = bool(points.loc[points["size_bytes"].isin(sizes), "ci_low"].notna().any())
    fig, grid, panels = size_panels(len(sizes), width=4.6, height=3.6, sharex=True, sharey=True)
    for ax, size in zip(panels, sizes):
        panel = points[points["size_bytes"] == size]
        kinds = _kinds(panel)
        for kind, dx in zip(kinds, dodges(len(kinds), 0.07 if with_ci else 0.0)):
            d = panel[panel["load_kind"] == kind].sort_values("load_gpus")
            ratio_line(
                ax,
                [0] + [g + dx for g in d["load_gpus"]],  # the baseline (0 GPUs) is the same for every kind
                [1.0] + list(d["ratio_to_ssb"]),
                [np.nan] + list(d["ci_low"]),
                [np.nan] + list(d["ci_high"]),
                KIND_COLORS.get(kind, "grey"),
                marker="o",
                ms=4,
                label=kind,
            )
        no_effect_band(ax)
        ax.set_xticks(sorted({0} | set(int(g) for g in points["load_gpus"])))
        ax.set_title(size_label(size))
        ax.grid(True, alpha=0.3)
    _label_left_and_bottom(grid, len(sizes), "GPUs loading at once (count)")
    _ratio_axis(grid[:, 0], points[points["size_bytes"].isin(sizes)])
    grid[0][-1].legend(
        fontsize="small",
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),  # beside the panels: never over a point
        title=ci_legend(points) if with_ci else None,
        title_fontsize="small",
    )
    what = f"MPI_Send slowdown against the number of GPUs loading ({steps_text(points)})"
    return finish(fig, title or run_title(points, what), path)
