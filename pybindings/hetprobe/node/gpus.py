"""Every GPU of a run, side by side.

``per_gpu(run)`` is one row per GPU (per rank of the per-GPU steps: gpus, notify, clock, bandwidth):
where it sits (PCI address, NUMA node), its PCIe link read while it moved data, and the numbers a
person accepting a node compares across GPUs, each metric with the direction that is worse. The
compared numbers are the gpus rounds' medians, as the node verdict (verdict.py, computed in C++) has
them; a run from before the gpus step shows notify's and bandwidth's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import _rules
from ..data.jsonl import is_results_file
from ..data.load import load
from ..data.paths import file_kind
from ..data.results import Results, summary_rows
from ..errors import UsageError

PER_GPU_PROBES = ("gpus", "notify", "clock", "bandwidth")


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
    key: str  # the "metric" of a flag
    column: str  # its column in per_gpu(), unit included
    unit: str
    worse: str | None  # "higher" or "lower" is bad; None: shown, never compared
    label: str


# The compared metrics, as C++ defines them (bench/gpus/gpu_metrics.hpp), columns included.
COMPARED = tuple(Metric(m["key"], m["column"], m["unit"], m["worse"], m["label"]) for m in _rules.gpu_metrics)
# Shown, never compared: each GPU's timer has its own oscillator (a few ppm either way on healthy
# GPUs), and the sync precision is half the flag round trip, which the verdict compares.
METRICS = COMPARED + (
    Metric("clock_drift_ppm", "clock drift (ppm)", "ppm", None, "GPU clock drift against the host's"),
    Metric("clock_precision_ns", "clock precision (ns)", "ns", None, "clock sync precision"),
)


# The link, read under load: below its maximum is flagged (by C++); shown in the link column.
LINK_METRICS = (
    Metric("link_speed_gts", "link speed (GT/s)", "GT/s", "lower", "PCIe link speed"),
    Metric("link_width", "link width (lanes)", "lanes", "lower", "PCIe link width"),
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
            return f"idle read (hwloc): {_rules.number_text(float(gpu['link_gbps']))} GB/s"
    return "unknown (no link record)"


def _ranks(results: Results) -> list[int]:
    found = set(_rank_headers(results))
    for probe in PER_GPU_PROBES:
        found |= set(results.summary.loc[results.summary["probe"] == probe, "rank"].dropna().astype(int))
    found |= {r.get("rank", 0) for r in results.records if r.get("record") == "link"}
    return sorted(found)


def _measured(results: Results) -> dict[str, pd.DataFrame]:
    """The summary rows per_gpu reads: round trips, mechanisms, clock fits, bandwidth rows."""
    notify, clock, bandwidth = (results.probe(p) for p in ("notify", "clock", "bandwidth"))
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


def per_gpu(run, verdict: dict | None = None) -> pd.DataFrame:
    """One row per GPU of a run (a run directory, a results file or a Results): columns ``COLUMNS``,
    every number with its unit in its name. "GPU" is the rank that measured it (its device:
    "ordinal" on its node). round trip: the host-timed CPU→GPU→CPU flag round trip median, the
    setup named in "round trip setup" (volatile:relaxed pinned flags when measured); launch+sync: the
    launch+device-sync mechanism's round trip median; write/read/copy: bandwidth's plain passes'
    medians; clock drift and precision: the clock fit. The link: current and maximum from the link
    record bandwidth writes while the GPU moves data ("link read" says how it was read, or why not).
    A GPU's number its run did not measure is NaN. Empty when the run has no per-GPU probe. Where the
    run has gpus rounds, the compared numbers are their medians over every launch (the node verdict's,
    from C++), and ``attrs["verdict"]`` is that verdict: ``verdict`` where the caller has made it
    (characterize, at its --tolerance), else C++'s at the default tolerance."""
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
    verdict = verdict if verdict is not None else _verdict(results)
    for entry in (verdict or {}).get("per_gpu", []):
        for m in COMPARED:
            value = ((entry["metrics"].get(m.key) or {}).get("value") or {}).get("median")
            table.loc[table["GPU"] == entry["gpu"], m.column] = np.nan if value is None else float(value)
    table.attrs["verdict"] = verdict
    return table


def _verdict(results: Results) -> dict | None:
    """The node verdict (C++) of the results' gpus and bandwidth files (the rounds, the links); None
    where they hold neither."""
    if not any(r.get("record") in ("gpu_round", "link") for r in results.records):
        return None
    files = {r["_file"] for r in results.records if r.get("probe") in ("gpus", "bandwidth")}
    return _rules.node_verdict(sorted(f for f in files if is_results_file(f)), _rules.default_tolerance)


def model(name: str) -> str:
    """A device's name less the mark of a host device slowed on purpose (HETPROBE_HOST_SLOW, a test
    option): the same model, made slower, is what a baseline check is there to catch (C++'s rule)."""
    return _rules.device_model(name)


def table_records(table: pd.DataFrame) -> list[dict]:
    """The table's rows as JSON-ready dicts (NaN as None), for characterize.json; each with "numbers":
    every number the row has, by its metric's key (the records' field), as {value, unit, worse
    ("higher", "lower", or None: shown, never compared), ci95 (the gpus rounds' 95% interval, from the
    node verdict in ``attrs["verdict"]``, else None)}: what a dashboard or ReFrame reads without
    knowing the table's columns."""
    verdict = table.attrs.get("verdict") or {}
    intervals = {
        (entry["gpu"], key): (numbers.get("value") or {}).get("ci95")
        for entry in verdict.get("per_gpu", [])
        for key, numbers in entry["metrics"].items()
    }
    rows = []
    for row in table.to_dict("records"):
        plain = {
            k: (None if isinstance(v, float) and math.isnan(v) else v.item() if hasattr(v, "item") else v)
            for k, v in row.items()
        }
        plain["numbers"] = {
            m.key: {
                "value": plain[m.column],
                "unit": m.unit,
                "worse": m.worse,
                "ci95": intervals.get((plain["GPU"], m.key)),
            }
            for m in METRICS + LINK_METRICS
            if isinstance(plain.get(m.column), (int, float))
        }
        rows.append(plain)
    return rows
