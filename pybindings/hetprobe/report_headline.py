"""The headline numbers of a run: the few a reader wants first, each with how it was measured and
the warnings recorded beside it (the run's conditions, the spread of its samples). A run that lost a
probe still has the others' numbers: a quantity without records is left out, never an error."""

from __future__ import annotations

import os

import pandas as pd

from . import plots
from ._frames import paper_config
from ._plotting import pick_setup, summary_rows as _rows
from ._units import size_label
from .errors import UsageError
from .load import Results
from .report_notes import Marks, condition_warnings, noisy_suffix, record_warnings
from .report_render import Document

PAPER_ORDER = ("volatile", "relaxed")  # paper 002 Table 1: plain CPU accesses, GPU atomics

# The interference files of a characterize run: the loads (every kind from the sender's GPU and from
# all), the write load's rate curve, and the paper's layout sweep. A lone results file is its own part.
PARTS = {"loads": "interference.jsonl", "rates": "interference-rate.jsonl", "paper": "interference-paper.jsonl"}


def us(ns) -> str:
    return f"{ns / 1000:.3g} µs"


def ratio_text(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def _warned(results: Results, record_ids) -> list[str]:
    """Every warning that applies to numbers from these records: their own, then their runs' conditions."""
    ids = list(record_ids)
    return list(dict.fromkeys(record_warnings(results, ids) + condition_warnings(results, ids)))


def headline(doc: Document, results: Results) -> list[str]:
    """The numbers a reader wants first: a table in the report (⚠N beside a number its run or its
    samples warn about, the warnings under it), and lines for summary.txt."""
    table = headline_table(results, warnings=True)
    doc.h2("Headline numbers")
    if not len(table):
        doc.para("No probe finished a measurement: see the logs.")
        return []
    marks = Marks()
    values = [v + (f" {marks.mark(w)}" if w else "") for v, w in zip(table["value"], table["warnings"])]
    shown = table.assign(value=values)
    doc.table(shown.drop(columns="warnings"))
    marks.write(doc)
    return [f"{q}: {v}{noisy_suffix(w)}" for q, v, w in zip(table["quantity"], table["value"], table["warnings"])]


def headline_table(results: Results, warnings: bool = False) -> pd.DataFrame:
    """The headline numbers of a run as text: columns quantity, value (with its unit), how (measured);
    with ``warnings=True`` also warnings, the list of warnings that apply to each number."""
    rows: list[tuple[str, str, str, list[str]]] = []
    rt = pick_setup(_rows(results, "roundtrip", "roundtrip_ns"))
    host_rt = rt[rt["direction"] == "cpu-gpu-cpu"].dropna(subset=["median"]) if len(rt) else rt
    if len(host_rt):
        best = host_rt.loc[host_rt["median"].idxmin()]
        rows.append(
            (
                "CPU→GPU→CPU flag round trip, fastest order",
                f"{us(best['median'])} (p10 {us(best['p10'])}, p90 {us(best['p90'])})",
                f"{best['cpu_order']}:{best['gpu_order']} flags, {int(best['n'])} exchanges, host clock",
                _warned(results, [best["record_id"]]),
            )
        )
        paper = host_rt[(host_rt["cpu_order"] == PAPER_ORDER[0]) & (host_rt["gpu_order"] == PAPER_ORDER[1])]
        if len(paper):
            p = paper.iloc[0]
            rows.append(
                (
                    "CPU→GPU→CPU flag round trip, paper's order",
                    f"{us(p['median'])}",
                    f"volatile:relaxed, {int(p['n'])} exchanges",
                    _warned(results, [p["record_id"]]),
                )
            )
    over = pick_setup(_rows(results, "overhead", "ns_per_op"))
    if len(over):
        paper = over[
            (over["cpu_order"] == PAPER_ORDER[0])
            & (over["gpu_order"] == PAPER_ORDER[1])
            & (~over["contended"].astype(bool))
        ]
        for side in ("cpu", "gpu"):
            one = paper[paper["side"] == side].dropna(subset=["median"])
            if len(one):
                o = one.iloc[0]
                rows.append(
                    (
                        f"One flag read + write on the {side.upper()} (paper Table 1)",
                        f"{o['median']:.4g} ns per pair",
                        f"volatile:relaxed, {int(o['n'])} samples of {int(o['ops_per_sample'])} pairs",
                        _warned(results, [o["record_id"]]),
                    )
                )
    mech = _rows(results, "mechanism", "roundtrip_ns")
    if len(mech):
        sync = mech[mech["mechanism"] == "launch+device-sync"].dropna(subset=["median"])
        if len(sync):
            s = sync.iloc[0]
            rows.append(
                (
                    "Kernel launch + device synchronise",
                    us(s["median"]),
                    f"empty kernel, {int(s['n'])} samples",
                    _warned(results, [s["record_id"]]),
                )
            )
    fit = _rows(results, "clock_fit", "residual_ns")
    if len(fit):
        f = fit.iloc[0]
        noted = _warned(results, [f["record_id"]])
        rows.append(
            (
                "GPU clock drift against the host clock",
                f"{f['drift_ppm']:.3g} ppm",
                f"linear fit of {int(f['samples_used'])} ping-pongs over {f['span_s']:.3g} s",
                noted,
            )
        )
        check = "within" if bool(f["check_within_precision"]) else "outside"
        rows.append(
            (
                "Clock sync precision",
                f"{f['precision_ns']:.4g} ns",
                f"median half round trip; a later check was off by {f['check_error_ns']:.4g} ns, {check} its precision",
                noted,
            )
        )
    rows += _interference_headline(results)
    table = pd.DataFrame(rows, columns=["quantity", "value", "how", "warnings"])
    return table if warnings else table.drop(columns="warnings")


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


def _worst_load(parts: dict):
    """(the worst load point, the Results it is in) over the loads and rates parts, or (None, None)."""
    found = []
    for name in ("loads", "rates"):
        if name in parts:
            try:
                found.append((plots.worst_slowdown(parts[name]), parts[name]))
            except UsageError:  # no load point with an SSB baseline (a run that stopped early)
                pass
    return max(found, key=lambda f: f[0]["slowdown"]) if found else (None, None)


def _interference_headline(results: Results) -> list[tuple[str, str, str, list[str]]]:
    rows = []
    parts = interference_parts(results)
    worst, where = _worst_load(parts)
    if worst is not None:
        gpus = int(worst["load_gpus"])
        rate = "" if worst["load_rate"] == "1" else f" at rate {worst['load_rate']}"
        rows.append(
            (
                "Worst MPI_Send slowdown under GPU traffic",
                f"{ratio_text(worst['slowdown'])}× SSB: {worst['load_kind']} from {gpus} "
                f"GPU{'s' if gpus > 1 else ''}"
                f"{rate}, {worst['traffic_during_send_gbs']:.3g} GB/s during the send, "
                f"{size_label(int(worst['size_bytes']))}",
                f"{worst['layout']}, {worst['access']} access; medians of {int(worst['n'])} sends, each ÷ the "
                "SSB median at its size",
                _warned(where, [worst["record_id"]]),
            )
        )
    triad = _rows(results, "host_memory", "triad_gbs")
    if len(triad):
        t = triad.iloc[0]
        copy = _rows(results, "host_memory", "copy_gbs").iloc[0]
        share = (
            f"; the worst point's GPU traffic is {100 * worst['traffic_during_send_gbs'] / t['max']:.0f}% of triad"
            if worst is not None
            else ""
        )
        rows.append(
            (
                "Host memory bandwidth (STREAM, best of the runs)",
                f"triad {t['max']:.4g} GB/s, copy {copy['max']:.4g} GB/s",
                f"{t['label']}{share}",
                _warned(results, [t["record_id"]]),
            )
        )
    if "paper" in parts:
        paper = parts["paper"]
        send = _rows(paper, "point", "send_time_ns")
        others = send[send["layout"] != "SSB"].dropna(subset=["ratio_to_ssb_median"])
        if len(others):
            w = others.loc[others["ratio_to_ssb_median"].idxmax()]
            rows.append(
                (
                    "Worst slowdown, the paper's writer (message-sized buffer)",
                    f"{ratio_text(w['ratio_to_ssb_median'])}× SSB",
                    f"{w['layout']}, {w['access']} access, {size_label(int(w['size_bytes']))}; medians of "
                    f"{int(w['n'])} sends",
                    _warned(paper, [w["record_id"]]),
                )
            )
            typical = others.groupby("layout")["ratio_to_ssb_median"].median()
            rows.append(
                (
                    "Typical ratio to SSB, the paper's writer (median over sizes and access)",
                    ", ".join(f"{k} {ratio_text(v)}" for k, v in typical.items()),
                    "1 = no interference",
                    condition_warnings(paper, others["record_id"]),
                )
            )
    send = _rows(results, "point", "send_time_ns", probe="interference")
    if len(send):
        bad = send[send["status"] != "ok"]
        rows.append(
            (
                "Payload checks",
                "all intact" if bad.empty else f"{len(bad)} point(s) corrupted",
                f"{len(send)} points; a GPU storing into the send buffer (PSB) tears it by design and is not counted",
                [],
            )
        )
    return rows
