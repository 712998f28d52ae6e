"""The GPU that is off: ``node_anomalies`` flags a GPU of the per-GPU table (gpus.per_gpu) that is
worse than the node's others by more than a tolerance, or whose link runs below its maximum;
``baseline_anomalies`` compares each GPU with the same GPU (by rank) of one known-good run, or of
several runs of one node.

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
is larger: gpus.measured_spread).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from ..errors import UsageError
from .gpus import LINK_METRICS, METRICS, Metric

DEFAULT_TOLERANCE = 0.10


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
