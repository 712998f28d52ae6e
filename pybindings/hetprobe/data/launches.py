"""Each interference point's ratio to SSB per launch, and pooled over the launches of one measurement
(Results.interference_ratios), as frames of the aggregates that C++ makes (hetprobe._core's
interference_aggregates: bench/interference/interference_aggregate.hpp), the one place that groups
launches and pools them. Nothing here pools or chooses: it reads the aggregates into columns."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..errors import UsageError

# What the sender did before each send: the gap's label (--gap's), its kind ("none", "spin" or "sweep")
# and a sweep's bytes. Files from before --gap: back to back.
_GAP = ["gap", "gap_kind", "gap_bytes"]
# What an interference point is a measurement of: its size, where the load lands and which load.
POINT_SETUP = ["size_bytes", "layout", "access", "load_kind", "load_gpus", "load_rate"]
_POINT_KEY = POINT_SETUP + ["send_mode", "writer_side"] + _GAP

# With a --gap: the warm sends of the same visits, and cold ÷ warm paired round by round (C++'s record).
_COLD_COLUMNS = ["warm_median_ns", "cold_ratio", "cold_ratio_ci95_low", "cold_ratio_ci95_high"]

_LAUNCH_COLUMNS = (
    ["series", "step", "launch", "file", "segment", "record_id", "host", "backend", "device"]
    + _POINT_KEY
    + [
        "rounds",
        "reps",
        "n",
        "median_ns",
        "ssb_median_ns",
        "ratio_to_ssb",
        "ratio_to_ssb_ci95_low",
        "ratio_to_ssb_ci95_high",
        "effect",
    ]
    + _COLD_COLUMNS
    + ["traffic_gbs", "status"]
)

_POOLED_COLUMNS = (
    ["series", "step", "host", "backend", "device"]
    + _POINT_KEY
    + [
        "launches",
        "ratio_to_ssb",
        "ratio_to_ssb_ci95_low",
        "ratio_to_ssb_ci95_high",
        "ratio_to_ssb_ci95_over",
        "effect",
    ]
    + ["ratio_to_ssb_min", "ratio_to_ssb_max"]
    + _COLD_COLUMNS
    + ["median_ns", "median_ns_ci95_low", "median_ns_ci95_high", "median_ns_ci95_over"]
    + ["ssb_median_ns", "ssb_median_ns_ci95_low", "ssb_median_ns_ci95_high", "ssb_median_ns_ci95_over"]
    + ["traffic_gbs", "rounds", "reps", "n", "status", "record_ids", "files"]
)

_INTS = {"size_bytes": np.int64, "load_gpus": np.int64}


def _core_records(results) -> list[tuple]:
    """The interference headers, points and aggregates (a pooled file's) of `results` as C++'s aggregation
    stage takes them: it pools the points, reads a pooled file's aggregates as written, and refuses the two
    mixed."""
    return [
        (i, r["_file"], json.dumps({k: v for k, v in r.items() if not k.startswith("_")}))
        for i, r in enumerate(results.records)
        if r.get("probe") == "interference" and r.get("record") in ("header", "point", "aggregate")
    ]


def aggregates(results) -> list[dict]:
    """The interference aggregate records of `results` (a Results): one per series (launches of one
    command) and point, as C++ pools them (docs/results-schema.md, "aggregate")."""
    from .. import _rules  # the compiled module: the aggregation stage is written once, in C++

    records = _core_records(results)
    return _rules.interference_aggregates(records) if records else []


def headline(results, warm_steps: list[str], cold_steps: list[str], paper_steps: list[str] = ()):
    """The interference headline (a _rules.Headline) C++ chooses over the aggregates of `results`
    (_rules.interference_headline: its picks are rows of Results.interference_ratios(), whose aggregates
    it keeps, made once); None without interference points."""
    from .. import _rules

    records = _core_records(results)
    if not records:
        return None
    picks = _rules.interference_headline(records, warm_steps, cold_steps, list(paper_steps))
    if results._aggregates is None:
        results._aggregates = picks.aggregates
    return picks


def _value(reading: dict | None, i: int | None = None) -> float:
    """A pooled reading's median (or its launch i's value) as a float, NaN where there is none."""
    if not reading:
        return np.nan
    value = reading["median"] if i is None else reading["per_launch"][i]
    return np.nan if value is None else float(value)


def _interval(reading: dict | None) -> tuple[float, float]:
    ci = (reading or {}).get("ci95")
    return (float(ci[0]), float(ci[1])) if ci else (np.nan, np.nan)


def _key(a: dict) -> dict:
    gap = a["gap"]
    return {
        **{k: a[k] for k in POINT_SETUP + ["send_mode", "writer_side"]},
        "gap": gap["label"],
        "gap_kind": gap["kind"],
        "gap_bytes": np.nan if gap["bytes"] is None else float(gap["bytes"]),
    }


def _reading_columns(name: str, reading: dict | None) -> dict:
    low, high = _interval(reading)
    return {
        name: _value(reading),
        f"{name}_ci95_low": low,
        f"{name}_ci95_high": high,
        f"{name}_ci95_over": (reading or {}).get("ci95_over"),
    }


def pooled_frame(aggs: list[dict]) -> pd.DataFrame:
    """One row per aggregate (Results.interference_ratios): its key, the pooled ratio with its interval
    and effect, the launches' lowest and highest ratio, cold ÷ warm, and the absolute medians with their
    intervals (what each interval is over: *_ci95_over)."""
    rows = []
    for a in aggs:
        ratio, cold = a["ratio_to_ssb"] or {}, a["cold_over_warm"] or {}
        cold_low, cold_high = _interval(cold)
        rows.append(
            {
                **{k: a[k] for k in ("series", "step", "host", "backend", "device", "launches")},
                **_key(a),
                **_reading_columns("ratio_to_ssb", ratio),
                "effect": ratio.get("effect"),
                "ratio_to_ssb_min": _value({"median": ratio.get("min")}),
                "ratio_to_ssb_max": _value({"median": ratio.get("max")}),
                "warm_median_ns": _value(a["warm_send_time_ns"]),
                "cold_ratio": _value(cold),
                "cold_ratio_ci95_low": cold_low,
                "cold_ratio_ci95_high": cold_high,
                **_reading_columns("median_ns", a["send_time_ns"]),
                **_reading_columns("ssb_median_ns", a["ssb_send_time_ns"]),
                "traffic_gbs": _value(a["traffic_during_send_gbs"]),
                **{k: np.nan if a[k] is None else a[k] for k in ("rounds", "reps")},
                **{k: a[k] for k in ("n", "status", "record_ids")},
                "files": list(dict.fromkeys(a["files"])),
            }
        )
    return pd.DataFrame(rows, columns=_POOLED_COLUMNS).astype({**_INTS, "launches": np.int64, "n": np.int64})


def launch_frame(aggs: list[dict], results) -> pd.DataFrame:
    """One row per aggregate and launch (Results.interference_ratios(pooled=False)), in the order the
    records were read: each launch's own values, with its record's own interval and effect."""
    rows = []
    for a in aggs:
        if len(a["record_ids"]) != len(a["launch_numbers"]):  # read from a pooled file: its launches are elsewhere
            raise UsageError(
                f"interference_ratios(pooled=False): {a['step']} holds pooled points (aggregate records of "
                f"show --pool --records), not their launches: load the launches they name ({', '.join(a['files'])})"
            )
        for i, (launch, record_id, file) in enumerate(zip(a["launch_numbers"], a["record_ids"], a["files"])):
            rec = results.records[record_id]
            ci = rec.get("ratio_to_ssb_ci95") or [np.nan, np.nan]
            cold_ci = rec.get("cold_over_warm_ci95") or [np.nan, np.nan]
            rows.append(
                {
                    **{k: a[k] for k in ("series", "step", "host", "backend", "device")},
                    "launch": launch,
                    "file": file,
                    "segment": rec["_segment"],
                    "record_id": record_id,
                    **_key(a),
                    **{k: np.nan if rec.get(k) is None else rec[k] for k in ("rounds", "reps", "n")},
                    "median_ns": _value(a["send_time_ns"], i),
                    "ssb_median_ns": _value(a["ssb_send_time_ns"], i),
                    "ratio_to_ssb": _value(a["ratio_to_ssb"], i),
                    "ratio_to_ssb_ci95_low": float(ci[0]),
                    "ratio_to_ssb_ci95_high": float(ci[1]),
                    "effect": rec.get("effect") if isinstance(rec.get("effect"), str) else None,
                    "warm_median_ns": _value(a["warm_send_time_ns"], i),
                    "cold_ratio": _value(a["cold_over_warm"], i),
                    "cold_ratio_ci95_low": float(cold_ci[0]),
                    "cold_ratio_ci95_high": float(cold_ci[1]),
                    "traffic_gbs": _value(a["traffic_during_send_gbs"], i),
                    "status": rec.get("status"),
                }
            )
    frame = pd.DataFrame(rows, columns=_LAUNCH_COLUMNS).astype(_INTS)
    return frame.sort_values("record_id", kind="stable", ignore_index=True)
