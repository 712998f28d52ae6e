"""Every GPU of a run, side by side.

``per_gpu(run)`` is one row per GPU (per rank of the per-GPU steps: notify, clock, bandwidth):
where it sits (PCI address, NUMA node), its PCIe link read while it moved data, and the numbers a
person accepting a node compares across GPUs, each metric with the direction that is worse
(flags.py flags the GPU that is off).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.jsonl import results_files
from ..data.load import load
from ..data.paths import file_kind
from ..data.results import Results, summary_rows
from ..errors import UsageError

PER_GPU_PROBES = ("notify", "clock", "bandwidth")


# The round trip of the table: the paper's orders (plain CPU stores, GPU atomics) through pinned flags.
ROUNDTRIP_SETUP = ("volatile", "relaxed", "pinned")


# Bandwidth's plain rows (pass "plain"): one pass of each kind, nothing else running.
PLAIN_ROWS = {
    "write_gbs": "write",
    "read_gbs": "read",
    "copy_d2h_gbs": "copy-d2h",
    "copy_h2d_gbs": "copy-h2d",
}


@dataclass(frozen=True)
class Metric:
    key: str  # the "metric" of an anomaly
    column: str  # its column in per_gpu(), unit included
    unit: str
    worse: str | None  # "higher" or "lower" is bad; None: shown, never compared
    step: str  # the characterize step that measures it
    label: str


METRICS = (
    Metric("roundtrip_ns", "round trip (ns)", "ns", "higher", "notify", "CPU→GPU→CPU flag round trip"),
    Metric("launch_sync_ns", "launch+sync (ns)", "ns", "higher", "notify", "kernel launch + device synchronise"),
    Metric("write_gbs", "write (GB/s)", "GB/s", "lower", "bandwidth", "write kernel into pinned memory"),
    Metric("read_gbs", "read (GB/s)", "GB/s", "lower", "bandwidth", "read kernel from pinned memory"),
    Metric("copy_d2h_gbs", "copy-d2h (GB/s)", "GB/s", "lower", "bandwidth", "async copy device→host"),
    Metric("copy_h2d_gbs", "copy-h2d (GB/s)", "GB/s", "lower", "bandwidth", "async copy host→device"),
    Metric("clock_drift_ppm", "clock drift (ppm)", "ppm", None, "clock", "GPU clock drift against the host's"),
    Metric("clock_precision_ns", "clock precision (ns)", "ns", "higher", "clock", "clock sync precision"),
)


# The link, read under load: below its maximum is flagged on its own; against a baseline it is a
# metric like the others (a link trained lower than the known-good node's).
LINK_METRICS = (
    Metric("link_speed_gts", "link speed (GT/s)", "GT/s", "lower", "bandwidth", "PCIe link speed"),
    Metric("link_width", "link width (lanes)", "lanes", "lower", "bandwidth", "PCIe link width"),
)


IDENTITY = ["GPU", "device", "ordinal", "PCI address", "NUMA node"]


LINK_COLUMNS = [
    "link speed (GT/s)",
    "link max speed (GT/s)",
    "link width (lanes)",
    "link max width (lanes)",
    "link read",
]


_COLUMN = {m.key: m.column for m in METRICS + LINK_METRICS}


COLUMNS = IDENTITY + LINK_COLUMNS + [m.column for m in METRICS] + ["round trip setup"]


def _results(run) -> Results:
    if isinstance(run, Results):
        return run
    path = Path(run)
    if file_kind(path) is None:
        raise UsageError(f"{path}: no such run directory or results file")
    return load(path, errors="skip")


def _rank_headers(results: Results) -> dict[int, tuple[dict, dict]]:
    """{rank: (its entry of a header's "ranks", that header)} over the per-GPU probes' headers."""
    out = {}
    for r in results.records:
        if r.get("record") != "header" or r.get("probe") not in PER_GPU_PROBES:
            continue
        for entry in r.get("ranks") or []:
            if isinstance(entry, dict) and isinstance(entry.get("rank"), int):
                out.setdefault(entry["rank"], (entry, r))
    return out


def _median(rows: pd.DataFrame) -> float:
    return float(rows.iloc[0]["median"]) if len(rows) else np.nan


def _roundtrip(rows: pd.DataFrame) -> tuple[float, str | None]:
    """The host-timed CPU→GPU→CPU round trip median: the paper's setup, else the first one measured."""
    rows = rows[rows["direction"] == "cpu-gpu-cpu"].dropna(subset=["median"])
    if not len(rows):
        return np.nan, None
    cpu, gpu, placement = ROUNDTRIP_SETUP
    paper = rows[
        (rows["cpu_order"] == cpu) & (rows["gpu_order"] == gpu) & (rows["placement"].fillna(placement) == placement)
    ]
    row = (paper if len(paper) else rows).iloc[0]
    where = row["placement"] if isinstance(row["placement"], str) else "pinned"
    return float(row["median"]), f"{row['cpu_order']}:{row['gpu_order']} {where} flags"


def _link(records: list[dict]) -> dict:
    """The link columns of one GPU from its link record (bandwidth reads it while the GPU writes)."""
    if not records:
        return {c: np.nan for c in LINK_COLUMNS[:-1]} | {"link read": None, "_link": None}
    r = records[-1]
    if r.get("status") != "ok":
        why = r.get("skipped_reason") or r.get("status") or "not read"
        return {c: np.nan for c in LINK_COLUMNS[:-1]} | {"link read": f"not read: {why}", "_link": r}
    values = {
        "link speed (GT/s)": r.get("current_speed_gts"),
        "link max speed (GT/s)": r.get("max_speed_gts"),
        "link width (lanes)": r.get("current_width"),
        "link max width (lanes)": r.get("max_width"),
    }
    out = {
        k: float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else np.nan for k, v in values.items()
    }
    out["link read"] = f"while {r['read_while']}" if r.get("read_while") else "read"
    out["_link"] = r
    return out


def _idle_link(topology: dict | None, pci: str | None) -> str:
    """Where no link record was written: hwloc's link bandwidth of this PCI address (read at idle)."""
    for gpu in (topology or {}).get("gpus") or []:
        if pci and str(gpu.get("pci_bus_id", "")).lower() == pci.lower() and gpu.get("link_gbps"):
            return f"idle read (hwloc): {gpu['link_gbps']:.4g} GB/s"
    return "unknown (no link record)"


def _ranks(results: Results) -> list[int]:
    found = set(_rank_headers(results))
    for probe in PER_GPU_PROBES:
        found |= set(results.summary.loc[results.summary["probe"] == probe, "rank"].dropna().astype(int))
    found |= {r.get("rank", 0) for r in results.records if r.get("record") == "link"}
    return sorted(found)


def _measured(results: Results) -> dict[str, pd.DataFrame]:
    """The summary rows per_gpu reads: round trips, mechanisms, clock fits, bandwidth rows."""
    notify, clock, bandwidth = (results.probe(p) for p in PER_GPU_PROBES)
    return {
        "roundtrips": summary_rows(notify, "roundtrip", "roundtrip_ns"),
        "mechanisms": summary_rows(notify, "mechanism", "roundtrip_ns"),
        "fits": summary_rows(clock, "clock_fit", "residual_ns"),
        "bandwidth": summary_rows(bandwidth, "point", "gbs"),
    }


def _numbers(mine: dict[str, pd.DataFrame]) -> dict:
    """One GPU's numbers from its rows of _measured (NaN where it has none)."""
    row = {}
    row["round trip (ns)"], row["round trip setup"] = _roundtrip(mine["roundtrips"])
    sync = mine["mechanisms"]
    row["launch+sync (ns)"] = _median(sync[sync["mechanism"] == "launch+device-sync"].dropna(subset=["median"]))
    bandwidth = mine["bandwidth"]
    for key, kind in PLAIN_ROWS.items():
        row[_COLUMN[key]] = _median(bandwidth[(bandwidth["pass"] == "plain") & (bandwidth["kind"] == kind)])
    fits = mine["fits"]
    row["clock drift (ppm)"] = float(fits.iloc[0]["drift_ppm"]) if len(fits) else np.nan
    row["clock precision (ns)"] = float(fits.iloc[0]["precision_ns"]) if len(fits) else np.nan
    return row


def measured_spread(results: Results) -> dict[int, dict[str, tuple[float, str]]]:
    """{rank: {metric key: (spread, what it is of)}}: the relative spread (max - min) / median of the values
    a launch took its number from, where it has 3 or more: bandwidth's repetitions of each plain pass,
    and the clock's fitted batches, each batch's precision the median half-interval of its kept samples
    (as precision_ns is of all of them). They vary less than launches do (one launch's clock batches
    within 1.2% where launches differ by 6.6%, LAUNCH_SPREAD), so they only ever widen that."""
    out: dict[int, dict[str, tuple[float, str]]] = {}

    def add(rank, key, values, what):
        values = [float(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
        middle = float(np.median(values)) if values else math.nan
        if len(values) >= 3 and middle > 0:
            out.setdefault(int(rank), {})[key] = ((max(values) - min(values)) / middle, f"{len(values)} {what}")

    kinds = {kind: key for key, kind in PLAIN_ROWS.items()}
    for r in results.records:
        if r.get("probe") == "bandwidth" and r.get("record") == "point" and r.get("pass") == "plain":
            if r.get("kind") in kinds:
                add(r.get("rank", 0), kinds[r["kind"]], r.get("gbs") or [], "repetitions")
    samples = results.clock_samples()
    kept = samples[(samples["role"] == "fit") & samples["used"].astype(bool)]
    for rank, rows in kept.groupby("rank"):
        add(rank, "clock_precision_ns", rows.groupby("batch")["half_interval_ns"].median(), "clock batches")
    return out


def per_gpu(run) -> pd.DataFrame:
    """One row per GPU of a run (a run directory, a results file or a Results): columns ``COLUMNS``,
    every number with its unit in its name. "GPU" is the rank that measured it (its device:
    "ordinal" on its node). round trip: the host-timed CPU→GPU→CPU flag round trip median, the
    setup named in "round trip setup" (volatile:relaxed pinned flags when measured); launch+sync: the
    launch+device-sync mechanism's round trip median; write/read/copy: bandwidth's plain passes'
    medians; clock drift and precision: the clock fit. The link: current and maximum from the link
    record bandwidth writes while the GPU moves data ("link read" says how it was read, or why not).
    A GPU's number its run did not measure is NaN. Empty when the run has no per-GPU probe.
    ``attrs["measured_spread"]``: measured_spread(run), which a baseline check reads."""
    results = _results(run)
    headers = _rank_headers(results)
    links: dict[int, list] = {}
    for r in results.records:
        if r.get("record") == "link" and r.get("probe") == "bandwidth":
            links.setdefault(r.get("rank", 0), []).append(r)
    frames = _measured(results)
    rows = []
    for rank in _ranks(results):
        entry, _ = headers.get(rank, ({}, {}))
        device = entry.get("device") or {}
        placement = entry.get("placement") or {}
        link = _link(links.get(rank, []))
        pci = device.get("pci_bus_id") or placement.get("pci_bus_id") or (link["_link"] or {}).get("pci_bus_id")
        numa = placement.get("gpu_numa_nodes")
        row = {
            "GPU": rank,
            "device": device.get("name"),
            "ordinal": device.get("ordinal", placement.get("device_ordinal")),
            "PCI address": pci or None,
            "NUMA node": ",".join(map(str, numa)) if numa else None,
            **{k: v for k, v in link.items() if not k.startswith("_")},
        }
        if row["link read"] is None:
            row["link read"] = _idle_link(results.topology, pci)
        row.update(_numbers({name: f[f["rank"] == rank] for name, f in frames.items()}))
        rows.append(row)
    table = pd.DataFrame(rows, columns=COLUMNS)
    numeric = LINK_COLUMNS[:-1] + [m.column for m in METRICS]
    table[numeric] = table[numeric].astype(float)
    table.attrs["measured_spread"] = measured_spread(results)
    return table


def model(name: str) -> str:
    """A device's name less the mark of a host device slowed on purpose (HETPROBE_HOST_SLOW, a test
    option): the same model, made slower, is what a baseline check is there to catch."""
    return re.sub(r" \(slowed x[^)]* by HETPROBE_HOST_SLOW\)$", "", name)


def identity(results: Results, table: pd.DataFrame) -> dict:
    """What must match between a run and its baseline: the GPU count, the backend, each GPU's name;
    and, between baseline runs, the hosts (their headers' and ranks' host names)."""
    headers = [r for r in results.records if r.get("record") == "header" and r.get("probe") in PER_GPU_PROBES]
    backends = {r.get("backend") for r in headers} - {None}
    hosts = {r.get("host") for r in headers} | {e.get("host") for r in headers for e in r.get("ranks") or []}
    names = {int(g): model(d) for g, d in zip(table["GPU"], table["device"]) if isinstance(d, str)}
    return {
        "gpus": len(table),
        "backend": ",".join(sorted(backends)) or None,
        "names": names,
        "hosts": sorted(h for h in hosts if isinstance(h, str) and h),
    }


def read_run(path, what: str) -> tuple[Results, pd.DataFrame, dict]:
    """(results, per_gpu table, identity) of a run directory; UsageError, naming `what` (an option),
    for a missing path, a path that is not a run directory, or a run without per-GPU data."""
    path = Path(path)
    kind = file_kind(path)
    if kind is None:
        raise UsageError(f"{what} {path}: no such run directory")
    if kind != "a directory":
        raise UsageError(f"{what} {path} is {kind}: give a run directory (hetprobe characterize writes one)")
    if not results_files(path):
        raise UsageError(f"{what} {path} is not a run directory: it holds no results (*.jsonl, *.jsonl.gz)")
    results = load(path, errors="skip")
    table = per_gpu(results)
    if not len(table):
        raise UsageError(
            f"{what} {path} has no per-GPU data: no notify, clock or bandwidth records (run hetprobe characterize "
            "without --skip on them)"
        )
    return results, table, identity(results, table)


def table_records(table: pd.DataFrame) -> list[dict]:
    """The table's rows as JSON-ready dicts (NaN as None), for characterize.json."""
    return [
        {
            k: (None if isinstance(v, float) and math.isnan(v) else v.item() if hasattr(v, "item") else v)
            for k, v in row.items()
        }
        for row in table.to_dict("records")
    ]
