"""The halo probe's figures: iteration times per layout and setup (halo_times) and one iteration's
timeline (halo_timeline); their tables are hetprobe.data.halo's."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.halo import halo_rows, halo_table, median_kept
from ..data.units import US
from ..errors import UsageError
from .style import finish, new_figure, no_effect_band, run_title

VARIANT_COLORS = {"baseline": "black", "notify-stream": "#1f77b4", "notify-stacked": "#ff7f0e"}


def halo_times(results, path=None, title=None, setups=None):
    """Median iteration time per layout (cube) and setup with its p10-p90 range, the model's lower
    bound as a dashed marker: the paper's Fig. 14 as points. `setups`: the setup labels (or variant
    names) to show, in this order; default every one."""
    table = halo_table(results)
    if setups is not None:
        picked = [table[(table["setup"] == k) | (table["variant"] == k)] for k in setups]
        if any(p.empty for p in picked):
            missing = [k for k, p in zip(setups, picked) if p.empty]
            raise UsageError(f"no halo setup or variant {missing} in these results")
        table = pd.concat(picked)
    layouts = list(dict.fromkeys(table["layout"]))
    labels = list(dict.fromkeys(table["setup"]))
    fig, axes = new_figure(1, 1, width=max(7.5, 0.35 * len(labels) * len(layouts) + 3), height=4.2)
    ax = axes[0][0]
    width = 0.8 / max(1, len(labels))
    shades = {}
    for k, label in enumerate(labels):
        d = table[table["setup"] == label].set_index("layout").reindex(layouts)
        variant = d["variant"].dropna().iloc[0]
        shade = shades[variant] = shades.get(variant, -1) + 1
        x = np.arange(len(layouts)) + (k - (len(labels) - 1) / 2) * width
        ax.bar(
            x,
            d["median_us"],
            width,
            color=VARIANT_COLORS.get(variant, "#9467bd"),
            alpha=max(0.35, 0.9 - 0.12 * shade),
            label=label,
            yerr=[d["median_us"] - d["p10_us"], d["p90_us"] - d["median_us"]],
            capsize=2,
        )
        ax.scatter(
            x,
            d["model_lower_bound_us"],
            marker="_",
            s=max(40, 300 // len(labels)),
            color="#d62728",
            zorder=3,
            label="model lower bound (Eq. 1)" if k == 0 else None,
        )
    short = table.drop_duplicates("layout").set_index("layout")["cube"]
    ax.set_xticks(
        np.arange(len(layouts)), [f"cube {short[c]}" if short[c] else str(c) for c in layouts], fontsize="small"
    )
    ax.set_yscale("log")
    ax.set_ylabel("time per iteration, median (µs), p10-p90")
    ax.legend(fontsize="x-small", ncol=2 if len(labels) > 6 else 1)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    return finish(fig, title or run_title(halo_rows(results), "halo exchange per iteration"), path)


def _span(ax, it, phase: str, i: int, y: float, color: str, label: str) -> None:
    """Message i's device phase ("pack" or "unpack": its start to end, ns) as a bar on row y, labelled once."""
    start = it[f"{phase}_start_ns"][i]
    ax.barh(
        y,
        (it[f"{phase}_end_ns"][i] - start) * US,
        left=start * US,
        color=color,
        height=0.7,
        label=label if i == 0 else None,
    )


def _mark(ax, it, key: str, i: int, y: float, marker: str, color: str, size: float, label: str) -> None:
    """Message i's event `key` (ns) of a timeline iteration as a marker on row y; labelled once (the
    first message), and left out where the iteration has no such events (no copies when unstaged)."""
    if it.get(key):
        ax.scatter(it[key][i] * US, y, marker=marker, color=color, s=size, zorder=3, label=label if i == 0 else None)


