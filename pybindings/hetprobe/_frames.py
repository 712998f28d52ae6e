"""Records -> the `summary` and `samples` DataFrames of hetprobe.load (docs/results-schema.md).

One converter per record type returns the record's key columns, its summary rows and its raw
sample arrays. Frames always have the same columns, whatever probes were loaded; a column that does
not apply to a row holds NaN/None. Sample columns are built with numpy, one array per column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

# record_id: the row's index in Results.records (ties summary rows, samples and records together).
COMMON = ["file", "segment", "probe", "record", "host", "backend", "device", "rank", "record_id"]
KEYS = [
    "size_bytes", "layout", "access", "send_mode", "writer_side",          # interference
    "load_kind", "load_gpus", "load_rate",
    "writer", "bytes",                                                     # bandwidth
    "side", "contended", "cpu_order", "gpu_order", "placement", "spacing",  # notify
    "spacing_bytes", "host_memory", "ops_per_sample", "unresolved",
    "direction", "timed_by", "exchanges",
    "mechanism", "go", "done", "status", "skipped_reason",
    "batch", "role", "at_s",                                               # clock
    "variant", "setup", "cube", "send", "receive_wait", "signal",          # halo
    "staging", "threads_per_block",
]
STATS = ["n", "min", "p10", "median", "p90", "p99", "max", "mean", "stddev"]
EXTRAS = [
    "ratio_to_ssb_median", "payload_check", "torn_fraction_median", "bandwidth_during_send_gbs",
    "traffic_during_send_gbs", "rate_fraction", "target_gbs", "full_rate_gbs", "payload_writer",
    "ratio_to_plain_median", "resolution_ns",
    "drift_ppm", "precision_ns", "best_precision_ns", "offset_ns", "ns_per_tick", "span_s",
    "samples_used", "samples_total", "residual_rms_ns", "check_error_ns", "check_within_precision",
    "label", "lower_bound_ns", "comm_ns",
]
SUMMARY_COLUMNS = COMMON + KEYS + ["metric", "unit"] + STATS + EXTRAS
SAMPLE_COLUMNS = COMMON + KEYS + ["metric", "unit", "sample", "value"]
HEADER_COLUMNS = ["file", "segment", "probe", "host", "backend", "device", "git_revision",
                  "hetprobe_version", "start_time_utc", "resumed", "mpi_ranks", "command_line"]

_INT = {"segment", "rank", "record_id", "size_bytes", "bytes", "spacing_bytes", "ops_per_sample", "exchanges",
        "batch", "n", "samples_used", "samples_total", "sample", "mpi_ranks", "cube", "load_gpus"}
_BOOL = {"contended", "unresolved", "check_within_precision", "resumed"}
_FLOAT = set(STATS) - {"n"} | {"at_s", "value"} | (set(EXTRAS) - _INT - _BOOL - {"payload_check", "label",
                                                                                  "payload_writer"})
_SETUP = ["cpu_order", "gpu_order", "placement", "spacing", "spacing_bytes", "host_memory"]
_NS_PER = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def _num(x) -> float:
    return np.nan if x is None else float(x)


def stats_of(summary) -> dict:
    """A record's Summary object as floats (n as int); null statistics (unresolved) become NaN."""
    if not isinstance(summary, dict):
        return {"n": 0, **{k: np.nan for k in STATS[1:]}}
    return {"n": int(summary.get("n") or 0), **{k: _num(summary.get(k)) for k in STATS[1:]}}


def compute_stats(values) -> dict:
    """Summary of raw values as docs/metrics.md defines it: linear percentiles, stddev with n - 1."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return stats_of(None)
    p10, p50, p90, p99 = np.percentile(x, [10, 50, 90, 99])
    return {"n": int(x.size), "min": float(x.min()), "p10": float(p10), "median": float(p50),
            "p90": float(p90), "p99": float(p99), "max": float(x.max()), "mean": float(x.mean()),
            "stddev": float(x.std(ddof=1)) if x.size > 1 else 0.0}


def ticks_ns(raw, divide: float = 1.0) -> np.ndarray:
    """Raw ticks object -> ns, in the C++ order of operations: double(t) * ns_per_tick / divide."""
    return np.asarray(raw["values"], dtype=np.float64) * float(raw["ns_per_tick"]) / divide


def _setup(rec) -> dict:
    setup = rec.get("setup") or {}
    return {k: setup[k] for k in _SETUP if k in setup}


# Each converter returns (keys, rows, chunks): rows are (metric, unit, stats, extras) and chunks
# are (metric, unit, values) of raw samples.

def paper_config(config: dict) -> bool:
    """Whether an interference header's config ran the paper's writer (files from before the loads did)."""
    return bool(config.get("paper", "loads" not in config))


def load_key(rec) -> tuple[str, int, str | None]:
    """(load_kind, load_gpus, load_rate) of a point; files from before the load kinds: the paper's writer."""
    if "load_kind" in rec:
        return rec["load_kind"], int(rec["load_gpus"]), rec.get("load_rate")
    return ("none", 0, None) if rec["layout"] == "SSB" else ("write", 1, "1")


