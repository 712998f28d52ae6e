"""The notify probe's figures (round trips, the signalling mechanisms) and the clock's (its fit's
residuals and the sync precision); their tables are hetprobe.data.notify_tables'."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import NullFormatter

from ..data.notify_tables import DIRECTIONS, mechanism_table, notify_rows
from ..data.select import first_run
from ..data.units import US
from ..errors import UsageError
from .style import DIRECTION_COLORS, finish, log_if_wide, new_figure, run_title


def _title(rows, what, title):
    return title or run_title(rows, what)


def roundtrip(results, path=None, title=None):
    """Box plots of the per-exchange round trips (µs) per order pair, both directions side by side.

    Boxes are p25-p75 with the median; whiskers p1-p99; outliers are not drawn. The y axis is
    logarithmic once the whiskers span more than a factor of 10. With several flag setups in the
    file, each group is labelled with its placement/spacing too. Of a run over several GPUs (one rank
    each), the lowest rank's exchanges, as roundtrip_table shows; Results.only_rank selects another.
    """
    s = results.samples
    sm = s[(s["probe"] == "notify") & (s["record"] == "roundtrip") & (s["metric"] == "roundtrip_ns")]
    if sm.empty:
        raise UsageError("no notify round-trip samples in these results")
    sm = sm[sm["rank"] == sm["rank"].min()]  # one GPU's exchanges in a box, never two GPUs' pooled
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
    ax.legend(  # above the axes: never over a box
        handles=[Patch(color=DIRECTION_COLORS[d], label=d) for d in DIRECTIONS],
        fontsize="small",
        loc="lower left",
        bbox_to_anchor=(0, 1.0),
        ncols=2,
        frameon=False,
    )
    return finish(fig, _title(sm, "flag round trips (box p25-p75, whiskers p1-p99)", title), path)


def _skipped_note(table: pd.DataFrame) -> str:
    """'Skipped: a, b (reason); c (other reason).' of the mechanisms not measured, "" when none was."""
    skipped = table[table["median"].isna()]
    if skipped.empty:
        return ""
    reasons = skipped["skipped_reason"].where(skipped["skipped_reason"].notna(), skipped["status"])
    groups = [f"{', '.join(names.index)} ({why})" for why, names in skipped.groupby(reasons, sort=False)]
    return textwrap.fill("Skipped: " + "; ".join(groups) + ".", width=110, break_on_hyphens=False)


def mechanisms(results, path=None, title=None):
    """Horizontal bars of each measured mechanism's median round trip (µs), p10-p90 error bars; the x
    axis is logarithmic once the bars and go calls span more than a factor of 10, else linear from 0.

    The go call's median is marked where the record has it; the mechanisms that were skipped are named,
    with their reasons, in a note under the axis (not as empty rows).
    """
    table = mechanism_table(results)
    rows = first_run(notify_rows(results, "mechanism", "roundtrip_ns"), ["mechanism"], "notify mechanism records")
    measured = table[table["median"].notna()]
    note = _skipped_note(table)
    y = np.arange(len(measured))
    fig, axes = new_figure(1, 1, width=9, height=0.4 * max(len(y), 1) + 1.8 + 0.2 * note.count("\n"))
    ax = axes[0][0]
    med, lo, hi, go = (measured[c].to_numpy(dtype=float) * US for c in ("median", "p10", "p90", "go_call_median"))
    ax.barh(
        y, med, xerr=[med - lo, hi - med], color="#1f77b4", alpha=0.8, capsize=3, label="round trip median, p10-p90"
    )
    has_go = np.isfinite(go)
    if has_go.any():
        ax.plot(go[has_go], y[has_go], "k|", markersize=14, markeredgewidth=2, label="go call median")
    shown = np.concatenate([lo, hi, go[has_go]])
    log = log_if_wide(ax, shown, axis="x")  # a go call of 20 ns beside 20 µs round trips: log
    if log:
        ax.set_xlim(np.nanmin(shown) / 2, np.nanmax(shown) * 2)
    elif len(shown):
        ax.set_xlim(0, np.nanmax(shown) * 1.1)
    ax.set_yticks(y, measured.index, fontsize="small")
    ax.set_ylim(len(y) - 0.5, -0.5)  # top row first, every row whole inside the axes
    ax.set_xlabel("round trip: go through done (µs, log)" if log else "round trip: go through done (µs)")
    ax.set_ylabel("mechanism")
    ax.grid(True, axis="x", which="both", alpha=0.3)
    if len(y):
        ax.legend(fontsize="small", loc="lower left", bbox_to_anchor=(0, 1.0), ncols=2, frameon=False)  # above
    else:
        ax.text(0.5, 0.5, "no mechanism measured", transform=ax.transAxes, ha="center", va="center")
    if note:  # under the x label, inside the figure's layout
        ax.annotate(
            note,
            xy=(0, 0),
            xycoords=("axes fraction", ax.xaxis.label),
            xytext=(0, -6),
            textcoords="offset points",
            ha="left",
            va="top",
            fontsize="small",
            color="dimgrey",
        )
    return finish(fig, _title(rows, "notification mechanisms", title), path)


# The residual panel shows at most this many precisions either side of 0, so that the ±precision band
# fills a fifth of it or more; residuals beyond are drawn at the edge.
CLOCK_SPAN = 5.0


def _residual_panel(ax, t, residual, used, prec):
    """Residuals (ns) against time (s), the ±precision band shaded; the axis spans the used samples'
    residuals but no more than CLOCK_SPAN precisions, and the samples beyond sit at its edge as ▲/▼."""
    big = 1.2 * np.nanmax(np.abs(residual[used])) if used.any() else 0.0
    lim = min(max(3 * prec, big), CLOCK_SPAN * prec)
    beyond = np.abs(residual) > lim
    edge = np.sign(residual) * lim
    ax.axhspan(-prec, prec, color="tab:green", alpha=0.18, linewidth=0, label=f"± precision ({prec:.0f} ns)")
    ax.axhline(0, color="black", linewidth=0.8)
    for keep, color, ms, label in (
        (~used, "darkgrey", 2, "not used (check batch, long round trips)"),
        (used, "tab:blue", 3, "used in the fit"),
    ):
        inside = keep & ~beyond
        ax.plot(t[inside], residual[inside], ".", ms=ms, color=color, label=label)
        for sign, marker in ((1, "^"), (-1, "v")):
            out = keep & beyond & (np.sign(residual) == sign)
            ax.plot(t[out], edge[out], marker, ms=ms + 2, color=color, linestyle="none")
    if beyond.any():
        ax.plot(
            [],
            [],
            "^",
            color="dimgrey",
            label=f"beyond ±{lim:.0f} ns (at the edge): {int((beyond & used).sum())} used, "
            f"{int((beyond & ~used).sum())} not",
        )
    ax.set_ylim(-1.08 * lim, 1.08 * lim)  # the markers at the edge whole
    ax.set_xlabel("time since the first fitted batch (s)")
    ax.set_ylabel("residual: host − fitted device time (ns)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="lower left", bbox_to_anchor=(0, 1.0), frameon=False)  # above: off the data


def _round_trip_panel(ax, half, used, prec):
    """Histogram of each sync's half round trip (ns), all and used, the precision marked. Linear bins up to
    the 99.5th percentile (the rest in the last bin) where that bulk spans up to a factor of 10, else a
    log x axis with log-spaced bins over them all (a loaded host: 200 ns to milliseconds)."""
    top = np.percentile(half, 99.5)
    if log_if_wide(ax, [half.min(), top], axis="x"):
        bins = np.geomspace(half.min(), half.max() * 1.001, 50)
        ax.xaxis.set_minor_formatter(NullFormatter())  # 2×10³ 3×10³ ... would overlap
    else:
        bins = np.linspace(half.min(), top * 1.05 + 1, 50)
        half = np.clip(half, None, bins[-1])
    ax.hist(half, bins=bins, color="lightgrey", label="all samples")
    ax.hist(half[used], bins=bins, color="tab:blue", alpha=0.8, label="used in the fit")
    ax.axvline(prec, color="tab:green", linestyle="--", linewidth=1.2, label=f"precision ({prec:.0f} ns)")
    ax.set_yscale("log")
    ax.set_xlabel(f"half round trip of a sync (ns{', log' if ax.get_xscale() == 'log' else ''})")
    ax.set_ylabel("samples (count)")
    ax.legend(fontsize="small", loc="lower left", bbox_to_anchor=(0, 1.0), ncols=2, frameon=False)


def gpu_label(results, segment: int, rank: int) -> str:
    """A rank of a run over several GPUs as hetprobe.per_gpu names it (the rank that measured it), with its
    device's PCI address from the run's header where it has one: "GPU 1 (0000:00:07.0)"."""
    header = results._segment_headers().get(segment) or {}
    entry = next((r for r in header.get("ranks") or [] if isinstance(r, dict) and r.get("rank") == rank), {})
    pci = (entry.get("device") or {}).get("pci_bus_id") or (entry.get("placement") or {}).get("pci_bus_id")
    return f"GPU {rank}" + (f" ({pci})" if pci else "")


def _clock_row(axes, fit, samples) -> None:
    """One fit's two panels: residuals over time, and the half round trips."""
    cs = samples[(samples["segment"] == fit["segment"]) & (samples["rank"] == fit["rank"])]
    t0 = cs.loc[cs["role"] == "fit", "host_ns"].min()
    t = ((cs["host_ns"] - t0) * 1e-9).to_numpy()
    used, prec = cs["used"].to_numpy(dtype=bool), float(fit["precision_ns"])
    _residual_panel(axes[0], t, cs["residual_ns"].to_numpy(dtype=float), used, prec)
    _round_trip_panel(axes[1], cs["half_interval_ns"].to_numpy(dtype=float), used, prec)


