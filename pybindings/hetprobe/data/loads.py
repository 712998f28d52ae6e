"""The interference loads as tables: every load point of a step, pooled over its launches, with its
ratio_to_ssb and its 95% interval (loaded_points, load_points), one row per load kind and GPU count
(load_table), and the worst point (worst_slowdown). ratio_to_ssb and traffic are as
hetprobe.plots.slowdown_vs_traffic draws them, and as the report's tables have them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import UsageError
from .rates import same_rate
from .run_steps import LOADS, RATES, step_rows
from .units import size_label

KIND_ORDER = ["write", "read", "poll", "copy-d2h", "copy-h2d"]


HEADLINE_SIZES = (1024, 64 * 1024, 1 << 20, 16 << 20)


def loaded_points(results, step=None, default: tuple = (LOADS,)) -> pd.DataFrame:
    """Every load point of a step (run_steps.pick_steps: `step`, else the `default` steps the run has),
    pooled over its launches (Results.interference_ratios), with `ratio_to_ssb` (paired round by round,
    pooled over launches; in files from before the rounds median ÷ the SSB median of its launch:
    docs/metrics.md), its 95% interval `ci_low`, `ci_high` (NaN without one), `median` (the send time, ns)
    and `traffic` (GB/s during the sends)."""
    rows = step_rows(results, step, default)
    loaded = rows[rows["load_kind"] != "none"]
    if loaded.empty:
        raise UsageError("no interference points with a load in these results")
    return loaded.assign(
        ci_low=loaded["ratio_to_ssb_ci95_low"],
        ci_high=loaded["ratio_to_ssb_ci95_high"],
        median=loaded["median_ns"],
        traffic=loaded["traffic_gbs"],
    ).reset_index(drop=True)


def load_points(results, layout=None, access=None, step=None, default: tuple = (LOADS,)) -> pd.DataFrame:
    """The load points (loaded_points) of one layout and access (default: the first non-SSB layout and
    the first access)."""
    loaded = loaded_points(results, step, default)
    out = loaded[loaded["access"] == (access or loaded["access"].iloc[0])]
    if out.empty:
        raise UsageError("no interference points with a load in these results")
    return out[out["layout"] == (layout or out["layout"].iloc[0])].reset_index(drop=True)


def headline_sizes(points, sizes) -> list[int]:
    have = sorted(points["size_bytes"].unique())
    if sizes is not None:
        return [s for s in sizes if s in have]
    picked = [s for s in HEADLINE_SIZES if s in have]
    return picked or have[:: max(1, len(have) // 4)][:4]


def load_table(results, rate="1", layout=None, access=None, sizes=None, step=None) -> pd.DataFrame:
    """One row per load kind and GPU count at one rate: per size, the median send time (µs), the
    ratio_to_ssb and the traffic during the sends (GB/s), each pooled over the step's launches as
    the report's loads table has them. `results`: a Results or a run directory; `step`: the loads
    (interference) unless named; the `step` column says which. Raw floats."""
    points = load_points(results, layout, access, step)
    points = points[same_rate(points["load_rate"], rate)]
    sizes = headline_sizes(points, sizes)
    rows = []
    for (step_name, kind, gpus), d in points.groupby(["step", "load_kind", "load_gpus"], sort=False):
        row = {"step": step_name, "kind": kind, "gpus": int(gpus)}
        for size in sizes:
            one = d[d["size_bytes"] == size]
            label = size_label(size)
            row[f"{label} µs"] = one["median"].iloc[0] / 1e3 if len(one) else np.nan
            row[f"{label} ratio_to_ssb"] = one["ratio_to_ssb"].iloc[0] if len(one) else np.nan
            row[f"{label} GB/s"] = one["traffic"].iloc[0] if len(one) else np.nan
        rows.append(row)
    table = pd.DataFrame(rows)
    order = {k: i for i, k in enumerate(KIND_ORDER)}
    return table.sort_values(["kind", "gpus"], key=lambda c: c.map(order) if c.name == "kind" else c, ignore_index=True)


def worst_slowdown(results, step=None) -> pd.Series:
    """The load point with the largest slowdown over every layout and access of the warm loads' steps
    (the loads and the write load's rates, unless `step` names others), pooled over launches: its
    size, layout, access, load kind, GPU count, rate, median, ratio_to_ssb, its interval, traffic and step
    (the first of equals: _rules.largest_ratio)."""
    from .. import _rules  # the compiled module: the choice is made once, in C++

    loaded = loaded_points(results, step, default=(LOADS, RATES)).dropna(subset=["ratio_to_ssb"])
    if loaded.empty:
        raise UsageError("no load point has an SSB baseline at its size and access")
    return loaded.iloc[_rules.largest_ratio(loaded["ratio_to_ssb"].tolist())]
