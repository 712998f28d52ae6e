"""Rows of a Results the tables and plots take: one run's (single_run, first_run), one flag setup's
(pick_setup), the interference points of one step and load, pooled over its launches, with their
ratio to SSB and its 95% interval (interference_points), and an order for labels (ordered)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import UsageError
from .rates import is_full, same_rate
from .run_steps import LOADS, PAPER, as_results, pick_steps, steps_in, steps_text


def ordered(values, order) -> list:
    """The distinct values, those named in `order` first and in that order, the rest as they come."""
    seen = list(dict.fromkeys(v for v in values if isinstance(v, str)))
    return [v for v in order if v in seen] + [v for v in seen if v not in order]


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
        runs = sorted(rows["segment"].unique().tolist()) if "segment" in rows else steps_text(rows)
        raise UsageError(
            f"{what}: several runs of the same points ({runs}); filter them (e.g. send_mode=, "
            "writer_side=, or load one file), or use plots.compare(a, b)"
        )
    return rows


def first_run(rows: pd.DataFrame, key: list, what: str) -> pd.DataFrame:
    """Rows of one host (else UsageError), the lowest rank, first occurrence of each key (for tables)."""
    if rows.empty:
        raise UsageError(f"no {what} in these results")
    if len(rows[["host", "device"]].drop_duplicates()) > 1:
        raise UsageError(f"{what} from several hosts/devices: load or select one, or use hetprobe.data.compare_table")
    rows = rows[rows["rank"] == rows["rank"].min()]
    return rows.drop_duplicates(key, keep="first")


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


def interference_points(
    results, send_mode=None, writer_side=None, load=None, gpus=None, rate=None, step=None
) -> pd.DataFrame:
    """The interference points of one step and one load, pooled over the step's launches
    (Results.interference_ratios): the SSB baseline and the points of `load` from `gpus` GPUs at
    `rate`. Unnamed, the step is the paper's layouts (interference-paper) where the run has them, else
    the loads (interference), else the one step there is (run_steps.pick_steps); the load is the only
    one there is, else write from the fewest GPUs at full rate (the paper's kind). Besides the pooled
    columns: `median` (the send time, ns), `ratio_to_ssb`, `ci_low`, `ci_high` (its 95% interval), `record_id`
    (the first launch's record) and, where each point is of one launch, its send-time statistics
    (min, p10, p90, p99, max, mean)."""
    results = as_results(results)
    rows = results.interference_ratios()
    s = pick_steps(rows, step, default=(PAPER,) if PAPER in steps_in(rows) else (LOADS,))
    if send_mode is not None:
        s = s[s["send_mode"] == send_mode]
    if writer_side is not None:
        s = s[s["writer_side"] == writer_side]
    if len(s[["send_mode", "writer_side"]].drop_duplicates()) > 1:
        raise UsageError(
            "interference points with several send_mode/writer_side: pass send_mode= and "
            "writer_side=, or use plots.compare(a, b)"
        )
    loaded = s[s["load_kind"] != "none"]
    configs = loaded[["load_kind", "load_gpus", "load_rate"]].drop_duplicates()
    if len(configs) > 1 or load is not None or gpus is not None or rate is not None:
        kind = load or ("write" if (configs["load_kind"] == "write").any() else configs["load_kind"].iloc[0])
        pick = loaded[loaded["load_kind"] == kind]
        n = gpus if gpus is not None else (pick["load_gpus"].min() if len(pick) else 1)
        if rate is not None:
            r = rate
        else:  # the full rate where the kind has it, by value
            full = pick["load_rate"][pick["load_rate"].map(is_full)]
            r = full.iloc[0] if len(full) else (pick["load_rate"].iloc[0] if len(pick) else "1")
        same = (s["load_kind"] == kind) & (s["load_gpus"] == n) & same_rate(s["load_rate"], r)
        s = s[(s["load_kind"] == "none") | same]
    points = single_run(s, ["size_bytes", "layout", "access", "series"], "interference points")
    if points["series"].nunique() > 1:
        raise UsageError(
            f"interference points of several runs ({steps_text(points)}): pass step=, or use plots.compare(a, b)"
        )
    return _with_statistics(points, results)


def _with_statistics(points: pd.DataFrame, results) -> pd.DataFrame:
    """Pooled points with median, ratio_to_ssb, ci_low, ci_high and record_id; one launch's points also with
    their send-time statistics (the summary's columns)."""
    out = points.assign(
        median=points["median_ns"],
        ci_low=points["ratio_to_ssb_ci95_low"],
        ci_high=points["ratio_to_ssb_ci95_high"],
        record_id=[int(ids[0]) for ids in points["record_ids"]],
    )
    stats = ["min", "p10", "p90", "p99", "max", "mean"]
    s = results.summary
    sends = s[s["metric"] == "send_time_ns"].set_index("record_id")[stats]
    one = (out["launches"] == 1).to_numpy()
    for c in stats:
        out[c] = [sends[c].get(i, np.nan) if alone else np.nan for i, alone in zip(out["record_id"], one)]
    return out.reset_index(drop=True)
