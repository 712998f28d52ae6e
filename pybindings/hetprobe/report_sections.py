"""The sections of a node report. Each reads the run's summary frame (one row
per record and metric, see hetprobe.load) and adds text, tables and plots."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from . import plots
from ._frames import paper_config
from ._plotting import DPI, pick_setup, summary_rows as _rows
from ._units import size_label
from .load import Results
from .errors import UsageError
from .report_render import Document

PAPER_ORDER = ("volatile", "relaxed")  # paper 002 Table 1: plain CPU accesses, GPU atomics


def _us(ns) -> str:
    return f"{ns / 1000:.3g} µs"


def _ratio(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def _save(fig, directory: Path, name: str) -> str:
    fig.savefig(directory / name, dpi=DPI, bbox_inches="tight")
    return name


def headline(doc: Document, results: Results) -> list[str]:
    """The numbers a reader wants first: a table in the report, and lines for summary.txt."""
    table = headline_table(results)
    doc.h2("Headline numbers")
    if len(table):
        doc.table(table)
    else:
        doc.para("No probe finished: see the logs.")
    return [f"{q}: {v}" for q, v in zip(table["quantity"], table["value"])]


def headline_table(results: Results) -> pd.DataFrame:
    """The headline numbers of a run as text: columns quantity, value (with its unit), how (measured)."""
    rows: list[tuple[str, str, str]] = []
    rt = pick_setup(_rows(results, "roundtrip", "roundtrip_ns"))
    host_rt = rt[rt["direction"] == "cpu-gpu-cpu"].dropna(subset=["median"]) if len(rt) else rt
    if len(host_rt):
        best = host_rt.loc[host_rt["median"].idxmin()]
        rows.append(("CPU→GPU→CPU flag round trip, fastest order",
                     f"{_us(best['median'])} (p10 {_us(best['p10'])}, p90 {_us(best['p90'])})",
                     f"{best['cpu_order']}:{best['gpu_order']} flags, {int(best['n'])} exchanges, host clock"))
        paper = host_rt[(host_rt["cpu_order"] == PAPER_ORDER[0]) & (host_rt["gpu_order"] == PAPER_ORDER[1])]
        if len(paper):
            p = paper.iloc[0]
            rows.append(("CPU→GPU→CPU flag round trip, paper's order", f"{_us(p['median'])}",
                         f"volatile:relaxed, {int(p['n'])} exchanges"))
    over = pick_setup(_rows(results, "overhead", "ns_per_op"))
    if len(over):
        paper = over[(over["cpu_order"] == PAPER_ORDER[0]) & (over["gpu_order"] == PAPER_ORDER[1])
                     & (~over["contended"].astype(bool))]
        for side in ("cpu", "gpu"):
            one = paper[paper["side"] == side].dropna(subset=["median"])
            if len(one):
                o = one.iloc[0]
                rows.append((f"One flag read + write on the {side.upper()} (paper Table 1)",
                             f"{o['median']:.4g} ns per pair",
                             f"volatile:relaxed, {int(o['n'])} samples of {int(o['ops_per_sample'])} pairs"))
    mech = _rows(results, "mechanism", "roundtrip_ns")
    if len(mech):
        sync = mech[mech["mechanism"] == "launch+device-sync"].dropna(subset=["median"])
        if len(sync):
            rows.append(("Kernel launch + device synchronise", _us(sync.iloc[0]["median"]),
                         f"empty kernel, {int(sync.iloc[0]['n'])} samples"))
    fit = _rows(results, "clock_fit", "residual_ns")
    if len(fit):
        f = fit.iloc[0]
        rows.append(("GPU clock drift against the host clock", f"{f['drift_ppm']:.3g} ppm",
                     f"linear fit of {int(f['samples_used'])} ping-pongs over {f['span_s']:.3g} s"))
        check = "within" if bool(f["check_within_precision"]) else "outside"
        rows.append(("Clock sync precision", f"{f['precision_ns']:.4g} ns",
                     f"median half round trip; a later check was off by {f['check_error_ns']:.4g} ns, "
                     f"{check} its precision"))
    rows += _interference_headline(results)
    return pd.DataFrame(rows, columns=["quantity", "value", "how"])


# The interference files of a characterize run: the loads (every kind from the sender's GPU and from
# all), the write load's rate curve, and the paper's layout sweep. A lone results file is its own part.
PARTS = {"loads": "interference.jsonl", "rates": "interference-rate.jsonl", "paper": "interference-paper.jsonl"}


def interference_parts(results: Results) -> dict:
    """{"loads"|"rates"|"paper": Results} of the interference files present; a file of another name is
    "loads" when it has load kinds and "paper" when it has the paper's writer."""
    inter = results.probe("interference")
    parts = {}
    for part, name in PARTS.items():
        one = inter.only_files(name)
        if len(one.summary):
            parts[part] = one
    if not parts and len(inter.summary):
        paper = all(paper_config(r.get("config") or {}) for r in inter.records if r.get("record") == "header")
        parts["paper" if paper else "loads"] = inter
    return parts