def _interference(rec, header):
    keys = {k: rec[k] for k in ("size_bytes", "layout", "access", "send_mode", "writer_side")}
    keys["load_kind"], keys["load_gpus"], keys["load_rate"] = load_key(rec)
    keys["status"] = rec.get("status")
    sender = (rec.get("writer") or {}).get("sender")
    payload = rec.get("payload") or {}
    torn = payload.get("torn_fraction")
    load = rec.get("load") or {}
    old_traffic = _num(sender.get("bandwidth_during_send_gbs")) if sender else np.nan
    side = load.get("sender") or load.get("receiver") or {}
    first = (side.get("devices") or [{}])[0]
    extras = {"ratio_to_ssb_median": _num(rec.get("ratio_to_ssb_median")),
              "payload_check": payload.get("check"),
              "torn_fraction_median": _num(torn.get("median")) if isinstance(torn, dict) else np.nan,
              "bandwidth_during_send_gbs": old_traffic,
              "traffic_during_send_gbs": _num(load["traffic_during_send_gbs"]) if "traffic_during_send_gbs" in load
              else old_traffic,
              "rate_fraction": _num(load.get("rate_fraction")),
              "target_gbs": _num(first.get("target_gbs")),
              "full_rate_gbs": _num(first.get("full_rate_gbs")),
              "payload_writer": rec.get("payload_writer")}
    send = rec["send_time_ns"]
    rows = [("send_time_ns", "ns", stats_of(send), extras)]
    if isinstance(rec.get("harness_empty_region_ns"), dict):  # absent before revision b8686a9
        rows.append(("harness_empty_region_ns", "ns", stats_of(rec["harness_empty_region_ns"]), extras))
    chunks = [("send_time_ns", "ns", np.asarray(send.get("samples") or [], dtype=np.float64))]
    timeline = rec.get("writer_timeline")
    if isinstance(timeline, dict):
        for name in ("start", "ready", "end"):
            chunks.append((f"writer_{name}_ns", "ns", np.asarray(timeline[f"{name}_ns"], dtype=np.float64)))
    if sender and sender.get("passes_during_send") is not None:
        chunks.append(("passes_during_send", "1", np.asarray(sender["passes_during_send"], dtype=np.float64)))
    if side.get("bytes_during_send") is not None:  # every load GPU together, per send; NaN where unknown
        chunks.append(("load_bytes_during_send", "B", np.asarray([_num(b) for b in side["bytes_during_send"]],
                                                                 dtype=np.float64)))
    return keys, rows, chunks


def _host_memory(rec, header):
    extras = {"label": f"{rec.get('threads')} threads, NUMA {rec.get('numa_nodes')}"}
    return ({"bytes": rec.get("array_bytes")},
            [(m, "GB/s", stats_of(rec.get(m)), extras) for m in ("copy_gbs", "triad_gbs")],
            [(m, "GB/s", np.asarray((rec.get(m) or {}).get("samples") or [], dtype=np.float64))
             for m in ("copy_gbs", "triad_gbs")])


def _bandwidth(rec, header):
    gbs = np.asarray(rec["gbs"], dtype=np.float64)
    extras = {"ratio_to_plain_median": _num(rec.get("ratio_to_plain_median"))}
    return ({"writer": rec["writer"], "bytes": rec.get("bytes")},
            [("gbs", "GB/s", compute_stats(gbs), extras)], [("gbs", "GB/s", gbs)])


