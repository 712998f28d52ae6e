"""The headline numbers of a run: the few a reader wants first, each with how it was measured and the
warnings recorded beside it (the run's conditions, the spread of its samples). A run that lost a
probe still has the others' numbers: a quantity without records is left out, never an error.

MPI_Send under GPU traffic: the headline names the largest slowdown whose 95% interval lies wholly
above 1.05 (the point's `effect`, pooled over launches where there are several), with its SSB and
loaded medians, among the loads and rate steps' points of the step(s) measured in the most launches;
without one it says "no slowdown beyond noise" and shows the largest median ratio with its interval.
An interval wholly below 0.95 is a speed-up, reported with a note to find out why. Files from before
the rounds have no interval: their worst median ratio is shown, as it was."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from .data.converters import paper_config
from .data.loads import worst_slowdown
from .data.results import Results, summary_rows as _rows
from .data.select import pick_setup
from .data.steps import split_launch
from .data.units import size_label
from .errors import UsageError
from .report_notes import MARK, condition_warnings, conditions_by_warning, record_warnings, warned_suffix
from .report_render import Document, number

PAPER_ORDER = ("volatile", "relaxed")  # Elis et al. 2024, Table 1: plain CPU accesses, GPU atomics

# The interference steps of a characterize run: the loads (every kind from the sender's GPU and from
# all), the write load's rate curve, the paper's layout sweep and the cold sends; each step's files are
# <step>.jsonl and its further launches' <step>.launch2.jsonl, ... A lone results file is its own part.
PARTS = {
    "loads": "interference",
    "rates": "interference-rate",
    "paper": "interference-paper",
    "cold": "interference-cold",
}
MARGIN = 0.05  # an effect is claimed where the interval lies wholly beyond 1 ± this (base/effect.hpp)


def ns_text(ns) -> str:
    """A flag's or a launch's time, in ns as the notify and per-GPU tables show it."""
    return f"{number(ns)} ns"


def ratio_text(x: float) -> str:
    """A ratio to SSB as the tables' ×SSB column writes it."""
    return number(x)


def ci_text(low, high) -> str:
    """A 95% interval as the tables show it, "0.97-1.12"; "" without one."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return ""
    return f"{_bound(low)}-{_bound(high)}"


def _bound(x: float) -> str:
    return f"{x:.2f}" if x < 100 else f"{x:,.0f}"


def spread_text(row) -> str:
    """The launches' lowest and highest ratio of a pooled row, "0.98-1.10"; "" for one launch."""
    if row["launches"] < 2 or not np.isfinite(row["ratio_min"]):
        return ""
    return f"{_bound(row['ratio_min'])}-{_bound(row['ratio_max'])}"


def _warned(results: Results, record_ids) -> list[str]:
    """Every warning that applies to numbers from these records: their own, then their runs' conditions."""
    ids = list(record_ids)
    return list(dict.fromkeys(record_warnings(results, ids) + condition_warnings(results, ids)))


def headline(doc: Document, results: Results) -> list[str]:
    """The numbers a reader wants first: a table in the report (⚠N beside a number its run or its
    samples warn about, by the report's numbering), and lines for summary.txt."""
    table = headline_table(results, warnings=True)
    doc.h2("Headline numbers")
    if not len(table):
        doc.para("No probe finished a measurement: see the logs.")
        return []
    values = [v + (f" {doc.marks.mark(w)}" if w else "") for v, w in zip(table["value"], table["warnings"])]
    shown = table.assign(value=values)
    doc.table(shown.drop(columns="warnings"))
    # summary.txt: beside each number only its own samples' warnings; the run's conditions, which
    # apply to every number of a run, are listed once under the numbers.
    # A warning is written out once: a later number it applies to says "as above".
    run, seen, lines = set(conditions_by_warning(results)), set(), []
    for q, v, w in zip(table["quantity"], table["value"], table["warnings"]):
        own = [x for x in w if x not in run]
        new = [x for x in own if x not in seen]
        seen.update(own)
        lines.append(f"{q}: {v}{warned_suffix(new) if new else f'  {MARK} as above' if own else ''}")
    return lines


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
                f"{ns_text(best['median'])} (p10 {ns_text(best['p10'])}, p90 {ns_text(best['p90'])})",
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
                    ns_text(p["median"]),
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
                        f"One flag read + write on the {side.upper()} (Elis et al. 2024, Table 1)",
                        f"{number(o['median'])} ns per pair",
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
                    ns_text(s["median"]),
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
                f"{number(f['drift_ppm'])} ppm",
                f"linear fit of {int(f['samples_used'])} ping-pongs over {f['span_s']:.3g} s",
                noted,
            )
        )
        check = "within" if bool(f["check_within_precision"]) else "outside"
        rows.append(
            (
                "Clock sync precision",
                _precision_text(f),
                f"median half round trip; a later check was off by {number(f['check_error_ns'])} ns, {check} its "
                "precision",
                noted,
            )
        )
    rows += _interference_headline(results)
    table = pd.DataFrame(rows, columns=["quantity", "value", "how", "warnings"])
    return table if warnings else table.drop(columns="warnings")