def paper_view(results: Results) -> Results:
    """A characterize run as the paper's layout sweep: its load files left out where the run has the
    paper's (older runs and single files are returned as they are)."""
    names = {os.path.basename(f) for f in results.files}
    if PARTS["paper"] not in names:
        return results
    return results.without_files(PARTS["loads"], PARTS["rates"])


def _host_memory(results: Results):
    rows = _rows(results, "host_memory", "triad_gbs")
    return rows.iloc[0] if len(rows) else None


def _interference_headline(results: Results) -> list[tuple[str, str, str]]:
    rows = []
    parts = interference_parts(results)
    loads = [parts[p] for p in ("loads", "rates") if p in parts]
    worst = None
    if loads:
        try:
            worst = max((plots.worst_slowdown(r) for r in loads), key=lambda w: w["slowdown"])
        except UsageError:
            worst = None
    if worst is not None:
        gpus = int(worst["load_gpus"])
        rate = "" if worst["load_rate"] == "1" else f" at rate {worst['load_rate']}"
        rows.append(("Worst MPI_Send slowdown under GPU traffic",
                     f"{_ratio(worst['slowdown'])}× SSB: {worst['load_kind']} from {gpus} GPU{'s' if gpus > 1 else ''}"
                     f"{rate}, {worst['traffic_during_send_gbs']:.3g} GB/s during the send, "
                     f"{size_label(int(worst['size_bytes']))}",
                     f"{worst['layout']}, {worst['access']} access; medians of {int(worst['n'])} sends, each ÷ the "
                     "SSB median at its size"))
    triad = _host_memory(results)
    if triad is not None:
        copy = _rows(results, "host_memory", "copy_gbs").iloc[0]
        share = (f"; the worst point's GPU traffic is {100 * worst['traffic_during_send_gbs'] / triad['max']:.0f}% "
                 "of triad" if worst is not None else "")
        rows.append(("Host memory bandwidth (STREAM, best of the runs)",
                     f"triad {triad['max']:.4g} GB/s, copy {copy['max']:.4g} GB/s",
                     f"{triad['label']}{share}"))
    if "paper" in parts:
        send = _rows(parts["paper"], "point", "send_time_ns")
        others = send[send["layout"] != "SSB"].dropna(subset=["ratio_to_ssb_median"])
        if len(others):
            w = others.loc[others["ratio_to_ssb_median"].idxmax()]
            rows.append(("Worst slowdown, the paper's writer (message-sized buffer)",
                         f"{_ratio(w['ratio_to_ssb_median'])}× SSB",
                         f"{w['layout']}, {w['access']} access, {size_label(int(w['size_bytes']))}; medians of "
                         f"{int(w['n'])} sends"))
            typical = others.groupby("layout")["ratio_to_ssb_median"].median()
            rows.append(("Typical ratio to SSB, the paper's writer (median over sizes and access)",
                         ", ".join(f"{k} {_ratio(v)}" for k, v in typical.items()), "1 = no interference"))
    send = _rows(results, "point", "send_time_ns", probe="interference")
    if len(send):
        bad = send[send["status"] != "ok"]
        rows.append(("Payload checks", "all intact" if bad.empty else f"{len(bad)} point(s) corrupted",
                     f"{len(send)} points; a GPU storing into the send buffer (PSB) tears it by design and is "
                     "not counted"))
    return rows