def halo_timeline(results, layout: str, setup: str, iteration: int | None = None, path=None, title=None):
    """Rank 0's workflow in one iteration (the thesis's workflow figures): per message, the device's pack
    (bar), with memcpy staging the end of its copy to host (cross), the CPU's send (triangle), the
    receive's completion (dot), with memcpy staging the end of its copy to the device (plus) and the
    unpack (bar), in µs from the iteration's start on the host clock.
    `setup`: a setup label, or a variant name for its first setup. `iteration`: index among the timed
    ones (default: the one with the median time among those whose timeline was kept)."""
    matches = [
        r
        for r in results.records
        if r.get("record") == "halo"
        and r.get("rank", 0) == 0
        and r.get("layout") == layout
        and setup in (r.get("setup"), r.get("variant"))
    ]
    if not matches:
        raise UsageError(f"no rank-0 halo record for layout {layout!r}, setup {setup!r}")
    rec = matches[0]
    its = rec["timeline"]["iterations"]
    if not its:
        raise UsageError(f"the {setup!r} record kept no timeline (halo --timeline none)")
    # indices among the timed iterations; older files kept every one
    kept = rec["timeline"].get("iteration_index", list(range(len(its))))
    if iteration is None:
        iteration = kept[median_kept(its)]
    if iteration not in kept:
        raise UsageError(f"iteration {iteration}'s timeline was not kept (kept: {kept}; halo --timeline all keeps all)")
    it = its[kept.index(iteration)]
    sends, recvs = rec["pack"], rec["unpack"]
    fig, axes = new_figure(1, 1, width=9, height=0.22 * (len(sends) + len(recvs)) + 1.5)
    ax = axes[0][0]
    y = 0
    labels = []
    for i, m in enumerate(sends):
        _span(ax, it, "pack", i, y, "#2ca02c", "pack (device)")
        _mark(ax, it, "copy_end_ns", i, y, "x", "#8c564b", 16, "copy to host done")
        _mark(ax, it, "send_ns", i, y, ">", "black", 18, "send posted")
        labels.append(f"send {m['tag']} {m['kind']} {m['bytes']} B")
        y += 1
    for i, m in enumerate(recvs):
        _mark(ax, it, "recv_ns", i, y, "o", "#d62728", 14, "receive complete")
        _mark(ax, it, "recv_copy_end_ns", i, y, "+", "#8c564b", 24, "copy to device done")
        _span(ax, it, "unpack", i, y, "#9467bd", "unpack (device)")
        labels.append(f"recv {m['tag']} {m['kind']} {m['bytes']} B")
        y += 1
    ax.axvline(it["total_ns"] * US, color="grey", linestyle="--", linewidth=1, label="iteration end")
    ax.set_yticks(range(len(labels)), labels, fontsize=6)
    ax.invert_yaxis()
    ax.set_xlabel("µs from the iteration's start (host clock; device stamps mapped by clock sync)")
    ax.legend(fontsize="small", loc="lower right")
    precision = rec["timeline"]["clock_sync"]["precision_ns"]
    short = f"cube {rec['cube']}" if rec.get("cube") else layout
    default = (
        f"{short}, {rec.get('setup', rec['variant'])}, rank 0, iteration {iteration}: {it['total_ns'] * US:.1f} µs "
        f"(sync precision {precision * US:.2f} µs)"
    )
    return finish(fig, title or default, path)


def halo_speedups(table: pd.DataFrame, path=None, title=None, setups=None):
    """Each setup's speed-up over the strongest baseline with its 95% interval, one panel per cube: a
    pooled table (hetprobe.data.halo_launches, or `hetprobe show --pool --format csv` read back:
    columns cube, setup, speedup, speedup_ci95_low, speedup_ci95_high; the interval from the spread
    between launches) or a run's halo_table (speedup_vs_best_baseline, vs_best_ci95_low/high: the
    interval over its rounds). Above 1: faster than the baseline; the ±5% "no effect" margin shaded.
    `setups`: setup labels or variant names to keep, in this order; default every one."""
    pooled = "speedup" in table
    value, low, high = (
        ("speedup", "speedup_ci95_low", "speedup_ci95_high")
        if pooled
        else ("speedup_vs_best_baseline", "vs_best_ci95_low", "vs_best_ci95_high")
    )
    if setups is not None:
        variant = table["setup"].str.split(" ").str[0]
        keep = [table[(table["setup"] == k) | (variant == k)] for k in setups]
        if any(k.empty for k in keep):
            raise UsageError(f"no halo setup or variant {[s for s, k in zip(setups, keep) if k.empty]} in this table")
        table = pd.concat(keep)
    if table.empty:
        raise UsageError("no halo speed-ups to draw")
    cubes = sorted(set(table["cube"]))
    labels = list(dict.fromkeys(table["setup"]))
    fig, axes = new_figure(1, len(cubes), width=4.2, height=max(2.5, 0.22 * len(labels) + 1.2), sharey=True)
    for ax, cube in zip(axes[0], cubes):
        d = table[table["cube"] == cube].set_index("setup").reindex(labels)
        y = np.arange(len(labels))[::-1]
        lo = (d[value] - d[low]).clip(lower=0).fillna(0)
        hi = (d[high] - d[value]).clip(lower=0).fillna(0)
        for k, label in enumerate(labels):  # one colour per variant
            color = VARIANT_COLORS.get(label.split(" ")[0], "#9467bd")
            ax.errorbar(
                d[value].iloc[k],
                y[k],
                xerr=[[lo.iloc[k]], [hi.iloc[k]]],
                fmt="o",
                markersize=3.5,
                color=color,
                capsize=2,
                linewidth=1,
            )
        ax.axvline(1.0, color="black", linewidth=0.8)
        no_effect_band(ax, axis="x")
        ax.set_yticks(y, labels, fontsize="x-small")
        ax.set_title(f"cube {cube}", fontsize="small")
        ax.set_xlabel("speed-up over the strongest baseline")
        ax.grid(True, axis="x", alpha=0.3)
    what = "95% CI between launches" if pooled else "95% CI over rounds"
    return finish(fig, title or f"halo: speed-up over the strongest baseline ({what})", path)
