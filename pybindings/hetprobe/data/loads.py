"""The interference loads as tables: every load point with its slowdown (÷ SSB) and its 95% interval
(loaded_points, load_points), one row per load kind and GPU count (load_table), and the worst point
(worst_slowdown). slowdown and traffic are as hetprobe.plots.slowdown_vs_traffic draws them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import UsageError
from .rates import same_rate
from .select import paired_ratios
from .units import size_label

KIND_ORDER = ["write", "read", "poll", "copy-d2h", "copy-h2d"]


HEADLINE_SIZES = (1024, 64 * 1024, 1 << 20, 16 << 20)


def loaded_points(results) -> pd.DataFrame:
    """Every load point's send_time_ns row with `slowdown` and its 95% interval `ci_low`, `ci_high`:
    measured in rounds, the paired ratio and its interval; older, its median ÷ the SSB median of its own
    run (file), size and access (NaN without one), and no interval."""
    s = results.summary
    s = s[(s["probe"] == "interference") & (s["record"] == "point") & (s["metric"] == "send_time_ns")]
    if s.empty:
        raise UsageError("no interference points in these results")
    ssb = s[s["layout"] == "SSB"].groupby(["file", "size_bytes", "access"])["median"].first()
    loaded = s[s["load_kind"] != "none"].copy()
    if loaded.empty:
        raise UsageError("no interference points with a load in these results")
    loaded["slowdown"] = [
        m / ssb.get((f, b, a), np.nan)
        for m, f, b, a in zip(loaded["median"], loaded["file"], loaded["size_bytes"], loaded["access"])
    ]
    paired = paired_ratios(results, loaded, loaded["slowdown"])
    loaded["slowdown"], loaded["ci_low"], loaded["ci_high"] = paired["ratio"], paired["ci_low"], paired["ci_high"]
    return loaded


def load_points(results, layout=None, access=None) -> pd.DataFrame:
    """The load points of one layout and access (default: the first non-SSB layout and the first access),
    each with `slowdown` (÷ the SSB), its interval `ci_low`, `ci_high` (NaN without one) and `traffic`
    (GB/s during the sends)."""
    loaded = loaded_points(results)
    first = results.summary[(results.summary["probe"] == "interference") & (results.summary["record"] == "point")]
    out = loaded[loaded["access"] == (access or first["access"].iloc[0])]
    if out.empty:
        raise UsageError("no interference points with a load in these results")
    out = out[out["layout"] == (layout or out["layout"].iloc[0])].copy()
    out["traffic"] = out["traffic_during_send_gbs"]
    return out


def headline_sizes(points, sizes) -> list[int]:
    have = sorted(points["size_bytes"].unique())
    if sizes is not None:
        return [s for s in sizes if s in have]
    picked = [s for s in HEADLINE_SIZES if s in have]
    return picked or have[:: max(1, len(have) // 4)][:4]


def load_table(results, rate="1", layout=None, access=None, sizes=None) -> pd.DataFrame:
    """One row per load kind and GPU count at one rate: per size, the median send time (µs), the
    slowdown (÷ SSB) and the traffic during the sends (GB/s). Raw floats. Of several files, the first's."""
    points = load_points(results, layout, access)
    points = points[same_rate(points["load_rate"], rate) & (points["file"] == points["file"].iloc[0])]
    sizes = headline_sizes(points, sizes)
    rows = []
    for (kind, gpus), d in points.groupby(["load_kind", "load_gpus"], sort=False):
        row = {"kind": kind, "gpus": int(gpus)}
        for size in sizes:
            one = d[d["size_bytes"] == size]
            label = size_label(size)
            row[f"{label} µs"] = one["median"].iloc[0] / 1e3 if len(one) else np.nan
            row[f"{label} ×SSB"] = one["slowdown"].iloc[0] if len(one) else np.nan
            row[f"{label} GB/s"] = one["traffic"].iloc[0] if len(one) else np.nan
        rows.append(row)
    table = pd.DataFrame(rows)
    order = {k: i for i, k in enumerate(KIND_ORDER)}
    return table.sort_values(["kind", "gpus"], key=lambda c: c.map(order) if c.name == "kind" else c, ignore_index=True)


def worst_slowdown(results) -> pd.Series:
    """The load point with the largest slowdown over every layout and access: its size, layout, access,
    load kind, GPU count, rate, median, slowdown, traffic and sample count (the first of equals:
    _core.largest_ratio)."""
    from .. import _core  # the compiled module: the choice is made once, in C++

    loaded = loaded_points(results).dropna(subset=["slowdown"])
    if loaded.empty:
        raise UsageError("no load point has an SSB baseline at its size and access")
    return loaded.iloc[_core.largest_ratio(loaded["slowdown"].tolist())]