def node_section(doc: Document, results: Results, header: dict) -> None:
    doc.h2("The node")
    topo = results.topology or header.get("topology") or {}
    if topo:
        caches = ", ".join(f"{c['name']} {size_label(c['size_bytes'])} ×{c['count']}" for c in topo.get("caches", []))
        doc.para(f"{topo.get('packages')} package(s), {topo.get('numa_nodes')} NUMA node(s), {topo.get('cores')} "
                 f"cores, {topo.get('pus')} hardware threads; caches: {caches or 'unknown'}.")
        devices = [{"kind": kind, "PCI": d.get("pci_bus_id"), "model": d.get("model"),
                    "NUMA": ",".join(map(str, d.get("numa_nodes") or [])), "near CPUs": d.get("cpuset"),
                    "link (GB/s)": d.get("link_gbps"), "OS devices": ",".join(d.get("os_devices") or [])}
                   for kind in ("gpus", "nics") for d in topo.get(kind, [])]
        if devices:
            doc.table(pd.DataFrame(devices))
        memory = topo.get("memory") or {}
        doc.para(f"Page size {memory.get('page_size_bytes')} B, transparent hugepages "
                 f"`{memory.get('transparent_hugepages')}`, IOMMU units: {len(memory.get('iommu_devices') or [])}.")
    ranks = [{"probe": r.get("probe"), "rank": rank.get("rank"), "host": rank.get("host"),
              "device": (rank.get("device") or {}).get("name"),
              "bound CPUs": (rank.get("placement") or {}).get("cpuset"),
              "memory NUMA": ",".join(map(str, (rank.get("placement") or {}).get("membind_numa_nodes") or [])),
              "note": (rank.get("placement") or {}).get("note")}
             for r in results.records if r.get("record") == "header" for rank in r.get("ranks", [])]
    if ranks:
        doc.para("Where each rank ran (read back from the OS after binding):")
        doc.table(pd.DataFrame(ranks))


def interference_section(doc: Document, results: Results, directory: Path) -> None:
    parts = interference_parts(results)
    if "loads" in parts or "rates" in parts:
        _loads_section(doc, parts, results, directory)
    if "paper" in parts:
        _paper_section(doc, parts["paper"], directory)


def _loads_section(doc: Document, parts: dict, results: Results, directory: Path) -> None:
    doc.h2("Interference: GPU traffic during MPI_Send")
    doc.para("Rank 0 times `MPI_Send` to rank 1 while GPUs make traffic in pinned host memory, as applications "
             "do: **write** (a kernel storing results), **read** (a kernel loading them, a zero-copy unpack), "
             "**poll** (every thread of a grid polling one flag, a kernel waiting on the CPU), **copy-d2h** and "
             "**copy-h2d** (the copy engine). The load runs through all the sends of a point, into a buffer of its "
             "own (2 MiB past the send buffer on the sender's GPU, near each other GPU); SSB is the baseline with "
             "the GPUs idle. Traffic = the bytes the loads moved inside the timed sends, from their device-side "
             "progress stamps, ÷ the sends' time (GB/s = 10^9 B/s; poll: 8 B per thread-poll).")
    main = parts.get("loads") or parts["rates"]
    table = plots.load_table(main)
    if len(table):
        doc.para("Each kind at full rate, from the sender's GPU and from every GPU: median send time, slowdown "
                 "(÷ SSB) and traffic during the sends:")
        doc.table(table)
    both = parts.get("loads")
    if both is not None and both.summary["load_gpus"].max() > 1:
        doc.image(_save(plots.slowdown_vs_gpus(both), directory, "interference_gpus.png"),
                  "Slowdown against the number of GPUs loading at once (0 = SSB), per kind, full rate")
    curve = results.probe("interference").only_files(PARTS["loads"], PARTS["rates"])
    doc.image(_save(plots.slowdown_vs_traffic(curve if len(curve.summary) else main), directory,
                    "interference_traffic.png"),
              "Slowdown against the GPU traffic measured during the sends, each point against its own run's SSB: "
              "every kind at full rate from 1 and from all GPUs, and the write load at several rates, joined")
    gpus = main.load_gpus()
    if len(gpus):
        where = gpus.drop_duplicates("ordinal")[["ordinal", "pci_bus_id", "gpu_numa_nodes", "buffer_numa_nodes",
                                                  "helper_cpus"]]
        doc.para("The GPUs that made traffic, the NUMA nodes of the GPU and of its own buffer, and the CPUs "
                 "their host threads ran on (away from the sending rank's):")
        doc.table(where.astype(str))


