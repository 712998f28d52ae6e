"""Per-ping-pong table of the clock probe (Results.clock_samples), with bench/protocols/clock_sync.cpp's selection.

Device ticks are ~1.8e18, beyond float64's 2**53, so every tick difference is taken in uint64 first
and only then converted, as bench/protocols/clock_fit.cpp does.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .fields import Malformed, need, numbers
from .schema_rows import tick_differences

COLUMNS = [
    "file",
    "segment",
    "rank",
    "host",
    "device",
    "batch",
    "role",
    "at_s",
    "sample",
    "device_start_ticks",
    "device_end_ticks",
    "interval_ticks",
    "host_ns",
    "half_interval_ns",
    "predicted_host_ns",
    "residual_ns",
    "used",
]


def keep_count(n: int, keep_fraction: float) -> int:
    """bench/protocols/clock_fit.cpp keep_count: ceil(fraction * n), nudged down by 1e-12 relative, in [2, n]."""
    k = math.ceil(keep_fraction * n * (1 - 1e-12))
    return max(2, min(k, n)) if n >= 2 else n


def _used(rec: dict, intervals: np.ndarray, keep_fraction: float) -> np.ndarray:
    """The samples of one fit batch that went into the fit.

    The batch record's interval_cutoff_ticks where it has one (bench/protocols/clock_fit.cpp's near-minimum
    filter, one window per batch: the samples with an interval up to it). Files from before it: the
    old keep_shortest, a stable sort by interval and the first keep_count(n) samples, so among equal
    intervals the earlier samples are kept.
    """
    cutoff = rec.get("interval_cutoff_ticks")
    if cutoff is not None:
        return intervals <= int(cutoff)
    used = np.zeros(len(intervals), dtype=bool)
    used[np.argsort(intervals, kind="stable")[: keep_count(len(intervals), keep_fraction)]] = True
    return used


def clock_samples(records: list[dict], headers: dict[int, dict]) -> pd.DataFrame:
    """One row per ping-pong of every clock_batch record, with the residual against its segment's fit.

    host_ns = host stamp x host ns_per_tick (ns); predicted_host_ns = host_ref_ns + ns_per_tick x
    (device midpoint - device_ref_ticks) of the same (segment, rank)'s clock_fit; residual_ns =
    host_ns - predicted_host_ns. NaN where the segment has no clock_fit.
    """
    fits = {
        (r["_segment"], r.get("rank", 0)): r
        for r in records
        if r.get("probe") == "clock" and r.get("record") == "clock_fit"
    }
    parts = []
    for rec in records:
        if rec.get("probe") != "clock" or rec.get("record") != "clock_batch":
            continue
        header = headers[rec["_segment"]]
        start = np.asarray(rec["device_start"]["values"], dtype=np.uint64)
        end = np.asarray(rec["device_end"]["values"], dtype=np.uint64)
        interval = tick_differences(rec, "device_start", "device_end")
        host_ns = numbers(rec, "host_stamp.values", required=True) * float(
            need(rec, "host_stamp.ns_per_tick", "number")
        )
        n = len(start)
        if len(host_ns) != n:
            raise Malformed("host_stamp.values", f"{len(host_ns)} values for {n} ping-pongs")
        fit = fits.get((rec["_segment"], rec.get("rank", 0)))
        predicted = residual = np.full(n, np.nan)
        if fit is not None:
            m = fit["mapping"]
            # Midpoint in ticks from the reference: an exact integer difference plus half the interval.
            since = (start - np.uint64(int(m["device_ref_ticks"]))).view(np.int64).astype(np.float64)
            mid = since + 0.5 * interval.astype(np.float64)
            k = float(m["ns_per_tick"])
            residual = (host_ns - float(m["host_ref_ns"])) - k * mid  # large values cancel first
            predicted = float(m["host_ref_ns"]) + k * mid
        keep_fraction = float((header.get("config") or {}).get("keep_fraction", 0.5))
        used = _used(rec, interval, keep_fraction) if rec["role"] == "fit" and fit is not None else np.zeros(n, bool)
        device = (header.get("device") or {}).get("name")
        parts.append(
            pd.DataFrame(
                {
                    "file": rec["_file"],
                    "segment": rec["_segment"],
                    "rank": rec.get("rank", 0),
                    "host": header.get("host"),
                    "device": device,
                    "batch": rec["batch"],
                    "role": rec["role"],
                    "at_s": float(rec["at_s"]),
                    "sample": np.arange(n),
                    "device_start_ticks": start,
                    "device_end_ticks": end,
                    "interval_ticks": interval,
                    "host_ns": host_ns,
                    "half_interval_ns": interval.astype(np.float64) * float(rec["device_start"]["ns_per_tick"]) / 2,
                    "predicted_host_ns": predicted,
                    "residual_ns": residual,
                    "used": used,
                },
                columns=COLUMNS,
            )
        )
    if not parts:
        return pd.DataFrame({c: [] for c in COLUMNS}, columns=COLUMNS)
    return pd.concat(parts, ignore_index=True)