def _precision_text(fit) -> str:
    """The clock's precision with the fit's residual beside it: the precision bounds a stamp only
    where the stamps kept to their brackets, and a residual above it says they did not (on a busy
    host: 35 ns beside 923 ns), so the residual is what the fit is good to."""
    return f"{number(fit['precision_ns'])} ns (the fit's residual rms: {number(fit['residual_rms_ns'])} ns)"


def _step_files(results: Results, step: str) -> list[str]:
    """The names (no folder) of a step's results files, by launch: <step>.jsonl, <step>.launch2.jsonl, ..."""
    names = {os.path.basename(f) for f in results.files if f.endswith(".jsonl")}
    return sorted((n for n in names if split_launch(n)[0] == step), key=lambda n: split_launch(n)[1])


def interference_parts(results: Results, launches: bool = False) -> dict:
    """{"loads"|"rates"|"paper"|"cold": Results} of the interference steps present: each step's first
    launch (one run, as the plots take it), or with ``launches=True`` every launch of it (as
    Results.interference_ratios pools them). A file of another name is "loads" when it has load kinds
    and "paper" when it has the paper's writer."""
    inter = results.probe("interference")
    parts = {}
    for part, step in PARTS.items():
        files = _step_files(inter, step)
        one = inter.only_files(*(files if launches else files[:1]))
        if len(one.summary):
            parts[part] = one
    if not parts and len(inter.summary):
        paper = all(paper_config(r.get("config") or {}) for r in inter.records if r.get("record") == "header")
        parts["paper" if paper else "loads"] = inter
    return parts


def paper_view(results: Results) -> Results:
    """A characterize run as the paper's layout sweep: its other interference files (the loads, the
    rates, the cold sends) and the paper's further launches left out, where the run has the paper's
    (older runs and single files are returned as they are)."""
    paper = _step_files(results, PARTS["paper"])
    if f"{PARTS['paper']}.jsonl" not in paper:
        return results
    others = [n for part in ("loads", "rates", "cold") for n in _step_files(results, PARTS[part])]
    return results.without_files(*others, *paper[1:])


def _worst_load(parts: dict):
    """(the worst load point, the Results it is in) over the loads and rates parts, or (None, None)."""
    found = []
    for name in ("loads", "rates"):
        if name in parts:
            try:
                found.append((worst_slowdown(parts[name]), parts[name]))
            except UsageError:  # no load point with an SSB baseline (a run that stopped early)
                pass
    return max(found, key=lambda f: f[0]["slowdown"]) if found else (None, None)


def time_text(ns) -> str:
    """A send time in µs, as the interference tables show it: "1.452 µs", "2350 µs"."""
    return f"{number(ns / 1e3)} µs"


def gap_text(label: str) -> str:
    """What the sender did before each send, from its --gap label."""
    if str(label).startswith("sweep:"):
        return f"a {label[len('sweep:') :]} buffer swept before each send"
    return f"{label} of spinning before each send"


def ratio_rows(part: Results) -> pd.DataFrame:
    """The pooled points of one interference part (Results.interference_ratios), SSB included."""
    return part.interference_ratios()


def has_intervals(rows: pd.DataFrame) -> bool:
    """Whether these points were measured in rounds (files from before the rounds have no intervals)."""
    return bool(len(rows)) and bool(rows["rounds"].notna().any())


def loaded(rows: pd.DataFrame) -> pd.DataFrame:
    """The points with a ratio to SSB (every layout but SSB's)."""
    return rows[(rows["layout"] != "SSB") & np.isfinite(rows["ratio"])]


