"""The halo probe's tables: per layout and setup the iteration times and speed-ups (halo_table), the
critical path of each setup (halo_phases) and the pack and unpack rates of long messages against
bandwidth's plain kernels (halo_rates, the pandas form of data/halo_rates.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import UsageError
from . import halo_rates as _halo_rates
from .show_tables import pooled_table, show_tables
from .units import US


def halo_rows(results) -> pd.DataFrame:
    s = results.summary
    rows = s[(s["probe"] == "halo") & (s["record"] == "halo") & (s["metric"] == "iteration_ns") & (s["rank"] == 0)]
    if rows.empty:
        raise UsageError("no halo records (rank 0) in these results")
    return rows


# The C++ halo table's column names -> this table's (the same values: a view, not a second computation).
_HALO_COLUMNS = {
    "threads": "threads_per_block",
    "slowest_us": "slowest_rank_median_us",
    "vs_base": "speedup_vs_baseline",
    "vs_best": "speedup_vs_best_baseline",
    "model_lb_us": "model_lower_bound_us",
}


def halo_table(results) -> pd.DataFrame:
    """`hetprobe show`'s halo table (bench/halo/halo_table.cpp computes it; this is a view of it), one
    row per layout (cube) and setup (variant, send mode, receive wait or signal, staging, threads,
    parts) of rank 0: its median iteration time and p10/p90 (µs), the slowest rank's median, the
    speed-up over the fastest baseline with the same send mode, threads and single-copy mechanism
    (the thesis's comparison: baseline median ÷ this median), the speed-up over the fastest baseline
    of the layout over all its setups, and the paper's Eq. 1 lower bound (µs), raw floats. `parts`:
    the record's ("auto", "whole" or bytes per block; None in files from before parts); `parts_text`:
    the same as `hetprobe show` prints it. single_copy: Open MPI's single-copy mechanism of the run
    (its header's mpi.transport; None in files from before it); `file`: the results file."""
    from .. import _rules  # the compiled module: a part size's text form is written once, in C++

    table = show_tables(results).get("halo")
    if table is None or table.empty:
        raise UsageError("no halo records (rank 0) in these results")
    table = table.rename(columns=_HALO_COLUMNS)
    table.insert(
        table.columns.get_loc("parts") + 1,
        "parts_text",
        [None if pd.isna(p) else _rules.part_size_text(p) for p in table["parts"]],
    )
    return table


def halo_launches(results) -> pd.DataFrame:
    """`hetprobe show --pool`'s halo table: each file in `results` one launch of one halo command, and
    per layout and setup each launch's paired speed-up over its strongest baseline (`launch_speedups`),
    their median (`speedup`), its 95% interval from the spread between launches (speedup_ci95_low and
    _high, 3 launches or more: NaN otherwise) and the effect it supports; median_us, the median over
    launches of the slowest rank's median iteration. Pooled in C++ (bench/halo/halo_launches.cpp): a
    view, not a second computation."""
    table = pooled_table(results)
    if table.empty or "speedup" not in table:
        raise UsageError("no halo launches to pool in these results")
    return table


def median_kept(its) -> int:
    """Position, among a record's kept timeline iterations, of the one with the median total time."""
    return int(np.argsort([i["total_ns"] for i in its])[len(its) // 2])


# The critical path's phases (the records' critical_path_ns keys), shown as PHASE_us columns.
PHASES = [
    "total",
    "pack_start",
    "pack_end",
    "last_send",
    "largest_received",
    "largest_unpack_start",
    "unpack_end",
    "largest_unpack",
    "last_recv_copy_end",
]


def halo_phases(results, setups=None) -> pd.DataFrame:
    """The critical path of each rank-0 record (µs from the iteration's start, host clock): when
    packing started and ended, the last send, when the last of the largest messages (the faces, in a
    cube) was received and when its unpack started, when the last unpack ended, the mean unpack time
    of a largest message, and with memcpy staging when the last receive's copy to the device ended.
    Why one setup beats another is in these columns. Each phase is the record's median over every
    timed iteration (its critical_path_ns, which the probe computes: bench/halo/halo_phases.hpp);
    records from before the probe wrote it are left out. `setups`: setup labels or variant names to
    keep (default every one)."""
    out = []
    for rec in results.records:
        if rec.get("record") != "halo" or rec.get("rank", 0) != 0:
            continue
        setup = rec.get("setup", rec["variant"])
        if setups is not None and setup not in setups and rec["variant"] not in setups:
            continue
        phases = rec.get("critical_path_ns")
        if phases is None:  # a file from before the probe wrote it
            continue
        row = {"layout": rec["layout"], "cube": rec.get("cube"), "setup": setup, "variant": rec["variant"]}
        for name in PHASES:
            value = phases.get(name)
            row[f"{name}_us"] = value * US if value is not None else np.nan
        row["largest_bytes"] = max((m["bytes"] for m in rec["unpack"]), default=0)
        out.append(row)
    if not out:
        raise UsageError(
            "no rank-0 halo record with a critical path (critical_path_ns) in these results: files from before "
            "hetprobe wrote it have none"
        )
    return pd.DataFrame(out)


def halo_rates(halo_results, bandwidth_results, min_bytes: int | None = None, per: str = "message") -> pd.DataFrame:
    """Rank 0's pack and unpack rates of long messages, per layout and setup, against rank 0's plain
    kernels of a `hetprobe bandwidth --load write,read` run: a pack against the plain write kernel,
    an unpack against the plain read kernel (pinned host memory); GB/s = 1e9 B/s.
    per="message": every message of `min_bytes` or more (default: the probe's own threshold, 64 KiB,
    which each record's busy rates carry). Columns: layout, cube, setup,
    variant, staging, parts, judged (parts "auto"), direction, tag, kind, bytes, ns_median,
    gbs_median, reference, reference_gbs, ratio.
    per="stage": each stage's long messages (64 KiB or more) over the time any of them moved, the
    records' pack_busy and unpack_busy, and with memcpy staging copy_busy and recv_copy_busy: what
    the issue's 70% criterion judges (messages moving at the same time share the link;
    tests/gpu/halo_rates.py checks it). Each stage has its reference: the plain kernels for pinned
    staging, the run's link for memcpy's copies, device memory (shown, not judged) for memcpy's
    kernels. Columns: layout, cube, setup, variant, staging, parts, judged, direction (pack, unpack,
    copy, recv_copy), messages, bytes, busy_ns_median, gbs_median, reference, reference_gbs, ratio,
    stage_judged, bound_gbs, above_bound; empty for files from before busy rates.
    Each results argument: a Results (hetprobe.load) or what hetprobe.load takes. UsageError when
    the halo records have no per-message rates (files from before them), the bandwidth results lack
    a plain row, or `per` is neither."""
    from .load import load

    if per not in ("message", "stage"):
        raise UsageError(f"per={per!r}: 'message' or 'stage'")
    halo, bandwidth = (r if hasattr(r, "records") else load(r) for r in (halo_results, bandwidth_results))
    try:
        rows = _halo_rates.rate_rows(halo.records, bandwidth.records, min_bytes)
        if per == "stage":
            rows = _halo_rates.busy_rows(halo.records, bandwidth.records)
        return pd.DataFrame(rows)
    except _halo_rates.RatesError as e:
        raise UsageError(str(e)) from None