def _overhead(rec, header):
    summary = rec.get("ns_per_op")
    ops = rec["ops_per_sample"]
    keys = {"side": rec["side"], "contended": bool(rec["contended"]), **_setup(rec),
            "ops_per_sample": ops, "unresolved": bool((summary or {}).get("unresolved", False))}
    extras = {"resolution_ns": _num((summary or {}).get("resolution_ns"))}
    # Each raw value is one sample's total over ops_per_sample read+write pairs.
    chunks = [("ns_per_op", "ns", ticks_ns(rec["samples"], ops))] if rec.get("samples") else []
    return keys, [("ns_per_op", "ns", stats_of(summary), extras)], chunks


def _roundtrip(rec, header):
    full = rec.get("roundtrip_ns") or {}
    keys = {"direction": rec["direction"], "timed_by": rec.get("timed_by"), "exchanges": rec.get("exchanges"),
            **_setup(rec), "unresolved": bool(full.get("unresolved", False))}
    rows = [(m, "ns", stats_of(rec.get(m)), {"resolution_ns": _num((rec.get(m) or {}).get("resolution_ns"))})
            for m in ("roundtrip_ns", "half_roundtrip_ns")]
    # bench/notify.cpp stores one full round trip per exchange; the half is derived from it.
    chunks = [("roundtrip_ns", "ns", ticks_ns(rec["samples"]))] if rec.get("samples") else []
    return keys, rows, chunks


def _mechanism(rec, header):
    keys = {k: rec.get(k) for k in ("mechanism", "go", "done", "status", "skipped_reason")}
    keys.update(_setup(rec))
    rows = [("roundtrip_ns", "ns", stats_of(rec.get("roundtrip_ns")), {})]  # NaN stats when skipped
    if isinstance(rec.get("go_call_ns"), dict):
        rows.append(("go_call_ns", "ns", stats_of(rec["go_call_ns"]), {}))
    chunks = [("roundtrip_ns", "ns", ticks_ns(rec["samples"]))] if rec.get("samples") else []
    return keys, rows, chunks


def clock_intervals(rec) -> np.ndarray:
    """device_end - device_start of a clock_batch record in ticks, differenced as uint64 (exact)."""
    start = np.asarray(rec["device_start"]["values"], dtype=np.uint64)
    end = np.asarray(rec["device_end"]["values"], dtype=np.uint64)
    return (end - start).view(np.int64)


def _clock_batch(rec, header):
    half = clock_intervals(rec).astype(np.float64) * float(rec["device_start"]["ns_per_tick"]) / 2
    keys = {"batch": rec["batch"], "role": rec["role"], "at_s": rec.get("at_s")}
    return keys, [("half_interval_ns", "ns", stats_of(rec.get("half_interval_ns")), {})], \
        [("half_interval_ns", "ns", half)]


def _clock_fit(rec, header):
    check = rec.get("check") or {}
    extras = {k: _num(rec.get(k)) for k in ("drift_ppm", "precision_ns", "best_precision_ns", "offset_ns",
                                            "span_s", "residual_rms_ns")}
    extras.update(ns_per_tick=_num(rec["mapping"]["ns_per_tick"]), samples_used=rec.get("samples_used"),
                  samples_total=rec.get("samples_total"), check_error_ns=_num(check.get("error_ns")),
                  check_within_precision=check.get("within_precision"))
    return {}, [("residual_ns", "ns", stats_of(rec.get("residual_ns")), extras)], []


def _benchmark(rec, header):
    scale = _NS_PER.get(rec.get("time_unit", "ns"))
    if scale is None:
        raise ValueError(f"unknown time_unit {rec.get('time_unit')!r}")
    stats = stats_of(None)
    stats.update(n=int(rec.get("iterations") or 0), median=float(rec["real_time"]) * scale)
    return {}, [(rec["name"], "ns", stats, {"label": rec.get("label")})], []


def _halo(rec, header):
    keys = {"variant": rec["variant"], "setup": rec.get("setup", rec["variant"]), "cube": rec.get("cube"),
            "layout": rec.get("layout"), "send": rec.get("send"), "receive_wait": rec.get("receive_wait"),
            "signal": rec.get("signal"), "staging": rec.get("staging", "pinned"),
            "threads_per_block": rec.get("threads_per_block"), "bytes": rec.get("bytes_sent"),
            "status": rec.get("status")}
    extras = {"payload_check": (rec.get("payload") or {}).get("check")}
    rows, chunks = [], []
    for metric in ("iteration_ns", "slowest_rank_iteration_ns"):
        summary = rec.get(metric)
        if summary is None:
            continue
        rows.append((metric, "ns", stats_of(summary), extras))
        chunks.append((metric, "ns", np.asarray(summary.get("samples", []), dtype=np.float64)))
    return keys, rows, chunks