def point_text(row) -> str:
    """ "write from 1 GPU, 16 MiB: SSB 2353 µs, loaded 2689 µs, 52.08 GB/s during the send"."""
    gpus = int(row["load_gpus"])
    rate = "" if row["load_rate"] == "1" else f" at rate {row['load_rate']}"
    traffic = f", {number(row['traffic_gbs'])} GB/s during the send" if np.isfinite(row["traffic_gbs"]) else ""
    return (
        f"{row['load_kind']} from {gpus} GPU{'s' if gpus > 1 else ''}{rate}, {size_label(int(row['size_bytes']))}: "
        f"SSB {time_text(row['ssb_median_ns'])}, loaded {time_text(row['median_ns'])}{traffic}"
    )


def how_text(row) -> str:
    """How a pooled point's ratio and interval were measured."""
    where = f"{row['layout']}, {row['access']} access"
    if row["gap"] != "0":
        where += f", {gap_text(row['gap'])}"
    if row["launches"] > 1:
        interval = "its 95% interval from their spread" if row["launches"] >= 3 else "no interval under 3 launches"
        return f"{where}; the median of {int(row['launches'])} launches' ratios ({spread_text(row)}), {interval}"
    if not np.isfinite(row["rounds"]):
        return f"{where}; the median of {int(row['n'])} sends ÷ the SSB median at its size"
    return (
        f"{where}; the median over {int(row['rounds'])} rounds of each round's median ÷ the same round's SSB "
        f"median ({int(row['reps'])} sends per visit), its 95% interval over the rounds"
    )


def _ci_clause(row) -> str:
    ci = ci_text(row["ratio_ci95_low"], row["ratio_ci95_high"])
    return f" (95% CI {ci})" if ci else " (no 95% interval)"


def _short_text(row) -> str:
    """ "copy-d2h x1 16 MiB 1.13×": a point and its ratio, for a list."""
    rate = "" if row["load_rate"] == "1" else f" @{row['load_rate']}"
    return (
        f"{row['load_kind']}{rate} x{int(row['load_gpus'])} {size_label(int(row['size_bytes']))} "
        f"{ratio_text(row['ratio'])}×"
    )


def _near_ties(top, claimed: list) -> str:
    """The other claimed slowdowns whose intervals reach the largest's, named beside it: which of
    them is largest is within the noise, so a rerun may name another (up to 3, largest first)."""
    low = top["ratio_ci95_low"]
    if not np.isfinite(low):
        return ""
    ties = [r for r in claimed if r is not top and np.isfinite(r["ratio_ci95_high"]) and r["ratio_ci95_high"] >= low]
    if not ties:
        return ""
    ties.sort(key=lambda r: -r["ratio"])
    more = f" (+{len(ties) - 3} more)" if len(ties) > 3 else ""
    return "; as large within the noise: " + ", ".join(_short_text(r) for r in ties[:3]) + more


def _slowdown_row(quantity: str, candidates: list, every: dict) -> tuple | None:
    """The headline of one set of (part, pooled row): the largest slowdown its interval supports, else
    "no slowdown beyond noise" with the largest median ratio; None without points."""
    if not candidates:
        return None
    claims = [c for c in candidates if c[1]["effect"] == "slowdown"]
    part, row = max(claims or candidates, key=lambda c: c[1]["ratio"])
    how = how_text(row)
    if claims:
        value = f"{ratio_text(row['ratio'])}× SSB{_ci_clause(row)}: {point_text(row)}"
        value += _near_ties(row, [c[1] for c in claims])
        how += f"; claimed: the interval lies wholly above {1 + MARGIN:g}"
    elif any(isinstance(c[1]["effect"], str) for c in candidates):
        value = f"no slowdown beyond noise: the largest median ratio is {ratio_text(row['ratio'])}× SSB"
        value += f"{_ci_clause(row)}, {point_text(row)}"
        how += f"; no point's interval lies wholly above {1 + MARGIN:g}"
    else:
        value = f"no 95% interval to judge by: the largest median ratio is {ratio_text(row['ratio'])}× SSB, "
        value += point_text(row)
        how += "; an interval needs 6 rounds or more in one launch, or 3 launches or more"
    return (quantity, value, how, _warned(every[part], row["record_ids"])), row


