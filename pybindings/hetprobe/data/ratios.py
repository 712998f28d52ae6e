"""Ratios to SSB of one or several runs as rows (ratio_rows), for hetprobe.plots.ratios_side_by_side:
one row per load point, a label per file; rows from elsewhere (a bare program's output) join them
when they have the same columns (RATIO_COLUMNS)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .loads import loaded_points
from .rates import load_label
from .run_steps import as_results, steps_in

RATIO_COLUMNS = ["label", "size_bytes", "load", "ratio_to_ssb", "ci_low", "ci_high"]


def ratio_rows(results, label=None, step=None) -> pd.DataFrame:
    """One row per load point (SSB left out), pooled over its step's launches: label, size_bytes, load,
    ratio_to_ssb, ci_low, ci_high (NaN without an interval), then layout, access, effect and traffic (GB/s
    during the sends). load names the kind ('write'; 'write x2 @0.5' off one GPU at full rate), after
    the layout and access where the results hold several ('PCB stream write').

    ratio_to_ssb: the paired ratio of a point measured in rounds, else median ÷ the SSB median (as the load
    plots). Every step unless `step` names some; label: `label` for every row, else each row's step."""
    pts = loaded_points(results, step) if step is not None else _every_step(as_results(results))
    loads = [load_label(k, g, r, brief=True) for k, g, r in zip(pts["load_kind"], pts["load_gpus"], pts["load_rate"])]
    if len(pts[["layout", "access"]].drop_duplicates()) > 1:
        loads = [f"{layout} {access} {name}" for layout, access, name in zip(pts["layout"], pts["access"], loads)]
    out = pd.DataFrame(
        {
            "label": label if label is not None else pts["step"].to_numpy(),
            "size_bytes": pts["size_bytes"].astype(np.int64).to_numpy(),
            "load": loads,
            "ratio_to_ssb": pts["ratio_to_ssb"].to_numpy(dtype=float),
            "ci_low": pts["ci_low"].to_numpy(dtype=float),
            "ci_high": pts["ci_high"].to_numpy(dtype=float),
            "layout": pts["layout"].to_numpy(),
            "access": pts["access"].to_numpy(),
            "effect": pts["effect"].to_numpy(),
            "traffic": pts["traffic"].to_numpy(dtype=float),
        }
    )
    return out.reset_index(drop=True)


def _every_step(results) -> pd.DataFrame:
    """loaded_points of every step the results have."""
    return loaded_points(results, steps_in(results.interference_ratios()) or None)