def _paper_section(doc: Document, paper: Results, directory: Path) -> None:
    doc.h2("The paper's layouts: its writer in a message-sized buffer")
    doc.para("Elis et al., Sec. 4.3: SSB (the GPU wrote the buffer and finished), PSB (it keeps writing the send "
             "buffer), PCB (a buffer right after it), P2AB (a buffer 2 MiB away), each the size of the message; "
             "stream = one block, stacked = the whole GPU, grid-synchronised between passes.")
    doc.image(_save(plots.send_time(paper), directory, "interference_send_time.png"),
              "MPI_Send time against message size, median with the p10-p90 band (paper Figures 6-11)")
    doc.image(_save(plots.ratio_to_ssb(paper), directory, "interference_ratio.png"),
              "Median MPI_Send time divided by the SSB median at the same size and access mode")
    send = _rows(paper, "point", "send_time_ns").copy()
    send["size"] = send["size_bytes"].map(lambda b: size_label(int(b)))
    table = send.pivot_table(index=["access", "size_bytes", "size"], columns="layout", values="median",
                             sort=True) / 1000
    table = table[[c for c in ("SSB", "PSB", "PCB", "P2AB") if c in table.columns]]
    table = table.reset_index().drop(columns="size_bytes")
    doc.para("Median MPI_Send time (µs) per point:")
    doc.table(table)


def notify_section(doc: Document, results: Results, directory: Path) -> None:
    doc.h2("Notifications between CPU and GPU")
    doc.para("One flag read + one flag write, per pair (paper Table 1), in ns: the CPU side timed on the host "
             "clock, the GPU side on the device timer; 'polling' = the other side polls the same flag meanwhile.")
    doc.table(plots.notify_table(results), index=True)
    doc.para("Round trips through two flags (ns): CPU→GPU→CPU timed on the host, GPU→CPU→GPU on the device.")
    doc.table(plots.roundtrip_table(results), index=True)
    doc.image(_save(plots.roundtrip(results), directory, "notify_roundtrip.png"),
              "Flag round trip per memory-ordering primitive (CPU:GPU), every exchange")
    doc.para("Every way the CPU and the GPU can signal each other: host-timed round trip (go + done), ns.")
    doc.table(plots.mechanism_table(results), index=True)
    doc.image(_save(plots.mechanisms(results), directory, "notify_mechanisms.png"),
              "Signalling mechanisms: median round trip with p10-p90")


def clock_section(doc: Document, results: Results, directory: Path) -> None:
    doc.h2("GPU clock on the CPU timeline")
    fit = _rows(results, "clock_fit", "residual_ns")
    if len(fit):
        f = fit.iloc[0]
        doc.para(f"Ping-pong syncs fitted by least squares: drift {f['drift_ppm']:.4g} ppm, precision "
                 f"{f['precision_ns']:.4g} ns (median half round trip of the {int(f['samples_used'])} fitted "
                 f"samples of {int(f['samples_total'])}), residual rms {f['residual_rms_ns']:.4g} ns over "
                 f"{f['span_s']:.3g} s; a check batch taken later was predicted to within {f['check_error_ns']:.4g} ns.")
    doc.image(_save(plots.clock(results), directory, "clock.png"),
              "Clock fit residuals over time (fitted samples highlighted) and the sync precision")
