"""Each interference point's ratio to SSB per launch, and pooled over the launches of one measurement
(Results.interference_ratios): the rows, and the pooling itself through hetprobe._core, the one place
that pools (base/effect.cpp)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .fields import number
from .steps import split_launch

# What the sender did before each send: the record's gap (kind "none", "spin" or "sweep"; its bytes for a
# sweep) beside the label --gap took. Files from before --gap: back to back.
_GAP = ["gap", "gap_kind", "gap_bytes"]
# What an interference point is a measurement of: its size, where the load lands and which load.
POINT_SETUP = ["size_bytes", "layout", "access", "load_kind", "load_gpus", "load_rate"]
_POINT_KEY = POINT_SETUP + ["send_mode", "writer_side"] + _GAP


# With a --gap: the warm sends of the same visits, and cold ÷ warm paired round by round (C++'s record).
_COLD_COLUMNS = ["warm_median_ns", "cold_ratio", "cold_ratio_ci95_low", "cold_ratio_ci95_high"]

_LAUNCH_COLUMNS = (
    ["series", "step", "launch", "file", "segment", "record_id", "host", "backend", "device"]
    + _POINT_KEY
    + ["rounds", "reps", "n", "median_ns", "ssb_median_ns", "ratio", "ratio_ci95_low", "ratio_ci95_high", "effect"]
    + _COLD_COLUMNS
    + ["traffic_gbs", "status"]
)


_POOLED_COLUMNS = (
    ["series", "step", "host", "backend", "device"]
    + _POINT_KEY
    + ["launches", "ratio", "ratio_ci95_low", "ratio_ci95_high", "effect", "ratio_min", "ratio_max"]
    + _COLD_COLUMNS
    + ["median_ns", "ssb_median_ns", "traffic_gbs", "rounds", "reps", "n", "status", "record_ids", "files"]
)


def _measurement(header: dict) -> str:
    """What a run measured, the same for every launch of one command: C++'s launch_identity, the rule
    `hetprobe show --pool` pools by (host, backend, device, the ranks' binding, the config less its
    seed and host_stream)."""
    from .. import _core  # the compiled module: the rule is written once, in C++

    return _core.launch_identity(json.dumps({k: v for k, v in header.items() if not k.startswith("_")}))


def _gap_columns(gap: dict) -> dict:
    """The _GAP columns of a record's gap (empty in files from before --gap: back to back)."""
    kind = gap.get("kind") or "none"
    bytes_ = gap.get("bytes")
    return {
        "gap": gap.get("label") or "0",
        "gap_kind": kind,
        "gap_bytes": float(bytes_) if isinstance(bytes_, (int, float)) else np.nan,
    }


def launch_rows(results) -> pd.DataFrame:
    """Results.interference_ratios(pooled=False) of `results` (a Results)."""
    s = results.summary
    points = s[(s["probe"] == "interference") & (s["record"] == "point") & (s["metric"] == "send_time_ns")]
    headers = results._segment_headers()
    started, previous = {}, None  # segment -> the segment its launch began with (a resumed one continues)
    for segment in sorted(headers):
        h = headers[segment]
        resumed = h.get("resumed") and previous is not None and previous[0] == h["_file"]
        started[segment] = previous[1] if resumed else segment
        previous = (h["_file"], started[segment])
    identity = {segment: _measurement(h) for segment, h in headers.items()}  # once per run, not per point
    series: dict[str, int] = {}
    launches: dict[int, dict[int, int]] = {}  # series -> {first segment: launch number}
    rows = []
    for p in points.to_dict("records"):
        rec = results.records[int(p["record_id"])]
        key = series.setdefault(identity[rec["_segment"]], len(series))
        numbers = launches.setdefault(key, {})
        launch = numbers.setdefault(started[rec["_segment"]], len(numbers) + 1)
        ci = rec.get("ratio_to_ssb_ci95") or [np.nan, np.nan]
        cold_ci = rec.get("cold_over_warm_ci95") or [np.nan, np.nan]
        rows.append(
            {
                "series": key,
                "step": split_launch(p["file"])[0],
                "launch": launch,
                **{k: p[k] for k in ("file", "segment", "record_id", "host", "backend", "device")},
                **{k: p[k] for k in _POINT_KEY if k not in _GAP},
                "size_bytes": int(p["size_bytes"]),  # the summary's column is float where other records have none
                "load_gpus": int(p["load_gpus"]),
                **_gap_columns(rec.get("gap") or {}),
                "rounds": p["rounds"],
                "reps": p["reps"],
                "n": p["n"],
                "median_ns": p["median"],
                "ssb_median_ns": p["median"] if p["layout"] == "SSB" else p["ssb_send_time_ns_median"],
                "ratio": p["ratio_to_ssb_median"],
                "ratio_ci95_low": float(ci[0]),
                "ratio_ci95_high": float(ci[1]),
                "effect": p["effect"] if isinstance(p["effect"], str) else None,
                "warm_median_ns": number(rec, "warm_send_time_ns.median"),
                "cold_ratio": p["cold_over_warm_median"],
                "cold_ratio_ci95_low": float(cold_ci[0]),
                "cold_ratio_ci95_high": float(cold_ci[1]),
                "traffic_gbs": p["traffic_during_send_gbs"],
                "status": p["status"],
            }
        )
    return pd.DataFrame(rows, columns=_LAUNCH_COLUMNS)


