"""The notify probe's tables: Elis et al. 2024's Table 1 (notify_table, from the handover records),
the same pair in a loop on an owned line (loop_table), the round trips (roundtrip_table) and the
signalling mechanisms (mechanism_table), medians in ns, raw floats."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .results import summary_rows
from .select import first_run, ordered, pick_setup

# The loop table's columns: (side, contended) -> name.
LOOP_COLUMNS = {
    ("cpu", False): "cpu",
    ("cpu", True): "cpu, gpu polling",
    ("gpu", False): "gpu",
    ("gpu", True): "gpu, cpu polling",
}


DIRECTIONS = ["cpu-gpu-cpu", "gpu-cpu-gpu"]


def notify_rows(results, record: str, metric: str) -> pd.DataFrame:
    return summary_rows(results, record, metric, "notify")


def _order(rows: pd.DataFrame) -> pd.Series:
    return rows["cpu_order"] + ":" + rows["gpu_order"]


def notify_table(results) -> pd.DataFrame:
    """Elis et al. 2024, Table 1: ns per read+write pair of a flag the other side wrote last, beyond
    the timer's own cost (the records' pair_beyond_timer_ns), rows "cpu_order:gpu_order".

    Columns "cpu", "gpu" (the side timed), then each side's raw median ("cpu pair", "gpu pair") and
    its timer's median cost ("cpu timer", "gpu timer"). One flag setup is shown, the default
    pinned/line when the file has several; attrs["placement"], attrs["spacing"] say which.
    """
    pairs = first_run(
        pick_setup(notify_rows(results, "handover", "pair_ns")),
        ["cpu_order", "gpu_order", "side"],
        "notify handover records",
    )
    timers = notify_rows(results, "handover", "timer_cost_ns").set_index("record_id")["median"]
    rows = pairs.assign(order=_order(pairs), timer_median=timers.reindex(pairs["record_id"]).to_numpy())
    columns = {"pair_beyond_timer_ns": "{}", "median": "{} pair", "timer_median": "{} timer"}
    parts = [
        rows.pivot(index="order", columns="side", values=value).rename(columns=name.format)
        for value, name in columns.items()
    ]
    table = pd.concat(parts, axis=1)
    sides = [s for s in ("cpu", "gpu") if s in set(rows["side"])]
    table = table.reindex(
        index=list(dict.fromkeys(rows["order"])), columns=[n.format(s) for n in columns.values() for s in sides]
    )
    table.index.name = "cpu_order:gpu_order"
    table.columns.name = "median ns per read+write pair"
    table.attrs.update(placement=rows["placement"].iloc[0], spacing=rows["spacing"].iloc[0])
    return table


def loop_table(results) -> pd.DataFrame:
    """The read+write pair in a loop on a line the timing side owns (the overhead records): median
    ns per pair, rows "cpu_order:gpu_order". Not Table 1: each read takes the previous write's value
    inside the core, so it is a loop time.

    Columns "cpu", "cpu, gpu polling", "gpu", "gpu, cpu polling" (the side timed; "polling": the
    other side polled the flag meanwhile). One flag setup is shown, the default pinned/line when the
    file has several; attrs["placement"], attrs["spacing"] say which. Unresolved cells are NaN.
    """
    rows = pick_setup(notify_rows(results, "overhead", "ns_per_op"))
    rows = first_run(rows, ["cpu_order", "gpu_order", "side", "contended"], "notify overhead records")
    rows = rows.assign(
        order=_order(rows), column=[LOOP_COLUMNS[(s, bool(c))] for s, c in zip(rows["side"], rows["contended"])]
    )
    table = rows.pivot(index="order", columns="column", values="median")
    table = table.reindex(
        index=list(dict.fromkeys(rows["order"])), columns=[c for c in LOOP_COLUMNS.values() if c in table.columns]
    )
    table.index.name = "cpu_order:gpu_order"
    table.columns.name = "median ns per read+write pair, in a loop"
    table.attrs.update(placement=rows["placement"].iloc[0], spacing=rows["spacing"].iloc[0])
    return table


def roundtrip_table(results) -> pd.DataFrame:
    """Round trips: rows (order pair, placement, spacing), columns (direction, median/p10/p90) in ns."""
    rows = first_run(
        notify_rows(results, "roundtrip", "roundtrip_ns"),
        ["cpu_order", "gpu_order", "placement", "spacing", "host_memory", "direction"],
        "notify roundtrip records",
    )
    rows = rows.assign(order=_order(rows))
    keys = ["order", "placement", "spacing"]
    table = rows.pivot_table(
        index=keys, columns="direction", values=["median", "p10", "p90"], aggfunc="first", sort=False
    )
    table = table.swaplevel(0, 1, axis=1)
    directions = ordered(rows["direction"], DIRECTIONS)
    table = table.reindex(
        columns=pd.MultiIndex.from_product([directions, ["median", "p10", "p90"]], names=["direction", "ns"])
    )
    return table.reindex(pd.MultiIndex.from_frame(rows[keys].drop_duplicates()))


def mechanism_table(results) -> pd.DataFrame:
    """Mechanisms: round trip median/p10/p90 (ns), go-call median (ns), n, status, skipped_reason."""
    rows = first_run(notify_rows(results, "mechanism", "roundtrip_ns"), ["mechanism"], "notify mechanism records")
    go = (
        first_run(notify_rows(results, "mechanism", "go_call_ns"), ["mechanism"], "go calls")
        if len(notify_rows(results, "mechanism", "go_call_ns"))
        else None
    )
    table = rows.set_index("mechanism")[["median", "p10", "p90", "n", "status", "skipped_reason"]].copy()
    table.insert(3, "go_call_median", np.nan if go is None else go.set_index("mechanism")["median"])
    table.columns.name = "round trip ns"
    return table
