"""The interference probe's figures: MPI_Send time against message size per layout (send_time, the
paper's Figures 6 to 11), the ratio to SSB (ratio_to_ssb), a point's writer against the send
(writer_timeline) and two runs side by side (compare)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from ..data.run_steps import as_results, steps_text
from ..data.select import interference_points, ordered
from ..data.units import US, size_label
from ..errors import UsageError
from .style import (
    ACCESS_ORDER,
    BAND_COLORS,
    LAYOUT_ORDER,
    ci_legend,
    dodges,
    finish,
    layout_color,
    log_if_wide,
    new_figure,
    no_effect_band,
    ratio_axis_label,
    ratio_line,
    run_title,
    set_size_axis,
)

_STATS = ("min", "p10", "median", "p90", "p99", "max", "mean")


def _access_panels(points, rows=1, height=4.2):
    access = ordered(points["access"], ACCESS_ORDER)
    fig, axes = new_figure(rows, len(access), height=height, sharey="row", sharex="col")
    return fig, axes, access


def send_time(
    results,
    stat: str = "median",
    band=("p10", "p90"),
    send_mode=None,
    writer_side=None,
    path=None,
    title=None,
    load=None,
    gpus=None,
    rate=None,
    step=None,
):
    """MPI_Send time (µs, log) against message size (log2), a line per layout with its band shaded.

    One panel per access mode (stream, stacked), sharing y: the paper's Figures 6-11. `results`: a
    Results or a run directory; `step`: which step (default: the paper's layouts where the run has
    them, else the loads; data.interference_points). A step of one launch: `stat` and `band` name
    Summary columns (band=None draws no band). Of several launches: the median over the launches, its
    95% interval over them shaded (`stat` must be "median"; band=None draws none).
    """
    if stat not in _STATS or (band is not None and any(b not in _STATS for b in band)):
        raise UsageError(f"stat and band must be among {_STATS}")
    points = interference_points(results, send_mode, writer_side, load, gpus, rate, step)
    pooled = bool((points["launches"] > 1).any())
    if pooled and stat != "median":
        raise UsageError(
            f"{steps_text(points)}: launches are pooled by their median; stat={stat!r} is of one launch "
            "(load one launch's file to draw it)"
        )
    if pooled and band is not None:
        band = ("median_ns_ci95_low", "median_ns_ci95_high")
    fig, axes, access = _access_panels(points)
    for ax, acc in zip(axes[0], access):
        panel = points[points["access"] == acc]
        for layout in ordered(panel["layout"], LAYOUT_ORDER):
            d = panel[panel["layout"] == layout].sort_values("size_bytes")
            ax.plot(d["size_bytes"], d[stat] * US, marker="o", ms=3, color=layout_color(layout), label=layout)
            if band is not None:
                ax.fill_between(
                    d["size_bytes"],
                    d[band[0]] * US,
                    d[band[1]] * US,
                    color=BAND_COLORS.get(layout, "grey"),
                    alpha=0.15,
                    linewidth=0,
                )
        ax.set_yscale("log")
        set_size_axis(ax, panel["size_bytes"].unique())
        ax.set_title(f"{acc} access")
        ax.set_xlabel("message size (bytes, log2)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel(f"MPI_Send time, {stat} (µs)")
    band_text = (
        (", 95% CI over launches shaded" if pooled else f", {band[0]}-{band[1]} shaded") if band is not None else ""
    )
    axes[0][-1].legend(  # beside the panels: never over a line
        title=f"layout{band_text}",
        fontsize="small",
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        title_fontsize="small",
    )
    first = points.iloc[0]
    timed = {"send": "MPI_Send", "isend": "MPI_Isend + MPI_Wait"}.get(first["send_mode"], first["send_mode"])
    default = run_title(points, f"{timed} time, writer on the {first['writer_side']} ({steps_text(points)})")
    return finish(fig, title or default, path)


def ratio_to_ssb(
    results, send_mode=None, writer_side=None, path=None, title=None, load=None, gpus=None, rate=None, step=None
):
    """Send time ÷ the SSB's at the same size and access, per layout; a line at 1 and the ±5% "no
    effect" margin shaded. Points measured in rounds show the median over rounds of the paired ratio
    with its 95% interval as error bars (the layouts nudged apart so that their bars stay visible);
    older points median ÷ the SSB median, without bars. The y axis is logarithmic once the ratios and
    1 span more than a factor of 10 (one outlier would flatten the rest). A step of several launches:
    each point's ratio and interval pooled over them (Results.interference_ratios); `step` as send_time's."""
    points = interference_points(results, send_mode, writer_side, load, gpus, rate, step)
    with_ci = bool(points["ci_low"].notna().any())
    fig, axes, access = _access_panels(points)
    for ax, acc in zip(axes[0], access):
        panel = points[(points["access"] == acc) & (points["layout"] != "SSB")]
        layouts = ordered(panel["layout"], LAYOUT_ORDER)
        for layout, dx in zip(layouts, dodges(len(layouts), 0.12 if with_ci else 0.0)):
            d = panel[panel["layout"] == layout].sort_values("size_bytes")
            ratio_line(
                ax,
                d["size_bytes"],
                d["ratio_to_ssb"],
                d["ci_low"],
                d["ci_high"],
                layout_color(layout),
                dodge=dx,
                xscale="log2",
                marker="o",
                ms=3,
                label=layout,
            )
        no_effect_band(ax)
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="SSB")
        shown = pd.concat([panel["ratio_to_ssb"], panel["ci_low"], panel["ci_high"]])
        log_if_wide(ax, list(shown.dropna()) + [1.0])  # with the line at 1
        set_size_axis(ax, points.loc[points["access"] == acc, "size_bytes"].unique())
        ax.set_title(f"{acc} access")
        ax.set_xlabel("message size (bytes, log2)")
        ax.grid(True, alpha=0.3)
    pooled = bool((points["launches"] > 1).any())
    axes[0][0].set_ylabel(ratio_axis_label(with_ci, "launches" if pooled else "rounds"))
    axes[0][-1].legend(  # beside the panels: never over a bar
        fontsize="small",
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        title=ci_legend(points) if with_ci else None,
        title_fontsize="small",
    )
    return finish(fig, title or run_title(points, f"send time relative to SSB ({steps_text(points)})"), path)


def writer_timeline(results, size_bytes: int, layout: str, access: str, path=None, title=None, step=None):
    """Per sample: the send [0, send time] and the writer's start -> ready -> end, µs from the send's start.

    Shows whether the writer's post phase (after its ready flag) covered the send. Needs records
    with writer_timeline (the sender's writer mapped to the host clock).
    """
    results = as_results(results)
    points = interference_points(results, step=step)
    row = points[(points["size_bytes"] == size_bytes) & (points["layout"] == layout) & (points["access"] == access)]
    if row.empty:
        raise UsageError(f"no interference point {size_label(size_bytes)} {layout} {access}")
    rid = row["record_id"].iloc[0]  # the first launch's
    sm = results.samples[results.samples["record_id"] == rid]
    series = {
        m: sm.loc[sm["metric"] == m, "value"].to_numpy() * US
        for m in ("send_time_ns", "writer_start_ns", "writer_ready_ns", "writer_end_ns")
    }
    if len(series["writer_start_ns"]) == 0:
        raise UsageError(
            f"point {size_label(size_bytes)} {layout} {access} has no writer_timeline "
            "(older file, or no writer on the sender)"
        )
    send, start, ready, end = (
        series[k] for k in ("send_time_ns", "writer_start_ns", "writer_ready_ns", "writer_end_ns")
    )
    y = np.arange(len(send))
    fig, axes = new_figure(1, 1, width=8, height=max(3.0, 0.25 * len(y) + 1.5))
    ax = axes[0][0]
    color = layout_color(layout)
    ax.barh(y, end - ready, left=ready, height=0.7, color=color, alpha=0.8, label="writer: ready → end (post phase)")
    ax.barh(
        y, ready - start, left=start, height=0.7, color=color, alpha=0.3, label="writer: start → ready (first write)"
    )
    ax.barh(y, send, left=0, height=0.35, color="black", label="MPI send")
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("time from the start of the timed send (µs)")
    ax.set_ylabel("sample (index)")
    ax.invert_yaxis()
    ax.legend(fontsize="small", loc="best")
    covered = int(np.sum((ready <= 0) & (end >= send)))
    default = run_title(
        row, f"{size_label(size_bytes)} {layout} {access}: writer covered the send in {covered} of {len(send)} samples"
    )
    return finish(fig, title or default, path)


def compare(a, b, labels=("A", "B"), path=None, title=None, step=None):
    """Interference medians of two Results or run directories (two nodes, two runs): `a` solid, `b`
    dashed, per layout, each pooled over its step's launches (`step` as send_time's).

    One panel per access mode; a second row shows b ÷ a per layout at the sizes both have.
    """
    pa, pb = (interference_points(r, step=step) for r in (a, b))
    access = ordered(list(pa["access"]) + list(pb["access"]), ACCESS_ORDER)
    fig, axes = new_figure(2, len(access), height=3.8, sharex="col", sharey="row")
    for col, acc in enumerate(access):
        top, bottom = axes[0][col], axes[1][col]
        da, db = pa[pa["access"] == acc], pb[pb["access"] == acc]
        for layout in ordered(list(da["layout"]) + list(db["layout"]), LAYOUT_ORDER):
            la = da[da["layout"] == layout].set_index("size_bytes")["median"].sort_index()
            lb = db[db["layout"] == layout].set_index("size_bytes")["median"].sort_index()
            c = layout_color(layout)
            top.plot(la.index, la * US, color=c, marker="o", ms=3, label=layout)
            top.plot(lb.index, lb * US, color=c, marker="s", ms=3, linestyle="--")
            ratio = (lb / la).dropna()
            bottom.plot(ratio.index, ratio, color=c, marker="o", ms=3, label=layout)
        bottom.axhline(1.0, color="black", linewidth=1, linestyle=":")
        top.set_yscale("log")
        if max(bottom.get_ylim()) / max(min(bottom.get_ylim()), 1e-12) > 10:  # e.g. a CPU node vs a GPU node
            bottom.set_yscale("log")
        top.set_title(f"{acc} access")
        sizes = sorted(set(da["size_bytes"]) | set(db["size_bytes"]))
        for ax in (top, bottom):
            set_size_axis(ax, sizes)
            ax.grid(True, which="both", alpha=0.3)
        bottom.set_xlabel("message size (bytes, log2)")
    axes[0][0].set_ylabel("MPI_Send time, median (µs)")
    axes[1][0].set_ylabel(f"{labels[1]} ÷ {labels[0]} (ratio)")
    handles, names = axes[0][0].get_legend_handles_labels()
    handles += [Line2D([], [], color="grey", linestyle="-"), Line2D([], [], color="grey", linestyle="--")]
    axes[0][0].legend(handles, names + [labels[0], labels[1]], fontsize="small")
    ra, rb = pa.iloc[0], pb.iloc[0]
    default = (
        f"{labels[0]}: {ra['host']}, {ra['device']} ({ra['backend']})  vs  "
        f"{labels[1]}: {rb['host']}, {rb['device']} ({rb['backend']})"
    )
    return finish(fig, title or default, path)
