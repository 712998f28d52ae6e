"""Notify and clock tables and figures (re-exported by hetprobe.plots; see its docstring)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from ._plotting import (
    DIRECTION_COLORS,
    US,
    finish,
    first_run,
    log_if_wide,
    new_figure,
    ordered,
    pick_setup,
    run_title,
    summary_rows,
)
from .errors import UsageError

# Elis et al. 2024, Table 1 columns: (side, contended) -> name.
TABLE1_COLUMNS = {
    ("cpu", False): "cpu",
    ("cpu", True): "cpu, gpu polling",
    ("gpu", False): "gpu",
    ("gpu", True): "gpu, cpu polling",
}
DIRECTIONS = ["cpu-gpu-cpu", "gpu-cpu-gpu"]


def _rows(results, record: str, metric: str) -> pd.DataFrame:
    return summary_rows(results, record, metric, "notify")


def _order(rows: pd.DataFrame) -> pd.Series:
    return rows["cpu_order"] + ":" + rows["gpu_order"]


def notify_table(results) -> pd.DataFrame:
    """Elis et al. 2024, Table 1: median ns per read+write pair, rows "cpu_order:gpu_order".

    Columns "cpu", "cpu, gpu polling", "gpu", "gpu, cpu polling" (the side timed; "polling": the
    other side polled the flag meanwhile). One flag setup is shown, the default pinned/line when the
    file has several; attrs["placement"], attrs["spacing"] say which. Unresolved cells are NaN.
    """
    rows = pick_setup(_rows(results, "overhead", "ns_per_op"))
    rows = first_run(rows, ["cpu_order", "gpu_order", "side", "contended"], "notify overhead records")
    rows = rows.assign(
        order=_order(rows), column=[TABLE1_COLUMNS[(s, bool(c))] for s, c in zip(rows["side"], rows["contended"])]
    )
    table = rows.pivot(index="order", columns="column", values="median")
    table = table.reindex(
        index=list(dict.fromkeys(rows["order"])), columns=[c for c in TABLE1_COLUMNS.values() if c in table.columns]
    )
    table.index.name = "cpu_order:gpu_order"
    table.columns.name = "median ns per read+write pair"
    table.attrs.update(placement=rows["placement"].iloc[0], spacing=rows["spacing"].iloc[0])
    return table


def roundtrip_table(results) -> pd.DataFrame:
    """Round trips: rows (order pair, placement, spacing), columns (direction, median/p10/p90) in ns."""
    rows = first_run(
        _rows(results, "roundtrip", "roundtrip_ns"),
        ["cpu_order", "gpu_order", "placement", "spacing", "host_memory", "direction"],
        "notify roundtrip records",
    )
    rows = rows.assign(order=_order(rows))
    keys = ["order", "placement", "spacing"]
    table = rows.pivot_table(
        index=keys, columns="direction", values=["median", "p10", "p90"], aggfunc="first", sort=False
    )
    table = table.swaplevel(0, 1, axis=1)
    directions = ordered(rows["direction"], DIRECTIONS)
    table = table.reindex(
        columns=pd.MultiIndex.from_product([directions, ["median", "p10", "p90"]], names=["direction", "ns"])
    )
    return table.reindex(pd.MultiIndex.from_frame(rows[keys].drop_duplicates()))


def mechanism_table(results) -> pd.DataFrame:
    """Mechanisms: round trip median/p10/p90 (ns), go-call median (ns), n, status, skipped_reason."""
    rows = first_run(_rows(results, "mechanism", "roundtrip_ns"), ["mechanism"], "notify mechanism records")
    go = (
        first_run(_rows(results, "mechanism", "go_call_ns"), ["mechanism"], "go calls")
        if len(_rows(results, "mechanism", "go_call_ns"))
        else None
    )
    table = rows.set_index("mechanism")[["median", "p10", "p90", "n", "status", "skipped_reason"]].copy()
    table.insert(3, "go_call_median", np.nan if go is None else go.set_index("mechanism")["median"])
    table.columns.name = "round trip ns"
    return table


def _title(rows, what, title):
    return title or run_title(rows, what)


def roundtrip(results, path=None, title=None):
    """Box plots of the per-exchange round trips (µs) per order pair, both directions side by side.

    Boxes are p25-p75 with the median; whiskers p1-p99; outliers are not drawn. The y axis is
    logarithmic once the whiskers span more than a factor of 10. With several flag setups in the
    file, each group is labelled with its placement/spacing too.
    """
    s = results.samples
    sm = s[(s["probe"] == "notify") & (s["record"] == "roundtrip") & (s["metric"] == "roundtrip_ns")]
    if sm.empty:
        raise UsageError("no notify round-trip samples in these results")
    keys = ["cpu_order", "gpu_order", "placement", "spacing"]
    several = len(sm[["placement", "spacing"]].drop_duplicates()) > 1
    recs = sm[["record_id", "direction", *keys]].drop_duplicates("record_id")
    recs = recs.assign(group=list(recs[keys].itertuples(index=False, name=None)))
    groups = list(dict.fromkeys(recs["group"]))
    fig, axes = new_figure(1, 1, width=max(6.0, 1.1 * len(groups) + 2), height=4.5)
    ax = axes[0][0]
    values = {rid: v.to_numpy() * US for rid, v in sm.groupby("record_id")["value"]}
    whiskers = []
    for i, g in enumerate(groups):
        for j, direction in enumerate(DIRECTIONS):
            ids = [
                r for r, d, gr in zip(recs["record_id"], recs["direction"], recs["group"]) if d == direction and gr == g
            ]
            if not ids:
                continue
            data = np.concatenate([values[r] for r in ids])
            whiskers += list(np.percentile(data, [1, 99]))
            box = ax.boxplot(
                [data], positions=[i + (j - 0.5) * 0.38], widths=0.32, whis=(1, 99), showfliers=False, patch_artist=True
            )
            box["boxes"][0].set_facecolor(DIRECTION_COLORS[direction])
            box["medians"][0].set_color("black")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(
        [f"{c}:{g}" + (f"\n{p}/{sp}" if several else "") for c, g, p, sp in groups],
        rotation=30 if len(groups) > 6 else 0,
        fontsize="small",
    )
    ax.set_xlim(-0.7, len(groups) - 0.3)
    ax.set_xlabel("memory order (cpu:gpu)" + (", placement/spacing" if several else ""))
    log = log_if_wide(ax, whiskers)  # one slow setup (a loaded machine) would flatten the others
    ax.set_ylabel("round trip per exchange (µs, log)" if log else "round trip per exchange (µs)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(handles=[Patch(color=DIRECTION_COLORS[d], label=d) for d in DIRECTIONS], fontsize="small")
    return finish(fig, _title(sm, "flag round trips (box p25-p75, whiskers p1-p99)", title), path)


def mechanisms(results, path=None, title=None):
    """Horizontal bars of each mechanism's median round trip (µs, log x), p10-p90 error bars.

    The go call's median is marked where the record has it; skipped mechanisms are listed as
    "skipped: reason" in place of a bar.
    """
    table = mechanism_table(results)
    rows = first_run(_rows(results, "mechanism", "roundtrip_ns"), ["mechanism"], "notify mechanism records")
    y = np.arange(len(table))
    fig, axes = new_figure(1, 1, width=9, height=0.4 * len(y) + 1.8)
    ax = axes[0][0]
    ok = table["median"].notna().to_numpy()
    med, lo, hi = (table[c].to_numpy(dtype=float) * US for c in ("median", "p10", "p90"))
    ax.barh(
        y[ok],
        med[ok],
        xerr=[med[ok] - lo[ok], hi[ok] - med[ok]],
        color="#1f77b4",
        alpha=0.8,
        capsize=3,
        label="round trip median, p10-p90",
    )
    go = table["go_call_median"].to_numpy(dtype=float) * US
    has_go = ok & np.isfinite(go)
    if has_go.any():
        ax.plot(go[has_go], y[has_go], "k|", markersize=14, markeredgewidth=2, label="go call median")
    ax.set_xscale("log")
    if ok.any():
        low = min(np.nanmin(lo[ok]), np.nanmin(go[has_go]) if has_go.any() else np.inf)
        ax.set_xlim(low / 3, np.nanmax(hi[ok]) * 2)  # room on the left for the "skipped" notes
    else:
        ax.set_xlim(0.1, 100)
    left = ax.get_xlim()[0]
    for yi, (_, r) in zip(y, table.iterrows()):
        if r["status"] != "ok":
            ax.text(left * 1.1, yi, f"skipped: {r['skipped_reason']}", va="center", fontsize="small", color="dimgrey")
    ax.set_yticks(y)
    ax.set_yticklabels(table.index, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("round trip: go through done (µs, log)")
    ax.set_ylabel("mechanism")
    ax.grid(True, axis="x", which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="upper right")
    return finish(fig, _title(rows, "notification mechanisms", title), path)


def clock(results, path=None, title=None):
    """Clock sync: residual (ns) against time (s) with used samples highlighted and ±precision shaded,
    and the distribution of the per-sample half interval (ns). Title: drift (ppm) and precision (ns)."""
    s = results.summary
    fits = s[(s["probe"] == "clock") & (s["record"] == "clock_fit")]
    if fits.empty:
        raise UsageError("no clock_fit record in these results")
    if len(fits) > 1:
        raise UsageError(f"{len(fits)} clock fits (segments/ranks) in these results: load or select one")
    fit = fits.iloc[0]
    cs = results.clock_samples()
    cs = cs[(cs["segment"] == fit["segment"]) & (cs["rank"] == fit["rank"])]
    t0 = cs.loc[cs["role"] == "fit", "host_ns"].min()
    t = (cs["host_ns"] - t0) * 1e-9
    used, prec = cs["used"].to_numpy(), float(fit["precision_ns"])
    fig, axes = new_figure(1, 2, width=6.5, height=4.2)
    ax, hx = axes[0]
    ax.axhspan(-prec, prec, color="tab:green", alpha=0.12, label=f"± precision ({prec:.0f} ns)")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.plot(
        t[~used], cs["residual_ns"][~used], ".", ms=2, color="lightgrey", label="not used (check batch, long intervals)"
    )
    ax.plot(t[used], cs["residual_ns"][used], ".", ms=3, color="tab:blue", label="used in the fit")
    lim = max(2 * prec, 1.2 * np.nanmax(np.abs(cs["residual_ns"][used]))) if used.any() else 2 * prec
    ax.set_ylim(-lim, lim)
    ax.set_xlabel("time since the first fitted batch (s)")
    ax.set_ylabel("residual: host − fitted device time (ns)")
    ax.legend(fontsize="small", loc="upper left")
    ax.grid(True, alpha=0.3)
    half = cs["half_interval_ns"].to_numpy()
    bins = np.linspace(half.min(), np.percentile(half, 99.5) * 1.05 + 1, 50)
    hx.hist(np.clip(half, None, bins[-1]), bins=bins, color="lightgrey", label="all samples")
    hx.hist(np.clip(half[used], None, bins[-1]), bins=bins, color="tab:blue", alpha=0.8, label="used")
    hx.set_yscale("log")
    hx.set_xlabel("half interval (d_end − d_start)/2 per sample (ns)")
    hx.set_ylabel("samples (count)")
    hx.legend(fontsize="small")
    default = run_title(fits, f"clock sync, drift {fit['drift_ppm']:.3f} ppm, precision {prec:.0f} ns")
    return finish(fig, title or default, path)
