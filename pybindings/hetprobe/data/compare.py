"""Two runs' headline numbers side by side (compare_table): notify round trips, the clock, the
interference ratios to SSB at the largest size both measured, the bandwidths."""

from __future__ import annotations

import pandas as pd

from ..errors import UsageError
from .run_steps import as_results
from .select import interference_points
from .units import size_label


def _headline(results) -> dict:
    """{quantity: (unit, value)} of the numbers compare_table puts side by side."""
    out, s = {}, results.summary
    rt = s[(s["record"] == "roundtrip") & (s["direction"] == "cpu-gpu-cpu") & (s["metric"] == "roundtrip_ns")]
    for r in rt.sort_values("rank", kind="stable").itertuples():
        setup = "" if (r.placement, r.spacing) == ("pinned", "line") else f" {r.placement}/{r.spacing}"
        out.setdefault(f"notify round trip cpu-gpu-cpu {r.cpu_order}:{r.gpu_order}{setup}", ("ns", r.median))
    fit = s[s["record"] == "clock_fit"]
    if len(fit):
        out["clock drift"] = ("ppm", fit["drift_ppm"].iloc[0])
        out["clock precision"] = ("ns", fit["precision_ns"].iloc[0])
    try:
        points = interference_points(results)
    except UsageError:
        points = None
    if points is not None:
        for (layout, acc), d in points[points["layout"] != "SSB"].groupby(["layout", "access"], sort=False):
            for size, ratio in d.set_index("size_bytes")["ratio_to_ssb"].items():
                out[("ratio", layout, acc, size)] = ("ratio", ratio)
    bw = s[(s["record"] == "point") & (s["metric"] == "gbs")]
    for r in bw.itertuples():
        out.setdefault(f"bandwidth {r.writer}, median", ("GB/s", r.median))
    return out


def compare_table(a, b, labels=("A", "B")) -> pd.DataFrame:
    """Headline numbers of two Results side by side, for those present in both (raw floats).

    Rows: notify round trip medians (cpu-gpu-cpu) per order pair, clock drift and precision,
    interference ratio_to_ssb at the largest size both have per layout and access,
    bandwidth medians. Columns: unit, labels[0], labels[1], ratio (labels[1] ÷ labels[0]; NaN for
    the drift, whose sign says which way the clock runs, so a ratio would mislead).
    """
    if len(set(labels)) != 2:
        raise UsageError("compare_table needs two distinct labels")
    ha, hb = _headline(as_results(a)), _headline(as_results(b))
    rows = {k: (ha[k][0], ha[k][1], hb[k][1]) for k in ha if k in hb and not isinstance(k, tuple)}
    # Interference: only the largest size both runs measured, per layout and access.
    largest = {}
    for k in ha:
        if isinstance(k, tuple) and k in hb:
            largest[k[1:3]] = max(largest.get(k[1:3], 0), k[3])
    for (layout, acc), size in largest.items():
        k = ("ratio", layout, acc, size)
        rows[f"interference {layout} {acc} ratio_to_ssb at {size_label(size)}"] = ("ratio", ha[k][1], hb[k][1])
    table = pd.DataFrame.from_dict(rows, orient="index", columns=["unit", labels[0], labels[1]])
    table.index.name = "quantity"
    table[labels[0]] = table[labels[0]].astype(float)
    table[labels[1]] = table[labels[1]].astype(float)
    table["ratio"] = table[labels[1]] / table[labels[0]]
    table.loc[table["unit"] == "ppm", "ratio"] = float("nan")
    return table
