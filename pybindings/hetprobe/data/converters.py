"""One converter per record type (docs/results-schema.md): a record's key columns, its summary rows and
its raw sample arrays, which frames.py lays out as the `summary` and `samples` DataFrames of
hetprobe.load. Fields are read with data.fields' checked access, so a malformed record names its
field."""

from __future__ import annotations

import numpy as np

from .fields import Malformed, json_type, need, number, numbers, opt, strings
from .schema_rows import schema_converter, stats_of

_SETUP = ["cpu_order", "gpu_order", "placement", "spacing", "spacing_bytes", "host_memory"]


_NS_PER = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def ticks_ns(rec, path: str, divide: float = 1.0) -> np.ndarray:
    """Raw ticks object at `path` -> ns, in the C++ order of operations: double(t) * ns_per_tick / divide."""
    return numbers(rec, f"{path}.values", required=True) * float(need(rec, f"{path}.ns_per_tick", "number")) / divide


def _setup(rec) -> dict:
    setup = opt(rec, "setup", "object", {})
    return {k: setup[k] for k in _SETUP if k in setup}


# Each converter returns (keys, rows, chunks): rows are (metric, unit, stats, extras) and chunks
# are (metric, unit, values) of raw samples.


def paper_config(config: dict) -> bool:
    """Whether an interference header's config ran the paper's writer (files from before the loads did)."""
    return bool(config.get("paper", "loads" not in config))


def load_key(rec) -> tuple[str, int, str | None]:
    """(load_kind, load_gpus, load_rate) of a point; files from before the load kinds: the paper's writer."""
    if "load_kind" in rec:
        return need(rec, "load_kind", "string"), need(rec, "load_gpus", "integer"), opt(rec, "load_rate", "string")
    return ("none", 0, None) if need(rec, "layout", "string") == "SSB" else ("write", 1, "1")


def _interference(rec, header):
    keys = {
        k: need(rec, k, t)
        for k, t in (
            ("size_bytes", "integer"),
            ("layout", "string"),
            ("access", "string"),
            ("send_mode", "string"),
            ("writer_side", "string"),
        )
    }
    keys["load_kind"], keys["load_gpus"], keys["load_rate"] = load_key(rec)
    keys["status"] = opt(rec, "status", "string")
    sender = opt(rec, "writer.sender", "object")
    torn = opt(rec, "payload.torn_fraction", "object")
    load = opt(rec, "load", "object", {})
    old_traffic = number(sender, "bandwidth_during_send_gbs") if sender else np.nan
    side_name = "load.sender" if opt(rec, "load.sender", "object") else "load.receiver"
    side = opt(rec, side_name, "object", {})
    devices = opt(rec, f"{side_name}.devices", "array") or [{}]
    for i, device in enumerate(devices):  # Results.load_gpus reads every one
        if not isinstance(device, dict):
            raise Malformed(f"{side_name}.devices[{i}]", f"expected an object, got {json_type(device)}")
    first = devices[0]
    extras = {
        "ratio_to_ssb_median": number(rec, "ratio_to_ssb_median"),
        # The rounds (absent before them): the SSB median of the same rounds, and what the ratio's 95%
        # interval claims (ratio_to_ssb_ci95 itself is read by Results.interference_ratios).
        "rounds": opt(rec, "rounds", "integer"),
        "reps": opt(rec, "reps", "integer"),
        "ssb_send_time_ns_median": number(rec, "ssb_send_time_ns_median"),
        "effect": opt(rec, "effect", "string"),
        # With a --gap: cold ÷ warm sends of the same visits (absent before 2026-11-27).
        "cold_over_warm_median": number(rec, "cold_over_warm_median"),
        "payload_check": opt(rec, "payload.check", "string"),
        "torn_fraction_median": number(torn, "median") if torn else np.nan,
        "bandwidth_during_send_gbs": old_traffic,
        "traffic_during_send_gbs": number(load, "traffic_during_send_gbs")
        if "traffic_during_send_gbs" in load
        else old_traffic,
        "rate_fraction": number(load, "rate_fraction"),
        "target_gbs": number(first, "target_gbs"),
        "full_rate_gbs": number(first, "full_rate_gbs"),
        "payload_writer": opt(rec, "payload_writer", "string"),
        # How MPI carried the message (null in files from before schema version 3: None, NaN).
        "mpi_sender_host": opt(rec, "mpi_path.sender_host", "string"),
        "mpi_receiver_host": opt(rec, "mpi_path.receiver_host", "string"),
        "mpi_across_hosts": opt(rec, "mpi_path.across_hosts", "boolean"),
        "mpi_carrier": opt(rec, "mpi_path.carrier", "string"),
        "mpi_eager_limit_bytes": number(rec, "mpi_path.eager_limit_bytes"),
        "mpi_at_or_above_eager_limit": opt(rec, "mpi_path.at_or_above_eager_limit", "boolean"),
        "mpi_link_gbs": number(rec, "mpi_path.link_gbs"),
    }
    for name in ("ratio_to_ssb_ci95", "cold_over_warm_ci95"):  # checked here, once: interference_ratios reads them
        ci = numbers(rec, name)
        if len(ci) not in (0, 2):
            raise Malformed(name, f"expected [low, high], got {len(ci)} numbers")
    rows = [("send_time_ns", "ns", stats_of(need(rec, "send_time_ns", "object"), "send_time_ns"), extras)]
    if isinstance(rec.get("harness_empty_region_ns"), dict):  # absent before revision b8686a9
        rows.append(
            (
                "harness_empty_region_ns",
                "ns",
                stats_of(rec["harness_empty_region_ns"], "harness_empty_region_ns"),
                extras,
            )
        )
    chunks = [("send_time_ns", "ns", numbers(rec, "send_time_ns.samples"))]
    if opt(rec, "writer_timeline", "object"):
        for name in ("start", "ready", "end"):
            chunks.append((f"writer_{name}_ns", "ns", numbers(rec, f"writer_timeline.{name}_ns", required=True)))
    if sender and sender.get("passes_during_send") is not None:
        chunks.append(("passes_during_send", "1", numbers(rec, "writer.sender.passes_during_send")))
    if side.get("bytes_during_send") is not None:  # every load GPU together, per send; NaN where unknown
        chunks.append(("load_bytes_during_send", "B", numbers(rec, f"{side_name}.bytes_during_send", nulls=True)))
    return keys, rows, chunks