def _speedup_row(candidates: list, every: dict) -> tuple | None:
    """Points whose interval lies wholly below 1 - MARGIN: the fastest, with the note to find out why."""
    ups = [c for c in candidates if c[1]["effect"] == "speedup"]
    if not ups:
        return None
    part, row = min(ups, key=lambda c: c[1]["ratio"])
    more = f"; {len(ups)} points in all" if len(ups) > 1 else ""
    return (
        "MPI_Send speed-up under GPU traffic (not expected)",
        f"{ratio_text(row['ratio'])}× SSB{_ci_clause(row)}: {point_text(row)}{more}",
        f"{how_text(row)}. GPU traffic is not expected to make a send faster: find out why (the SSB "
        "rounds' drift warning, the CPU's frequency and idle states, where the payload and the load buffers lie)",
        _warned(every[part], row["record_ids"]),
    )


def _cold_idle_row(cold: pd.DataFrame, warm: pd.DataFrame, every: dict) -> tuple | None:
    """A cold send with the GPU idle against a back-to-back one: the SSB medians at each size."""
    ssb = cold[cold["layout"] == "SSB"].sort_values("size_bytes")
    if ssb.empty:
        return None
    back = warm[(warm["layout"] == "SSB") & (warm["gap"] == "0")] if len(warm) else warm
    texts, ids = [], []
    for _, c in ssb.iterrows():
        same = (
            back[
                (back["size_bytes"] == c["size_bytes"])
                & (back["access"] == c["access"])
                & (back["send_mode"] == c["send_mode"])
            ]
            if len(back)
            else back
        )
        text = f"{size_label(int(c['size_bytes']))}: {time_text(c['median_ns'])} cold"
        if len(same):
            w = same.iloc[0]
            more = c["median_ns"] - w["median_ns"]
            change = f"{time_text(abs(more))} {'more' if more > 0 else 'less'}" if abs(more) >= 0.5 else "the same"
            text += f", {time_text(w['median_ns'])} back to back ({change})"
        else:
            text += " (no back-to-back SSB at this size)"
        texts.append(text)
        ids += list(c["record_ids"])
    first = ssb.iloc[0]
    launches = int(ssb["launches"].max())
    return (
        f"Cold MPI_Send, the GPU idle ({gap_text(first['gap'])})",
        "; ".join(texts),
        f"SSB medians of interference-cold and of interference (back to back), {first['access']} access"
        + (f"; each the median over {launches} launches" if launches > 1 else ""),
        _warned(every["cold"], ids),
    )


def _most_launched(tables: dict, parts: tuple) -> list[str]:
    """Of these parts, those measured in the most launches: by default the loads step has 3 and the
    rate step 1, and a one-launch interval (over rounds) misses the launch-to-launch noise that a
    three-launch one (over launches) holds, so the headline rests on the launches."""
    present = {p: tables[p]["launches"].max() for p in parts if p in tables and len(tables[p])}
    most = max(present.values(), default=0)
    return [p for p, n in present.items() if n == most]


def _judged_headline(every: dict, tables: dict) -> tuple[list, object]:
    """The rows of a run measured in rounds: warm slowdown, cold sends, speed-ups; and the warm row
    the headline names (for the host memory row's share of triad), or None."""
    rows, chosen = [], None
    warm = [(p, r) for p in _most_launched(tables, ("loads", "rates")) for _, r in loaded(tables[p]).iterrows()]
    cold = [("cold", r) for _, r in loaded(tables["cold"]).iterrows()] if "cold" in tables else []
    found = _slowdown_row("MPI_Send slowdown under GPU traffic", warm, every)
    if found:
        rows.append(found[0])
        chosen = found[1]
    if "cold" in tables:
        idle = _cold_idle_row(tables["cold"], tables.get("loads", tables.get("rates", pd.DataFrame())), every)
        if idle:
            rows.append(idle)
        found = _slowdown_row("Cold MPI_Send slowdown under GPU traffic", cold, every)
        if found:
            rows.append(found[0])
    up = _speedup_row(warm + cold, every)
    if up:
        rows.append(up)
    return rows, chosen


