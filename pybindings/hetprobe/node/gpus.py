"""Every GPU of a run, side by side, and the GPU that is off.

``per_gpu(run)`` is one row per GPU (per rank of the per-GPU steps: notify, clock, bandwidth):
where it sits (PCI address, NUMA node), its PCIe link read while it moved data, and the numbers a
person accepting a node compares across GPUs. ``node_anomalies`` flags a GPU that is worse than the
node's others by more than a tolerance, or whose link runs below its maximum; ``baseline_anomalies``
compares each GPU with the same GPU (by rank) of one known-good run, or of several runs of one node.

Direction: each compared metric is bad one way (times up, GB/s down); a GPU is flagged only when it
is worse than its reference by more than the tolerance, never for being better. The reference is
the node's median of that metric over its GPUs; on a node of two GPUs the median is their mean and
both would sit the same distance from it, so there the worse GPU is compared with the better one.
Clock drift is shown, never compared: each GPU's timer has its own oscillator, a few ppm either
way on healthy GPUs, and a relative tolerance on a value near zero means nothing.

Against a baseline the numbers come from other launches, which differ by more than GPUs of one launch
do: against several baseline runs a number is flagged when it is worse than the worst of theirs (the
end of their range) by more than the tolerance; against one, by more than the tolerance plus the
metric's launch-to-launch spread (LAUNCH_SPREAD, or the spread the baseline measured itself when that
is larger: measured_spread).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.load import load
from ..data.paths import file_kind
from ..data.results import Results, summary_rows
from ..errors import UsageError

PER_GPU_PROBES = ("notify", "clock", "bandwidth")
DEFAULT_TOLERANCE = 0.10
# The round trip of the table: the paper's orders (plain CPU stores, GPU atomics) through pinned flags.
ROUNDTRIP_SETUP = ("volatile", "relaxed", "pinned")
# Bandwidth's plain rows (pass "plain"): one pass of each kind, nothing else running.
PLAIN_ROWS = {
    "write_gbs": "write",
    "read_gbs": "read",
    "copy_d2h_gbs": "copy-d2h",
    "copy_h2d_gbs": "copy-h2d",
}
# The expected run-to-run variation of each compared metric: how much worse (a fraction of the
# number) a healthy GPU's number may come out in one launch of its probe than in another on the same
# node. Against one baseline run it widens the tolerance (the baseline may have been a lucky launch);
# several baselines show their spread themselves. Each value is the largest change seen between two
# healthy launches of one node in the committed data (notebooks/data) or an issue, rounded up:
LAUNCH_SPREAD = {
    # h200x2-nodecheck GPU 1: 2202 ns (run-b) -> 2498 ns (run-a), +13%; h100-refactor-compare's 6 launches
    # of volatile:volatile: 2333-2516 ns, +8% (its tables: docs/measurements/h100-refactor-compare.md)
    "roundtrip_ns": 0.15,
    # h200x2-nodecheck GPU 1: 7935 ns (run-b) -> 8282 ns (run-a), +4.4%; the H200 VMs of h200x2-characterize
    # and h200-characterize: 7758 -> 8570 ns, +10%; one H100, 16 characterize runs on 2026-11-25: 8.67 to
    # 11.6 us, +34% (back to back 8.86 -> 10.7 us, +20%, failed a rerun's check at 10%)
    "launch_sync_ns": 0.25,
    # h100-refactor-compare's 6 launches: 52.32 -> 47.45 GB/s (old-2), -9.3%; h200x2-nodecheck a/b: -0.3%
    "write_gbs": 0.10,
    # h100-refactor-compare: 50.68-50.97 GB/s, -0.6%; h200x2-nodecheck GPU 1: 51.29 -> 51.10 GB/s, -0.4%
    "read_gbs": 0.02,
    # h100-refactor-compare: copy-h2d 55.24 -> 45.19 GB/s (old-1, its 5 repetitions within 0.3%), -18%;
    # copy-d2h 55.18 -> 50.65 GB/s, -8%
    "copy_d2h_gbs": 0.20,
    "copy_h2d_gbs": 0.20,
    # issue 24, one H100: 864 -> 960 ns, +11% (3 ticks of its 32 ns timer); h200x2-nodecheck GPU 0:
    # 1216 ns (run-b) -> 1296 ns (run-a), +6.6%, while one launch's batches stayed within 1.2%
    "clock_precision_ns": 0.15,
    # a link trains to the same speed and width at every launch (h200x2-nodecheck: 32 GT/s x16 in all three)
    "link_speed_gts": 0.0,
    "link_width": 0.0,
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


def parse_tolerance(text) -> float:
    """A tolerance as a fraction: "10%" or 0.1 (or "0.1") -> 0.1. UsageError for anything else: a
    bare number of 1 or more is refused, since "10" could mean 10% or ten times."""
    raw = str(text).strip()
    percent = raw.endswith("%")
    try:
        value = float(raw[:-1].strip() if percent else raw)
    except ValueError:
        value = math.nan
    if percent:
        value /= 100
    if not math.isfinite(value) or not 0 < value < 1:
        raise UsageError(
            f"--tolerance {text!r}: expected a fraction above 0 and below 1 (0.1) or a percent above 0 and "
            "below 100 (10%)"
        )
    return value


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
    if not any(path.glob("*.jsonl")):
        raise UsageError(f"{what} {path} is not a run directory: it holds no results (*.jsonl)")
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


def check_comparable(run: dict, baseline: dict, where: str = "this run") -> None:
    """UsageError (exit 2) when a run and its baseline measured different things: another GPU count,
    backend or device name. `run`/`baseline`: {"gpus": n, "backend": b, "names": {rank: name}}."""
    if run["gpus"] != baseline["gpus"]:
        raise UsageError(
            f"the baseline has {baseline['gpus']} GPU(s) and {where} {run['gpus']}: compare nodes of the same GPUs"
        )
    if run["backend"] and baseline["backend"] and run["backend"] != baseline["backend"]:
        raise UsageError(f"the baseline ran on backend {baseline['backend']} and {where} on {run['backend']}")
    for rank, name in sorted(run["names"].items()):
        other = baseline["names"].get(rank)
        if name and other and name != other:
            raise UsageError(f"GPU {rank} is {name!r} in {where} and {other!r} in the baseline")


def check_one_node(runs: list[tuple[str, dict]]) -> None:
    """UsageError (exit 2) when baseline runs are not of one node: other host names, GPU count,
    backend or GPU model (a range over two nodes says nothing about either). `runs`: [(path, identity)]."""
    (first, a), others = runs[0], runs[1:]
    for path, b in others:
        why = None
        if a["hosts"] and b["hosts"] and a["hosts"] != b["hosts"]:
            why = f"host {', '.join(a['hosts'])} and host {', '.join(b['hosts'])}"
        elif a["gpus"] != b["gpus"]:
            why = f"{a['gpus']} GPU(s) and {b['gpus']}"
        elif a["backend"] and b["backend"] and a["backend"] != b["backend"]:
            why = f"backend {a['backend']} and {b['backend']}"
        else:
            for rank, name in sorted(a["names"].items()):
                other = b["names"].get(rank)
                if name and other and name != other:
                    why = f"GPU {rank} is {name!r} and {other!r}"
                    break
        if why:
            raise UsageError(
                f"--baseline {first} and {path} are not runs of one node ({why}): give baseline runs of the same node"
            )


def _anomaly(row, metric: Metric, value, reference, kind: str, deviation, tolerance: float, why: str) -> dict:
    return {
        "gpu": int(row["GPU"]),
        "pci_bus_id": row["PCI address"] if isinstance(row["PCI address"], str) else None,
        "metric": metric.key,
        "value": None if value is None or math.isnan(value) else float(value),
        "unit": metric.unit,
        "reference": None if reference is None or math.isnan(reference) else float(reference),
        "reference_kind": kind,
        "deviation": None if deviation is None else float(deviation),
        "tolerance": float(tolerance),
        "why": why,
    }


def _worse(metric: Metric, deviation: float, tolerance: float) -> bool:
    return deviation > tolerance if metric.worse == "higher" else deviation < -tolerance


def _by(deviation: float, allowed: float) -> str:
    """ "12% above": to whole percents, or as many decimals (up to 2) as it takes to read above `allowed`."""
    digits = 0
    while digits < 2 and round(abs(deviation) * 100, digits) <= round(allowed * 100, 6):
        digits += 1
    return f"{abs(deviation) * 100:.{digits}f}% {'above' if deviation > 0 else 'below'}"


def link_anomalies(table: pd.DataFrame) -> list[dict]:
    """A GPU whose link was read below its maximum speed or width."""
    out = []
    for _, row in table.iterrows():
        for metric, maximum in zip(LINK_METRICS, ("link max speed (GT/s)", "link max width (lanes)")):
            value, top = row[metric.column], row[maximum]
            if np.isfinite(value) and np.isfinite(top) and top > 0 and value < top:
                out.append(
                    _anomaly(
                        row,
                        metric,
                        value,
                        top,
                        "link maximum",
                        value / top - 1,
                        0.0,
                        f"{metric.label} {value:g} {metric.unit}, below its maximum {top:g} {metric.unit} "
                        f"({row['link read']})",
                    )
                )
    return out


def node_anomalies(table: pd.DataFrame, tolerance: float = DEFAULT_TOLERANCE) -> list[dict]:
    """Every GPU worse than the node's others by more than `tolerance` (a fraction) in a compared
    metric: against the node's median, or on a node of two GPUs against the better one; and every
    link below its maximum. See the module's doc."""
    out = []
    for metric in METRICS:
        if metric.worse is None:
            continue
        valid = table[np.isfinite(table[metric.column])]
        if len(valid) < 2:
            continue
        values = valid[metric.column]
        for _, row in valid.iterrows():
            value = row[metric.column]
            if len(valid) == 2:
                reference = float(values.drop(row.name).iloc[0])
                kind, name = "the other GPU (node of 2)", "the other GPU's"
            else:
                reference, kind, name = float(values.median()), "node median", "the node's median"
            if reference <= 0:
                continue
            if found := _if_worse(row, metric, value, reference, kind, name, tolerance):
                out.append(found)
    return sorted(out + link_anomalies(table), key=lambda a: a["gpu"])