def _overhead(rec, header):
    summary = opt(rec, "ns_per_op", "object")
    ops = need(rec, "ops_per_sample", "integer")
    keys = {
        "side": need(rec, "side", "string"),
        "contended": need(rec, "contended", "boolean"),
        **_setup(rec),
        "ops_per_sample": ops,
        "unresolved": bool(opt(rec, "ns_per_op.unresolved", "boolean", False)),
    }
    extras = {"resolution_ns": number(rec, "ns_per_op.resolution_ns")}
    # Each raw value is one sample's total over ops_per_sample read+write pairs.
    chunks = [("ns_per_op", "ns", ticks_ns(rec, "samples", ops))] if rec.get("samples") else []
    return keys, [("ns_per_op", "ns", stats_of(summary, "ns_per_op"), extras)], chunks


def _handover(rec, header):
    keys = {
        "side": need(rec, "side", "string"),
        "timed_by": need(rec, "timed_by", "string"),
        "timer": need(rec, "timer", "string"),
        **_setup(rec),
        "below_timer_tick": need(rec, "below_timer_tick", "boolean"),
    }
    extras = {
        "pair_beyond_timer_ns": float(need(rec, "pair_beyond_timer_ns", "number")),
        "timer_tick_ns": float(need(rec, "timer_tick_ns", "number")),
        "missed_writes": need(rec, "missed_writes", "integer"),
    }
    rows = [
        ("pair_ns", "ns", stats_of(need(rec, "pair_ns", "object"), "pair_ns"), extras),
        ("timer_cost_ns", "ns", stats_of(need(rec, "timer_cost_ns", "object"), "timer_cost_ns"), {}),
    ]
    # bench/notify/notify_handover.cpp stores one pair per sample.
    return keys, rows, [("pair_ns", "ns", ticks_ns(rec, "samples"))]


def _roundtrip(rec, header):
    keys = {
        "direction": need(rec, "direction", "string"),
        "timed_by": opt(rec, "timed_by", "string"),
        "exchanges": opt(rec, "exchanges", "integer"),
        **_setup(rec),
        "unresolved": bool(opt(rec, "roundtrip_ns.unresolved", "boolean", False)),
    }
    rows = [
        (m, "ns", stats_of(rec.get(m), m), {"resolution_ns": number(rec, f"{m}.resolution_ns")})
        for m in ("roundtrip_ns", "half_roundtrip_ns")
    ]
    # bench/notify/notify.cpp stores one full round trip per exchange; the half is derived from it.
    chunks = [("roundtrip_ns", "ns", ticks_ns(rec, "samples"))] if rec.get("samples") else []
    return keys, rows, chunks


def _mechanism(rec, header):
    keys = {k: opt(rec, k, "string") for k in ("mechanism", "go", "done", "status", "skipped_reason")}
    keys.update(_setup(rec))
    rows = [("roundtrip_ns", "ns", stats_of(rec.get("roundtrip_ns"), "roundtrip_ns"), {})]  # NaN stats when skipped
    if isinstance(rec.get("go_call_ns"), dict):
        rows.append(("go_call_ns", "ns", stats_of(rec["go_call_ns"], "go_call_ns"), {}))
    chunks = [("roundtrip_ns", "ns", ticks_ns(rec, "samples"))] if rec.get("samples") else []
    return keys, rows, chunks