def _interference_headline(results: Results) -> list[tuple[str, str, str, list[str]]]:
    rows = []
    parts = interference_parts(results)
    every = interference_parts(results, launches=True)
    tables = {p: ratio_rows(every[p]) for p in ("loads", "rates", "cold", "paper") if p in every}
    rounds = any(has_intervals(t) for t in tables.values())
    traffic, whose = None, "the worst point's"
    if rounds:
        judged, chosen = _judged_headline(every, tables)
        rows += judged
        if chosen is not None and np.isfinite(chosen["traffic_gbs"]):
            traffic, whose = chosen["traffic_gbs"], "the headline point's"
    else:  # files from before the rounds: the worst median ratio, as it was shown then
        worst, where = _worst_load(parts)
        if worst is not None:
            gpus = int(worst["load_gpus"])
            rate = "" if worst["load_rate"] == "1" else f" at rate {worst['load_rate']}"
            rows.append(
                (
                    "Worst MPI_Send slowdown under GPU traffic",
                    f"{ratio_text(worst['slowdown'])}× SSB: {worst['load_kind']} from {gpus} "
                    f"GPU{'s' if gpus > 1 else ''}"
                    f"{rate}, {number(worst['traffic_during_send_gbs'])} GB/s during the send, "
                    f"{size_label(int(worst['size_bytes']))}",
                    f"{worst['layout']}, {worst['access']} access; medians of {int(worst['n'])} sends, each ÷ the "
                    "SSB median at its size",
                    _warned(where, [worst["record_id"]]),
                )
            )
            traffic = worst["traffic_during_send_gbs"]
    triad = _rows(results, "host_memory", "triad_gbs")
    if len(triad):
        t = triad.iloc[0]
        copy = _rows(results, "host_memory", "copy_gbs").iloc[0]
        share = f"; {whose} GPU traffic is {100 * traffic / t['max']:.0f}% of triad" if traffic is not None else ""
        rows.append(
            (
                "Host memory bandwidth (STREAM, best of the runs)",
                f"triad {number(t['max'])} GB/s, copy {number(copy['max'])} GB/s",
                f"{t['label']}{share}",
                _warned(results, [t["record_id"]]),
            )
        )
    if "paper" in parts:
        rows += _paper_rows(parts["paper"], every["paper"], tables["paper"])
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


def _paper_rows(paper: Results, every: Results, table: pd.DataFrame) -> list:
    """The paper's writer: its largest ratio (with its interval where measured in rounds) and the typical one."""
    if has_intervals(table):
        others = loaded(table)
        if not len(others):
            return []
        w = others.loc[others["ratio"].idxmax()]
        effect = f", {w['effect']}" if isinstance(w["effect"], str) else ""
        ci = ci_text(w["ratio_ci95_low"], w["ratio_ci95_high"])
        typical = others.groupby("layout")["ratio"].median()
        ids = [i for group in others["record_ids"] for i in group]
        return [
            (
                "Largest ratio to SSB, the paper's writer (message-sized buffer)",
                f"{ratio_text(w['ratio'])}× SSB" + (f" (95% CI {ci}{effect})" if ci else ""),
                f"{size_label(int(w['size_bytes']))}; {how_text(w)}",
                _warned(every, w["record_ids"]),
            ),
            (
                "Typical ratio to SSB, the paper's writer (median over sizes and access)",
                ", ".join(f"{k} {ratio_text(v)}" for k, v in typical.items()),
                "1 = no interference",
                condition_warnings(every, ids),
            ),
        ]
    send = _rows(paper, "point", "send_time_ns")
    others = send[send["layout"] != "SSB"].dropna(subset=["ratio_to_ssb_median"])
    if not len(others):
        return []
    w = others.loc[others["ratio_to_ssb_median"].idxmax()]
    typical = others.groupby("layout")["ratio_to_ssb_median"].median()
    return [
        (
            "Worst slowdown, the paper's writer (message-sized buffer)",
            f"{ratio_text(w['ratio_to_ssb_median'])}× SSB",
            f"{w['layout']}, {w['access']} access, {size_label(int(w['size_bytes']))}; medians of {int(w['n'])} sends",
            _warned(paper, [w["record_id"]]),
        ),
        (
            "Typical ratio to SSB, the paper's writer (median over sizes and access)",
            ", ".join(f"{k} {ratio_text(v)}" for k, v in typical.items()),
            "1 = no interference",
            condition_warnings(paper, others["record_id"]),
        ),
    ]
