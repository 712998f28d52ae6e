"""The headline numbers of a run: the few a reader wants first, each with how it was measured and the
warnings recorded beside it (the run's conditions, the spread of its samples). A run that lost a
probe still has the others' numbers: a quantity without records is left out, never an error. The
interference rows are interference_headline's."""

from __future__ import annotations

import json

import pandas as pd

from .. import _rules  # the compiled module: the headline's choices are made once, in C++
from ..data.results import Results, summary_rows as _rows
from ..data.run_steps import as_results
from ..data.select import pick_setup
from .interference_headline import interference_headline
from .notes import MARK, conditions_by_warning, warned, warned_suffix
from .render import Document, number
from .texts import ns_text

PAPER_ORDER = ("volatile", "relaxed")  # Elis et al. 2024, Table 1: plain CPU accesses, GPU atomics


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


def headline_table(results, warnings: bool = False) -> pd.DataFrame:
    """The headline numbers of a run (a Results, a run directory or results files) as text: columns
    quantity, value (with its unit), how (measured); with ``warnings=True`` also warnings, the list of
    warnings that apply to each number. The numbers of the interference headline, as numbers, are
    characterize.json's "headline"."""
    results = as_results(results)
    rows: list[tuple[str, str, str, list[str]]] = []
    rt = pick_setup(_rows(results, "roundtrip", "roundtrip_ns"))
    host_rt = rt[rt["direction"] == "cpu-gpu-cpu"].dropna(subset=["median"]) if len(rt) else rt
    if len(host_rt):
        best = host_rt.iloc[_rules.fastest_time(host_rt["median"].tolist())]
        rows.append(
            (
                "CPU→GPU→CPU flag round trip, fastest order",
                f"{ns_text(best['median'])} (p10 {ns_text(best['p10'])}, p90 {ns_text(best['p90'])})",
                f"{best['cpu_order']}:{best['gpu_order']} flags, {int(best['n'])} exchanges, host clock",
                warned(results, [best["record_id"]]),
            )
        )
        paper = host_rt[(host_rt["cpu_order"] == PAPER_ORDER[0]) & (host_rt["gpu_order"] == PAPER_ORDER[1])]
        rows += _median_row(
            results, paper, "CPU→GPU→CPU flag round trip, paper's order", "volatile:relaxed, {n} exchanges"
        )
    rows += _table1_rows(results)
    mech = _rows(results, "mechanism", "roundtrip_ns")
    if len(mech):
        sync = mech[mech["mechanism"] == "launch+device-sync"].dropna(subset=["median"])
        rows += _median_row(results, sync, "Kernel launch + device synchronise", "empty kernel, {n} samples")
    fit = _rows(results, "clock_fit", "residual_ns")
    if len(fit):
        f = fit.iloc[0]
        noted = warned(results, [f["record_id"]])
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
    rows += interference_headline(results)
    rows += _pair_across_hosts(results)
    table = pd.DataFrame(rows, columns=["quantity", "value", "how", "warnings"])
    return table if warnings else table.drop(columns="warnings")


def _median_row(results: Results, records: pd.DataFrame, quantity: str, how: str) -> list[tuple]:
    """The headline row of the median time of `records`' first (no row where there is none): `how`
    with its sample count in place of {n}, and the warnings that apply to that record."""
    if not len(records):
        return []
    r = records.iloc[0]
    return [(quantity, ns_text(r["median"]), how.format(n=int(r["n"])), warned(results, [r["record_id"]]))]


def _pair_across_hosts(results: Results) -> list[tuple]:
    """A row saying that the interference pair crossed hosts, where it did: its numbers are then a
    network's, not one node's (the sentence is C++'s, as `show` prints it)."""
    from .. import _rules  # the compiled module: how a message went is read once, in C++

    for r in results.records:
        if r.get("record") == "header" and r.get("probe") == "interference":
            across, text = _rules.message_path(json.dumps({k: v for k, v in r.items() if not k.startswith("_")}))
            if across:
                return [("MPI pair across hosts", text, "the interference header's ranks", [])]
            return []
    return []


# Each timer's own cost, as the handover records measure it: (the timer's name, what was timed).
TIMER_COST = {
    "tsc": ("the TSC's", "empty region"),
    "steady_clock": ("steady_clock's", "empty region"),
    "device": ("the device timer's", "back-to-back read"),
}


def _table1_rows(results: Results) -> list[tuple[str, str, str, list[str]]]:
    """Elis et al. 2024, Table 1 in the paper's order: one read + one write of a flag the other side
    wrote last, beyond the timer's own cost (the handover records' pair_beyond_timer_ns)."""
    pairs = pick_setup(_rows(results, "handover", "pair_ns"))
    if not len(pairs):
        return []
    timers = _rows(results, "handover", "timer_cost_ns").set_index("record_id")["median"]
    paper = pairs[(pairs["cpu_order"] == PAPER_ORDER[0]) & (pairs["gpu_order"] == PAPER_ORDER[1])]
    rows = []
    for side, other in (("cpu", "GPU"), ("gpu", "CPU")):
        one = paper[paper["side"] == side]
        if not len(one):
            continue
        h = one.iloc[0]
        name, region = TIMER_COST.get(h["timer"], (f"{h['timer']}'s", "empty region"))
        rows.append(
            (
                f"One flag read + write on the {side.upper()} (Elis et al. 2024, Table 1)",
                f"{number(h['pair_beyond_timer_ns'])} ns per pair beyond {name} "
                f"{number(timers[h['record_id']])} ns {region}",
                f"volatile:relaxed, {int(h['n'])} pairs each timed alone on a flag the {other} wrote last; "
                f"median as timed {number(h['median'])} ns",
                warned(results, [h["record_id"]]),
            )
        )
    return rows


def _precision_text(fit) -> str:
    """The clock's precision with the fit's residual beside it: the precision bounds a stamp only
    where the stamps kept to their brackets, and a residual above it says they did not (on a busy
    host: 35 ns beside 923 ns), so the residual is what the fit is good to."""
    return f"{number(fit['precision_ns'])} ns (the fit's residual rms: {number(fit['residual_rms_ns'])} ns)"