def _median(values) -> float:
    """The median over launches of a reading that is not a ratio (times, GB/s); NaN without one."""
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    return float(np.median(x)) if len(x) else np.nan


def pool(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per series and point key: the launches' ratios pooled (Results.interference_ratios),
    the points of one size of a series together (their launches' variance pooled in
    hetprobe._core.pool_launch_points)."""
    groups = list(rows.groupby(["series"] + _POINT_KEY, sort=False, dropna=False))
    pooled = _pooled_ratios([g for _, g in groups], "ratio")
    pooled_cold = _pooled_ratios([g for _, g in groups], "cold_ratio")
    out = []
    for (_, g), pool, cold in zip(groups, pooled, pooled_cold):
        first = g.iloc[0]
        row = {k: first[k] for k in ["series", "step", "host", "backend", "device"] + _POINT_KEY}
        row.update(launches=len(g), ratio=np.nan, ratio_ci95_low=np.nan, ratio_ci95_high=np.nan, effect=None)
        row.update(ratio_min=np.nan, ratio_max=np.nan)
        if len(g) == 1:  # one launch: the point's own interval over its rounds stands
            row.update({k: first[k] for k in ("ratio", "ratio_ci95_low", "ratio_ci95_high", "effect")})
            row.update(ratio_min=first["ratio"], ratio_max=first["ratio"])
        elif pool is not None:
            low, high = pool["ci95"] or (np.nan, np.nan)
            row.update(ratio=pool["median"], ratio_ci95_low=low, ratio_ci95_high=high, effect=pool["effect"])
            row.update(ratio_min=pool["min"], ratio_max=pool["max"])
        row.update(warm_median_ns=_median(g["warm_median_ns"]), cold_ratio=np.nan)
        row.update(cold_ratio_ci95_low=np.nan, cold_ratio_ci95_high=np.nan)
        if len(g) == 1:
            row.update({k: first[k] for k in ("cold_ratio", "cold_ratio_ci95_low", "cold_ratio_ci95_high")})
        elif cold is not None:
            low, high = cold["ci95"] or (np.nan, np.nan)
            row.update(cold_ratio=cold["median"], cold_ratio_ci95_low=low, cold_ratio_ci95_high=high)
        bad = [s for s in g["status"] if s != "ok"]
        row.update(
            median_ns=_median(g["median_ns"]),
            ssb_median_ns=_median(g["ssb_median_ns"]),
            traffic_gbs=_median(g["traffic_gbs"]),
            rounds=first["rounds"],
            reps=first["reps"],
            n=int(g["n"].sum()),
            status=bad[0] if bad else "ok",
            record_ids=[int(i) for i in g["record_id"]],
            files=list(dict.fromkeys(g["file"])),
        )
        out.append(row)
    pooled = pd.DataFrame(out, columns=_POOLED_COLUMNS)
    return pooled.astype({"size_bytes": np.int64, "load_gpus": np.int64, "launches": np.int64, "n": np.int64})


def _pooled_ratios(groups: list, column: str) -> list:
    """pool_launch_points' result for each point (a group of its launches' rows) measured in several
    launches, of its ratio in `column`, the points of one series and size pooled together; None for the
    others."""
    from .. import _core  # the compiled module: the pooling and the effect rule live in base/effect.cpp

    out: list = [None] * len(groups)
    together: dict = {}
    for i, g in enumerate(groups):
        ratios = [float(r) for r in g[column] if np.isfinite(r)]
        if len(g) > 1 and ratios:
            first = g.iloc[0]
            together.setdefault((first["series"], int(first["size_bytes"])), []).append((i, ratios))
    for points in together.values():
        for (i, _), pool in zip(points, _core.pool_launch_points([r for _, r in points])):
            out[i] = pool
    return out