def _if_worse(
    row, metric, value: float, reference: float, kind: str, name: str, tolerance: float, spread=(0.0, ""), shown=None
) -> dict | None:
    """The anomaly of `value` against `reference` (`name` and `shown`, else the reference, in the message),
    or None within `tolerance` plus `spread` ((fraction, its words), see LAUNCH_SPREAD)."""
    deviation = value / reference - 1
    allowed = tolerance + spread[0]
    if not _worse(metric, deviation, allowed):
        return None
    within = tolerance_text(tolerance) + (f" + {spread[1]}" if spread[0] else "")
    return _anomaly(
        row,
        metric,
        value,
        reference,
        kind,
        deviation,
        allowed,
        f"{metric.label} {_num(value)} {metric.unit} is {_by(deviation, allowed)} {name} "
        f"{shown or _num(reference) + ' ' + metric.unit} (tolerance {within})",
    )


def baseline_spread(baseline: pd.DataFrame, gpu: int, metric: Metric) -> tuple[float, str]:
    """(fraction, its words) added to the tolerance against one baseline run: the metric's launch
    spread (LAUNCH_SPREAD), or the spread the baseline's own records show where that is larger."""
    typical = LAUNCH_SPREAD.get(metric.key, 0.0)
    own = baseline.attrs.get("measured_spread", {}).get(gpu, {}).get(metric.key)
    if own and own[0] > typical:
        return own[0], f"spread {tolerance_text(own[0])} of the baseline's {own[1]}"
    return typical, f"launch spread {tolerance_text(typical)}"


