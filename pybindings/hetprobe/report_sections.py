"""The sections of a node report. Each reads the run's summary frame (one row per record and metric,
see hetprobe.load) and adds text, tables and plots. A section whose probe failed opens with why
(`problems`), then shows what its finished records allow: each table and plot is built on its own,
and one that lacks its records says so instead of ending the report."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import plots
from ._plot_load import load_points
from ._plotting import DPI, pick_setup, summary_rows as _rows
from ._units import size_label
from .load import Results
from .report_headline import PARTS, interference_parts
from .report_notes import Marks, conditions_note, flagged_table, guarded, record_warnings, warnings_by
from .report_render import Document


def _save(fig, directory: Path, name: str) -> str:
    fig.savefig(directory / name, dpi=DPI, bbox_inches="tight")
    return name


def _open(doc: Document, title: str, results: Results, what: str, problems=()) -> bool:
    """The section's heading, why its probe failed, its run's conditions; False when it has no records."""
    doc.h2(title)
    for problem in problems:
        doc.warn(problem)
    conditions_note(doc, results, what)
    if not len(results.summary):
        doc.para("No finished records of this probe: nothing to show.")
        return False
    return True


def _marked(rows: pd.DataFrame, keys: list[str], index, results: Results) -> list[list[str]]:
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
        doc.para("Where each rank ran (read back from the OS after binding):")
        doc.table(pd.DataFrame(ranks))


def interference_section(doc: Document, results: Results, directory: Path, problems: dict | None = None) -> None:
    """The loads (interference, interference-rate) and the paper's layouts (interference-paper);
    `problems`: {step: why it failed}."""
    problems = problems or {}
    parts = interference_parts(results)
    load_problems = [problems[s] for s in ("interference", "interference-rate") if s in problems]
    if "loads" in parts or "rates" in parts or load_problems:
        _loads_section(doc, parts, results, directory, load_problems)
    if "paper" in parts or "interference-paper" in problems:
        _paper_section(
            doc, parts.get("paper"), directory, [problems[s] for s in ("interference-paper",) if s in problems]
        )


def _loads_section(doc: Document, parts: dict, results: Results, directory: Path, problems: list) -> None:
    loads = [parts[p] for p in ("loads", "rates") if p in parts]
    if not _open(
        doc,
        "Interference: GPU traffic during MPI_Send",
        loads[0] if loads else Results.empty(),
        "interference",
        problems,
    ):
        return
    doc.para(
        "Rank 0 times `MPI_Send` to rank 1 while GPUs make traffic in pinned host memory, as applications "
        "do: **write** (a kernel storing results), **read** (a kernel loading them, a zero-copy unpack), "
        "**poll** (every thread of a grid polling one flag, a kernel waiting on the CPU), **copy-d2h** and "
        "**copy-h2d** (the copy engine). The load runs through all the sends of a point, into a buffer of its "
        "own (2 MiB past the send buffer on the sender's GPU, near each other GPU); SSB is the baseline with "
        "the GPUs idle. Traffic = the bytes the loads moved inside the timed sends, from their device-side "
        "progress stamps, ÷ the sends' time (GB/s = 10^9 B/s; poll: 8 B per thread-poll)."
    )
    main = loads[0]

    def table():
        t = plots.load_table(main)
        if len(t):
            points = load_points(main)
            points = points[(points["load_rate"] == "1") & (points["file"] == points["file"].iloc[0])]
            doc.para(
                "Each kind at full rate, from the sender's GPU and from every GPU: median send time, slowdown "
                "(÷ SSB) and traffic during the sends:"
            )
            flagged_table(doc, t, _marked(points, ["load_kind", "load_gpus"], zip(t["kind"], t["gpus"]), main))

    guarded(doc, "The load table", table)
    both = parts.get("loads")
    if both is not None and both.summary["load_gpus"].max() > 1:
        guarded(
            doc,
            "The GPU-count plot",
            lambda: doc.image(
                _save(plots.slowdown_vs_gpus(both), directory, "interference_gpus.png"),
                "Slowdown against the number of GPUs loading at once (0 = SSB), per kind, full rate",
            ),
        )
    curve = results.probe("interference").only_files(PARTS["loads"], PARTS["rates"])
    guarded(
        doc,
        "The traffic plot",
        lambda: doc.image(
            _save(
                plots.slowdown_vs_traffic(curve if len(curve.summary) else main), directory, "interference_traffic.png"
            ),
            "Slowdown against the GPU traffic measured during the sends, each point against its own run's SSB: "
            "every kind at full rate from 1 and from all GPUs, and the write load at several rates, joined",
        ),
    )
    gpus = main.load_gpus()
    if len(gpus):
        where = gpus.drop_duplicates("ordinal")[
            ["ordinal", "pci_bus_id", "gpu_numa_nodes", "buffer_numa_nodes", "helper_cpus"]
        ]
        doc.para(
            "The GPUs that made traffic, the NUMA nodes of the GPU and of its own buffer, and the CPUs "
            "their host threads ran on (away from the sending rank's):"
        )
        doc.table(where.astype(str))


def _paper_section(doc: Document, paper: Results | None, directory: Path, problems: list) -> None:
    if not _open(
        doc,
        "The paper's layouts: its writer in a message-sized buffer",
        paper if paper is not None else Results.empty(),
        "interference-paper",
        problems,
    ):
        return
    doc.para(
        "Elis et al., Sec. 4.3: SSB (the GPU wrote the buffer and finished), PSB (it keeps writing the send "
        "buffer), PCB (a buffer right after it), P2AB (a buffer 2 MiB away), each the size of the message; "
        "stream = one block, stacked = the whole GPU, grid-synchronised between passes."
    )
    guarded(
        doc,
        "The send-time plot",
        lambda: doc.image(
            _save(plots.send_time(paper), directory, "interference_send_time.png"),
            "MPI_Send time against message size, median with the p10-p90 band (paper Figures 6-11)",
        ),
    )
    guarded(
        doc,
        "The ratio plot",
        lambda: doc.image(
            _save(plots.ratio_to_ssb(paper), directory, "interference_ratio.png"),
            "Median MPI_Send time divided by the SSB median at the same size and access mode",
        ),
    )

    def table():
        send = _rows(paper, "point", "send_time_ns").copy()
        send["size"] = send["size_bytes"].map(lambda b: size_label(int(b)))
        t = (
            send.pivot_table(index=["access", "size_bytes", "size"], columns="layout", values="median", sort=True)
            / 1000
        )
        t = t[[c for c in ("SSB", "PSB", "PCB", "P2AB") if c in t.columns]]
        noted = _marked(send, ["access", "size_bytes"], [k[:2] for k in t.index], paper)
        doc.para("Median MPI_Send time (µs) per point:")
        flagged_table(doc, t.reset_index().drop(columns="size_bytes"), noted)

    guarded(doc, "The table of send times", table)


def _order(rows: pd.DataFrame) -> pd.DataFrame:
    return rows.assign(order=rows["cpu_order"] + ":" + rows["gpu_order"])


def notify_section(doc: Document, results: Results, directory: Path, problems=()) -> None:
    if not _open(doc, "Notifications between CPU and GPU", results, "notify", problems):
        return

    def table1():
        t = plots.notify_table(results)
        doc.para(
            "One flag read + one flag write, per pair (paper Table 1), in ns: the CPU side timed on the host "
            "clock, the GPU side on the device timer; 'polling' = the other side polls the same flag meanwhile."
        )
        rows = _order(pick_setup(_rows(results, "overhead", "ns_per_op")))
        flagged_table(doc, t, _marked(rows, ["order"], t.index, results), index=True)

    def roundtrips():
        t = plots.roundtrip_table(results)
        doc.para("Round trips through two flags (ns): CPU→GPU→CPU timed on the host, GPU→CPU→GPU on the device.")
        rows = _order(_rows(results, "roundtrip", "roundtrip_ns"))
        flagged_table(doc, t, _marked(rows, ["order", "placement", "spacing"], t.index, results), index=True)
        doc.image(
            _save(plots.roundtrip(results), directory, "notify_roundtrip.png"),
            "Flag round trip per memory-ordering primitive (CPU:GPU), every exchange",
        )

    def mechanisms():
        t = plots.mechanism_table(results)
        doc.para("Every way the CPU and the GPU can signal each other: host-timed round trip (go + done), ns.")
        rows = _rows(results, "mechanism", "roundtrip_ns")
        flagged_table(doc, t, _marked(rows, ["mechanism"], t.index, results), index=True)
        doc.image(
            _save(plots.mechanisms(results), directory, "notify_mechanisms.png"),
            "Signalling mechanisms: median round trip with p10-p90",
        )

    guarded(doc, "Flag read + write overhead (Table 1)", table1)
    guarded(doc, "Flag round trips", roundtrips)
    guarded(doc, "Signalling mechanisms", mechanisms)


def clock_section(doc: Document, results: Results, directory: Path, problems=()) -> None:
    if not _open(doc, "GPU clock on the CPU timeline", results, "clock", problems):
        return
    fit = _rows(results, "clock_fit", "residual_ns")
    if len(fit):
        f = fit.iloc[0]
        marks = Marks()
        mark = marks.mark(record_warnings(results, [f["record_id"]]))
        doc.para(
            f"Ping-pong syncs fitted by least squares: drift {f['drift_ppm']:.4g} ppm, precision "
            f"{f['precision_ns']:.4g} ns (median half round trip of the {int(f['samples_used'])} fitted "
            f"samples of {int(f['samples_total'])}), residual rms {f['residual_rms_ns']:.4g} ns over "
            f"{f['span_s']:.3g} s; a check batch taken later was predicted to within {f['check_error_ns']:.4g} ns."
            + (f" {mark}" if mark else "")
        )
        marks.write(doc)
    else:
        doc.para("*No clock fit: the probe stopped before fitting its batches.*")
    guarded(
        doc,
        "The clock plot",
        lambda: doc.image(
            _save(plots.clock(results), directory, "clock.png"),
            "Clock fit residuals over time (fitted samples highlighted) and the sync precision",
        ),
    )