def _fit_text(fit) -> str:
    return f"drift {fit['drift_ppm']:.3f} ppm, precision {float(fit['precision_ns']):.0f} ns"


def clock(results, path=None, title=None):
    """Clock sync: residual (ns) against time (s) with used samples highlighted and ±precision shaded
    (the axis scaled to show the band, residuals beyond it drawn at the edge), and the distribution of
    each sync's half round trip (ns). Title: drift (ppm) and precision (ns).

    A run over several GPUs (`hetprobe clock` under mpirun, characterize: one fit per rank, each rank
    its own GPU) gets a row of the two panels per GPU, titled with its rank, PCI address, drift and
    precision. Fits of several runs (segments: two files, two nodes) raise UsageError: select one."""
    s = results.summary
    fits = s[(s["probe"] == "clock") & (s["record"] == "clock_fit")]
    if fits.empty:
        raise UsageError("no clock_fit record in these results")
    if fits["segment"].nunique() > 1 or fits["rank"].duplicated().any():
        raise UsageError(
            f"{len(fits)} clock fits of {fits['segment'].nunique()} runs (segments) in these results: "
            "load or select one"
        )
    samples = results.clock_samples()
    if len(fits) == 1:
        fit = fits.iloc[0]
        fig, axes = new_figure(1, 2, width=5.5, height=4.4)
        _clock_row(axes[0], fit, samples)
        return finish(fig, title or run_title(fits, f"clock sync, {_fit_text(fit)}"), path)
    fits = fits.sort_values("rank", kind="stable")
    fig = Figure(figsize=(11.0, 4.8 * len(fits)), layout="constrained")
    for sub, fit in zip(fig.subfigures(len(fits), 1, squeeze=False)[:, 0], (f for _, f in fits.iterrows())):
        _clock_row(sub.subplots(1, 2), fit, samples)
        sub.suptitle(f"{gpu_label(results, int(fit['segment']), int(fit['rank']))}: {_fit_text(fit)}")
    return finish(fig, title or run_title(fits, f"clock sync of {len(fits)} GPUs"), path)