def by_gpu(table: pd.DataFrame, order: pd.Series) -> pd.DataFrame:
    """`table`'s rows in the order of the GPUs `order`; a GPU it lacks has every number missing."""
    table = table.set_index("GPU", drop=False).reindex(order).reset_index(drop=True)
    table["GPU"] = order.to_numpy()
    return table


def baseline_anomalies(
    table: pd.DataFrame, baseline, tolerance: float = DEFAULT_TOLERANCE, skipped_steps=()
) -> list[dict]:
    """Every metric of every GPU worse than the same GPU (by rank) of `baseline`, and every metric the
    baseline has that this run lacks (unless its step was in `skipped_steps`). `baseline`: one per_gpu
    table, or a list of them (runs of one node: check_one_node). Against several, a number is outside
    when it is worse than the end of their range in the bad direction (its "reference") by more than
    `tolerance`; against one, by more than `tolerance` plus baseline_spread. An anomaly's "tolerance"
    is what its "deviation" was held to. The tables must be comparable (check_comparable)."""
    baselines = [baseline] if isinstance(baseline, pd.DataFrame) else list(baseline)
    order = baselines[0]["GPU"]
    table, ranges = by_gpu(table, order), [by_gpu(b, order) for b in baselines]
    one = len(baselines) == 1
    out = []
    for i, row in table.iterrows():
        for metric in METRICS + LINK_METRICS:
            if metric.worse is None:
                continue
            values = [float(b.loc[i, metric.column]) for b in ranges]
            values = [v for v in values if np.isfinite(v) and v > 0]
            if not values:
                continue
            low, high = min(values), max(values)
            reference = high if metric.worse == "higher" else low
            name = "the baseline's" if one else "the baselines'"
            shown = _num(low) + ("" if low == high else f"-{_num(high)}") + f" {metric.unit}"
            value = row[metric.column]
            if not np.isfinite(value):
                if metric.step not in skipped_steps:
                    why = f"{metric.label}: no value in this run ({name}: {shown})"
                    out.append(_anomaly(row, metric, None, reference, "baseline", None, tolerance, why))
                continue
            spread = baseline_spread(baselines[0], int(row["GPU"]), metric) if one else (0.0, "")
            if found := _if_worse(row, metric, value, reference, "baseline", name, tolerance, spread, shown):
                out.append(found)
    return out


def _num(x: float) -> str:
    return f"{x:.4g}" if abs(x) < 1e4 else f"{x:,.0f}"


def anomaly_line(a: dict) -> str:
    """One line naming a flagged GPU and why: "GPU 1 (0000:07:00.0): ..."."""
    where = f" ({a['pci_bus_id']})" if a.get("pci_bus_id") else ""
    return f"GPU {a['gpu']}{where}: {a['why']}"


def tolerance_text(tolerance: float) -> str:
    return re.sub(r"\.0+%$", "%", f"{tolerance * 100:.4g}%")
