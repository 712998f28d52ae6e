"""The sections of a node report but the interference ones (report/interference.py) and the per-GPU
one (report/gpus.py): the node, the notifications, the clock. Each reads the run's summary frame
(one row per record and metric, see hetprobe.load) and adds text, tables and plots. A section whose
probe failed opens with why (`problems`), then shows what its finished records allow: each table and
plot is built on its own, and one that lacks its records says so instead of ending the report."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .. import plots
from ..data.notify_tables import loop_table, mechanism_table, notify_table, roundtrip_table
from ..data.results import Results, summary_rows as _rows
from ..data.select import pick_setup
from ..data.units import size_label
from .notes import conditions_note, flagged_table, guarded, record_warnings, warnings_by
from .outputs import save
from .render import Document, number


def open_section(doc: Document, title: str, results: Results, problems=()) -> bool:
    """The section's heading, why its probe failed, its run's conditions; False when it has no records."""
    doc.h2(title)
    for problem in problems:
        doc.warn(problem)
    conditions_note(doc, results)
    if not len(results.summary):
        doc.para("No finished records of this probe: nothing to show.")
        return False
    return True


def marked(rows: pd.DataFrame, keys: list[str], index, results: Results) -> list[list[str]]:
    """The warnings of each row of a table whose index (or key columns) are `keys` of summary `rows`."""
    found = warnings_by(results, rows, keys)
    return [found.get(k if isinstance(k, tuple) else (k,), []) for k in index]


def node_section(doc: Document, results: Results, header: dict) -> None:
    doc.h2("The node")
    topo = results.topology or header.get("topology") or {}
    if topo:
        caches = ", ".join(
            f"{c.get('name')} {size_label(c.get('size_bytes', 0))} ×{c.get('count')}" for c in topo.get("caches", [])
        )
        doc.para(
            f"{topo.get('packages')} package(s), {topo.get('numa_nodes')} NUMA node(s), {topo.get('cores')} "
            f"cores, {topo.get('pus')} hardware threads; caches: {caches or 'unknown'}."
        )
        devices = [
            {
                "kind": kind,
                "PCI": d.get("pci_bus_id"),
                "model": d.get("model"),
                "NUMA": ",".join(map(str, d.get("numa_nodes") or [])),
                "near CPUs": d.get("cpuset"),
                "link (GB/s)": d.get("link_gbps"),
                "OS devices": ",".join(d.get("os_devices") or []),
            }
            for kind in ("gpus", "nics")
            for d in topo.get(kind, [])
        ]
        if devices:
            doc.table(pd.DataFrame(devices))
        memory = topo.get("memory") or {}
        doc.para(
            f"Page size {memory.get('page_size_bytes')} B, transparent hugepages "
            f"`{memory.get('transparent_hugepages')}`, IOMMU units: {len(memory.get('iommu_devices') or [])}."
        )
    else:
        doc.para("No topology was recorded (topology.json is missing or unreadable).")
    ranks = [
        {
            "probe": r.get("probe"),
            "rank": rank.get("rank"),
            "host": rank.get("host"),
            "device": (rank.get("device") or {}).get("name"),
            "bound CPUs": (rank.get("placement") or {}).get("cpuset"),
            "memory NUMA": ",".join(map(str, (rank.get("placement") or {}).get("membind_numa_nodes") or [])),
            "note": (rank.get("placement") or {}).get("note"),
        }
        for r in results.records
        if r.get("record") == "header"
        for rank in r.get("ranks", [])
    ]
    if ranks:
        # One row per rank and probe where every launch ran alike (issue 36: five launches gave five copies);
        # a launch that ran elsewhere keeps its own row.
        doc.para("Where each rank ran (read back from the OS after binding):")
        doc.table(pd.DataFrame(ranks).drop_duplicates(ignore_index=True))


def _order(rows: pd.DataFrame) -> pd.DataFrame:
    return rows.assign(order=rows["cpu_order"] + ":" + rows["gpu_order"])


def notify_section(doc: Document, results: Results, directory: Path, problems=()) -> None:
    if not open_section(doc, "Notifications between CPU and GPU", results, problems):
        return

    def pairs(table, text: str, record: str, metric: str):
        """A table of read + write pairs, one row per order pair, each marked with its records' warnings."""
        t = table(results)
        doc.para(text)
        rows = _order(pick_setup(_rows(results, record, metric)))
        flagged_table(doc, t, marked(rows, ["order"], t.index, results), index=True)

    def table1():
        pairs(
            notify_table,
            "One flag read + one flag write of a flag the other side wrote last (Elis et al. 2024, Table 1), each "
            "pair timed alone, in ns: the CPU side on the host clock, the GPU side on the device timer. 'cpu', "
            "'gpu': the median pair beyond the median cost of the timer itself ('timer': the host clock's empty "
            "region, the device timer's back-to-back read); 'pair': the median as timed.",
            "handover",
            "pair_ns",
        )

    def loop():
        pairs(
            loop_table,
            "The same pair in a loop on a line the timing side owns, per pair, in ns (not Table 1: each read takes "
            "the previous write's value inside the core); 'polling' = the other side polls the same flag meanwhile.",
            "overhead",
            "ns_per_op",
        )

    def roundtrips():
        t = roundtrip_table(results)
        doc.para("Round trips through two flags (ns): CPU→GPU→CPU timed on the host, GPU→CPU→GPU on the device.")
        rows = _order(_rows(results, "roundtrip", "roundtrip_ns"))
        flagged_table(doc, t, marked(rows, ["order", "placement", "spacing"], t.index, results), index=True)
        doc.image(
            save(plots.roundtrip(results), directory, "notify_roundtrip.png"),
            "Flag round trip per memory-ordering primitive (CPU:GPU), every exchange",
        )

    def mechanisms():
        t = mechanism_table(results)
        doc.para("Every way the CPU and the GPU can signal each other: host-timed round trip (go + done), ns.")
        rows = _rows(results, "mechanism", "roundtrip_ns")
        flagged_table(doc, t, marked(rows, ["mechanism"], t.index, results), index=True)
        doc.image(
            save(plots.mechanisms(results), directory, "notify_mechanisms.png"),
            "Signalling mechanisms: median round trip with p10-p90",
        )

    guarded(doc, "Flag read + write of a flag the other side wrote last (Table 1)", table1)
    if len(_rows(results, "overhead", "ns_per_op")):
        guarded(doc, "Flag read + write in a loop on an owned line", loop)
    guarded(doc, "Flag round trips", roundtrips)
    guarded(doc, "Signalling mechanisms", mechanisms)


def clock_section(doc: Document, results: Results, directory: Path, problems=()) -> None:
    if not open_section(doc, "GPU clock on the CPU timeline", results, problems):
        return
    fit = _rows(results, "clock_fit", "residual_ns")
    if len(fit):
        f = fit.iloc[0]
        mark = doc.marks.mark(record_warnings(results, [f["record_id"]]))
        doc.para(
            f"Ping-pong syncs fitted by least squares: drift {number(f['drift_ppm'])} ppm, precision "
            f"{number(f['precision_ns'])} ns (median half round trip of the {int(f['samples_used'])} fitted "
            f"samples of {int(f['samples_total'])}), residual rms {number(f['residual_rms_ns'])} ns over "
            f"{f['span_s']:.3g} s; a check batch taken later was predicted to within "
            f"{number(f['check_error_ns'])} ns." + (f" {mark}" if mark else "")
        )
    else:
        doc.para("*No clock fit: the probe stopped before fitting its batches.*")
    guarded(
        doc,
        "The clock plot",
        lambda: doc.image(
            save(plots.clock(results), directory, "clock.png"),
            "Clock fit residuals over time (fitted samples highlighted) and the sync precision",
        ),
    )
