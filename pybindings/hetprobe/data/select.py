"""Rows of a Results the tables and plots take: one run's (single_run, first_run), one flag setup's
(pick_setup), the interference points of one run and load (interference_points) with their ratio to
SSB and its 95% interval (with_ratio, paired_ratios), and an order for labels (ordered)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import UsageError
from .rates import is_full, same_rate


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
        raise UsageError(
            f"{what}: several runs of the same points (segments "
            f"{sorted(rows['segment'].unique().tolist())}); filter them (e.g. send_mode=, "
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


def _record_ci(rec) -> tuple[float, float]:
    """A record's ratio_to_ssb_ci95 as (low, high); NaN where it has none (SSB, under 6 rounds, old files)."""
    ci = rec.get("ratio_to_ssb_ci95") if isinstance(rec, dict) else None
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(isinstance(v, (int, float)) for v in ci):
        return float(ci[0]), float(ci[1])
    return np.nan, np.nan


def paired_ratios(results, rows: pd.DataFrame, fallback) -> pd.DataFrame:
    """Per interference point row: `ratio`, `ci_low`, `ci_high` (NaN where none), aligned with `rows`.

    A point measured in rounds is drawn at its `ratio_to_ssb_median` (the median over rounds of the
    paired ratio, which its interval is about); an older point at `fallback` (its median ÷ the SSB
    median, as before). The interval comes from the frame's `ratio_ci95_low`/`ratio_ci95_high` columns
    where the frames have them (pooled launches), else from each row's record (`record_id`)."""
    fallback = np.asarray(fallback, dtype=float)
    if {"ratio_ci95_low", "ratio_ci95_high"} <= set(rows.columns):
        low = rows["ratio_ci95_low"].to_numpy(dtype=float)
        high = rows["ratio_ci95_high"].to_numpy(dtype=float)
    else:
        pairs = [_record_ci(results.records[int(i)]) for i in rows["record_id"]]
        low = np.array([p[0] for p in pairs], dtype=float).reshape(len(rows))
        high = np.array([p[1] for p in pairs], dtype=float).reshape(len(rows))
    rounds = np.array([results.records[int(i)].get("rounds") is not None for i in rows["record_id"]], dtype=bool)
    paired = rows["ratio_to_ssb_median"].to_numpy(dtype=float) if "ratio_to_ssb_median" in rows else fallback
    use = (rounds | np.isfinite(low)) & np.isfinite(paired)
    return pd.DataFrame({"ratio": np.where(use, paired, fallback), "ci_low": low, "ci_high": high}, index=rows.index)


def interference_points(results, send_mode=None, writer_side=None, load=None, gpus=None, rate=None) -> pd.DataFrame:
    """send_time_ns summary rows of one interference run and one load (see single_run): the
    SSB baseline and the points of `load` from `gpus` GPUs at `rate`. Unnamed, they default to the
    only load there is, else write from the fewest GPUs at full rate (the paper's kind)."""
    s = results.summary
    s = s[(s["probe"] == "interference") & (s["record"] == "point") & (s["metric"] == "send_time_ns")]
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
        keep = (s["load_kind"] == "none") | same
        s = s[keep]
    return single_run(s, ["size_bytes", "layout", "access"], "interference points")


def with_ratio(points: pd.DataFrame, results) -> pd.DataFrame:
    """Adds ratio, ci_low and ci_high: a point measured in rounds has its paired ratio and 95% interval
    (paired_ratios); an older one median ÷ the SSB median at the same size and
    access (NaN where there is no SSB) and no interval."""
    ssb = points.loc[points["layout"] == "SSB", ["size_bytes", "access", "median"]]
    out = points.merge(ssb.rename(columns={"median": "ssb_median"}), on=["size_bytes", "access"], how="left")
    paired = paired_ratios(results, out, out["median"] / out["ssb_median"])
    return out.assign(**{c: paired[c].to_numpy() for c in paired.columns})