def clock_intervals(rec) -> np.ndarray:
    """device_end - device_start of a clock_batch record in ticks, differenced as uint64 (exact)."""
    start = numbers(rec, "device_start.values", required=True, dtype=np.uint64)
    end = numbers(rec, "device_end.values", required=True, dtype=np.uint64)
    if len(start) != len(end):
        raise Malformed("device_end.values", f"{len(end)} values for {len(start)} in device_start.values")
    return (end - start).view(np.int64)


def _clock_batch(rec, header):
    half = clock_intervals(rec).astype(np.float64) * float(need(rec, "device_start.ns_per_tick", "number")) / 2
    # Results.clock_samples reads these too: checked here, once, at load.
    host = numbers(rec, "host_stamp.values", required=True)
    need(rec, "host_stamp.ns_per_tick", "number")
    if len(host) != len(half):
        raise Malformed("host_stamp.values", f"{len(host)} values for {len(half)} ping-pongs")
    keys = {
        "batch": need(rec, "batch", "integer"),
        "role": need(rec, "role", "string"),
        "at_s": need(rec, "at_s", "number"),
    }
    return (
        keys,
        [("half_interval_ns", "ns", stats_of(rec.get("half_interval_ns"), "half_interval_ns"), {})],
        [("half_interval_ns", "ns", half)],
    )


def _benchmark(rec, header):
    scale = _NS_PER.get(opt(rec, "time_unit", "string", "ns"))
    if scale is None:
        raise Malformed("time_unit", f"unknown unit {rec.get('time_unit')!r} (ns, us, ms, s)")
    stats = stats_of(None)
    stats.update(n=int(opt(rec, "iterations", "integer", 0)), median=float(need(rec, "real_time", "number")) * scale)
    return {}, [(need(rec, "name", "string"), "ns", stats, {"label": opt(rec, "label", "string")})], []


def _halo_model(rec, header):
    keys = {"cube": opt(rec, "cube", "integer"), "layout": opt(rec, "layout", "string")}
    comm = number(rec, "comm_ns")
    # keyed by setup label ("notify-stream isend channel pinned 128t"); older files by variant name
    bounds = opt(rec, "lower_bound_ns", "object", {})
    rows = [
        (
            "lower_bound_ns",
            "ns",
            stats_of(None),
            {
                "setup": v,
                "variant": v.split()[0] if v.split() else v,
                "lower_bound_ns": number(bounds, v),
                "comm_ns": comm,
            },
        )
        for v in bounds
    ]
    return keys, rows, []


CONVERTERS = {
    ("halo", "halo_model"): _halo_model,
    ("interference", "point"): _interference,
    ("notify", "handover"): _handover,
    ("notify", "overhead"): _overhead,
    ("notify", "roundtrip"): _roundtrip,
    ("notify", "mechanism"): _mechanism,
    ("clock", "clock_batch"): _clock_batch,
    ("micro", "benchmark"): _benchmark,
}


def warnings_text(rec) -> str | None:
    """A record's "warnings" (measurement conditions, spread) joined by "; "; "" when it has none,
    None when the record predates them (not checked)."""
    found = strings(rec, "warnings")
    return None if found is None else "; ".join(found)


def header_row(rec) -> dict:
    """One row of Results.headers from a header record (its fields checked: see data.fields)."""
    for path in ("device", "mpi", "config", "topology", "conditions"):
        opt(rec, path, "object")
    opt(rec, "ranks", "array")
    command = strings(rec, "command_line")
    return {
        "file": rec["_file"],
        "segment": rec["_segment"],
        "probe": opt(rec, "probe", "string"),
        "host": opt(rec, "host", "string"),
        "backend": opt(rec, "backend", "string"),
        "device": opt(rec, "device.name", "string"),
        "git_revision": opt(rec, "git_revision", "string"),
        "hetprobe_version": opt(rec, "hetprobe_version", "string"),
        "start_time_utc": opt(rec, "start_time_utc", "string"),
        "resumed": opt(rec, "resumed", "boolean"),
        "mpi_ranks": opt(rec, "mpi.ranks", "integer"),
        "mpi_single_copy": opt(rec, "mpi.transport.single_copy", "string"),
        "command_line": " ".join(command) if command is not None else None,
        "warnings": warnings_text(rec),
    }


def convert(rec, header, record_id: int):
    """(keys, rows, chunks) of one record, or None for a record type with no summary rows (read elsewhere, or
    one this reader does not know: record_types.py). A record type without a converter here gets the one its
    schema entry makes (schema_rows.py)."""
    key = (rec.get("probe"), rec.get("record"))
    fn = CONVERTERS.get(key) or schema_converter(key)
    if fn is None:
        return None
    keys, rows, chunks = fn(rec, header)
    device = header.get("device") or {}
    common = {
        "file": rec["_file"],
        "segment": rec["_segment"],
        "probe": rec["probe"],
        "record": rec["record"],
        "host": header.get("host"),
        "backend": header.get("backend"),
        "device": device.get("name"),
        "rank": opt(rec, "rank", "integer", 0),
        "record_id": record_id,
        "warnings": warnings_text(rec),
    }
    return {**common, **keys}, rows, chunks