def _halo_model(rec, header):
    keys = {"cube": rec.get("cube"), "layout": rec.get("layout")}
    # keyed by setup label ("notify-stream isend channel pinned 128t"); older files by variant name
    rows = [("lower_bound_ns", "ns", stats_of(None), {"setup": v, "variant": v.split()[0], "lower_bound_ns": _num(b),
                                                      "comm_ns": _num(rec.get("comm_ns"))})
            for v, b in (rec.get("lower_bound_ns") or {}).items()]
    return keys, rows, []


CONVERTERS = {
    ("halo", "halo"): _halo,
    ("halo", "halo_model"): _halo_model,
    ("interference", "point"): _interference,
    ("interference", "host_memory"): _host_memory,
    ("bandwidth", "point"): _bandwidth,
    ("notify", "overhead"): _overhead,
    ("notify", "roundtrip"): _roundtrip,
    ("notify", "mechanism"): _mechanism,
    ("clock", "clock_batch"): _clock_batch,
    ("clock", "clock_fit"): _clock_fit,
    ("micro", "benchmark"): _benchmark,
}


def header_row(rec) -> dict:
    """One row of Results.headers from a header record."""
    device = rec.get("device") or {}
    return {"file": rec["_file"], "segment": rec["_segment"], "probe": rec.get("probe"), "host": rec.get("host"),
            "backend": rec.get("backend"), "device": device.get("name"),
            "git_revision": rec.get("git_revision"), "hetprobe_version": rec.get("hetprobe_version"),
            "start_time_utc": rec.get("start_time_utc"), "resumed": rec.get("resumed"),
            "mpi_ranks": (rec.get("mpi") or {}).get("ranks"),
            "command_line": " ".join(rec["command_line"]) if rec.get("command_line") is not None else None}


def convert(rec, header, record_id: int):
    """(keys, rows, chunks) of one record, or None for a record type this reader does not know."""
    fn = CONVERTERS.get((rec.get("probe"), rec.get("record")))
    if fn is None:
        return None
    keys, rows, chunks = fn(rec, header)
    device = header.get("device") or {}
    common = {"file": rec["_file"], "segment": rec["_segment"], "probe": rec["probe"], "record": rec["record"],
              "host": header.get("host"), "backend": header.get("backend"), "device": device.get("name"),
              "rank": rec.get("rank", 0), "record_id": record_id}
    return {**common, **keys}, rows, chunks


def _column(name, values):
    """One column from a Python list, with the dtype its name calls for (ints with gaps become float)."""
    if name in _INT:
        if any(v is None for v in values):
            return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
        return np.array(values, dtype=np.int64)
    if name in _FLOAT:
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    if name in _BOOL and not any(v is None for v in values):
        return np.array(values, dtype=bool)
    return pd.array(values, dtype=object) if all(v is None for v in values) else values


def frame(columns, rows: list[dict]) -> pd.DataFrame:
    """DataFrame with exactly `columns` from a list of row dicts (missing keys -> None/NaN)."""
    return pd.DataFrame({c: _column(c, [r.get(c) for r in rows]) for c in columns}, columns=columns)


def sample_frame(chunks: list[tuple[dict, np.ndarray]]) -> pd.DataFrame:
    """The samples frame from (constant columns, values) chunks: each constant repeated once per value."""
    lengths = np.array([len(v) for _, v in chunks], dtype=np.int64)
    data = {}
    for c in SAMPLE_COLUMNS[:-2]:
        per_chunk = _column(c, [const.get(c) for const, _ in chunks])
        if isinstance(per_chunk, np.ndarray):
            data[c] = np.repeat(per_chunk, lengths)
            continue
        repeated = np.repeat(np.array(per_chunk, dtype=object), lengths)
        # Text gets pandas' string dtype, as in the summary frame; bools with gaps stay object.
        text = c not in _BOOL and any(v is not None for v in per_chunk)
        data[c] = pd.array(repeated, dtype="str") if text else repeated
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    data["sample"] = np.arange(int(lengths.sum()), dtype=np.int64) - starts
    data["value"] = np.concatenate([v for _, v in chunks]) if chunks else np.array([], dtype=np.float64)
    return pd.DataFrame(data, columns=SAMPLE_COLUMNS)
