"""The report's interference sections: the loads (interference, interference-rate), the cold sends
(interference-cold) and the paper's layouts (interference-paper), each step's launches pooled in its
tables."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from .. import plots
from ..data.loads import KIND_ORDER, load_points, load_table
from ..data.rates import is_full
from ..data.results import Results
from ..data.steps import split_launch
from ..data.units import size_label
from ..plots.style import ACCESS_ORDER, LAYOUT_ORDER
from .notes import flagged_table, guarded, record_warnings
from .parts import MARGIN, PARTS, has_intervals, interference_parts, loaded, ratio_rows, step_files
from .render import Document
from .sections import marked, open_section, save
from .texts import ci_text, gap_text, ratio_text, spread_text


def interference_section(doc: Document, results: Results, directory: Path, problems: dict | None = None) -> None:
    """The loads (interference, interference-rate), the cold sends (interference-cold) and the paper's
    layouts (interference-paper), each step's launches pooled in its tables; `problems`: {step or
    launch name ("interference.launch2"): why it failed}."""
    problems = problems or {}
    parts = interference_parts(results)
    every = interference_parts(results, launches=True)

    def of(*steps):
        return [why for name, why in problems.items() if split_launch(name)[0] in steps]

    explained = []  # the rounds and launches are explained above the first table of ratios
    load_problems = of("interference", "interference-rate")
    if "loads" in parts or "rates" in parts or load_problems:
        _loads_section(doc, parts, every, results, directory, load_problems, explained)
    if "cold" in parts or of("interference-cold"):
        _cold_section(doc, every, of("interference-cold"), explained)
    if "paper" in parts or of("interference-paper"):
        _paper_section(doc, parts.get("paper"), every.get("paper"), directory, of("interference-paper"), explained)


def ratio_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The loaded points of a pooled table (Results.interference_ratios) as the report shows them, one
    row per point: kind, GPUs, rate, layout and access where they vary, size, the median send time
    (µs), the SSB median of the same rounds, ratio_to_ssb with its 95% interval (ci95) and effect, the
    launches' lowest and highest ratio where there are several, and the traffic during the sends."""
    points = loaded(rows).copy()
    for column, order in (("load_kind", KIND_ORDER), ("layout", LAYOUT_ORDER), ("access", ACCESS_ORDER)):
        rank = {k: i for i, k in enumerate(order)}
        points[f"_{column}"] = points[column].map(lambda k, rank=rank: rank.get(k, len(rank)))
    points = points.sort_values(
        ["_load_kind", "load_gpus", "load_rate", "_layout", "_access", "size_bytes"], kind="stable"
    )
    table = pd.DataFrame({"kind": points["load_kind"], "GPUs": points["load_gpus"].astype(int)})
    for column, name in (("load_rate", "rate"), ("layout", "layout"), ("access", "access")):
        if points[column].nunique() > 1:
            table[name] = points[column]
    table["size"] = [size_label(int(b)) for b in points["size_bytes"]]
    table["µs"] = points["median_ns"] / 1e3
    table["SSB µs"] = points["ssb_median_ns"] / 1e3
    table["ratio_to_ssb"] = points["ratio_to_ssb"]
    table["ci95"] = [
        ci_text(lo, hi) for lo, hi in zip(points["ratio_to_ssb_ci95_low"], points["ratio_to_ssb_ci95_high"])
    ]
    table["effect"] = [e if isinstance(e, str) else "" for e in points["effect"]]
    if (points["launches"] > 1).any():
        table["launches"] = [spread_text(row) for _, row in points.iterrows()]
    table["GB/s"] = points["traffic_gbs"]
    return table.reset_index(drop=True)


def _ratio_note(rows: pd.DataFrame) -> str:
    """How the ratios of a pooled table were measured, for the paragraph above its table."""
    points = loaded(rows)
    first = points.iloc[0]
    text = (
        f"Each size in {int(first['rounds'])} rounds, each visiting SSB and every point once in a shuffled order, "
        f"{int(first['reps'])} timed sends per visit; ratio_to_ssb is the median over the rounds of the round's "
        "median ÷ the same round's SSB median, ci95 its 95% interval (docs/metrics.md), effect a slowdown or speed-up "
        f"where that interval lies wholly beyond 1 ± {MARGIN:g}."
    )
    launches = int(points["launches"].max())
    if launches > 1:
        text += (
            f" Pooled over {launches} launches (each a separate mpirun): ratio_to_ssb is the median of the launches' "
            "ratios, ci95 from their spread (3 launches or more), launches their lowest and highest ratio; µs, SSB µs "
            "and GB/s are medians over the launches."
        )
    return text


def _pooled_table(doc: Document, part: Results, rows: pd.DataFrame, intro: str, explained: list) -> None:
    """A pooled part's ratio table with the warnings of each row's records; how its ratios were
    measured above the first such table (`explained`: the notes already written)."""
    points = loaded(rows)
    if not len(points):
        return
    note = _ratio_note(rows)
    if note not in explained:
        doc.para(note)
        explained.append(note)
    fixed = [f"{points[c].iloc[0]}" for c in ("layout", "access") if points[c].nunique() == 1]
    doc.para(intro.rstrip(":") + (f" ({', '.join(fixed)})" if fixed else "") + ":")
    flagged_table(doc, ratio_table(rows), [record_warnings(part, ids) for ids in points["record_ids"]])


def _loads_section(
    doc: Document, parts: dict, every: dict, results: Results, directory: Path, problems: list, explained: list
) -> None:
    names = [os.path.basename(f) for p in ("loads", "rates") if p in every for f in every[p].files]
    # Both steps' runs: the conditions of either apply to the section's tables.
    if not open_section(doc, "Interference: GPU traffic during MPI_Send", results.only_files(*names), problems):
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
    main = [parts[p] for p in ("loads", "rates") if p in parts][0]
    pooled = {p: ratio_rows(every[p]) for p in ("loads", "rates") if p in every}
    if any(has_intervals(t) for t in pooled.values()):
        for part, intro in (
            ("loads", "Each kind, from the sender's GPU and from every GPU: median send time, ratio_to_ssb, traffic:"),
            ("rates", "The write load at several rates (fractions of its full rate on each GPU):"),
        ):
            if part in pooled:
                guarded(
                    doc,
                    f"The {part} table",
                    lambda p=part, i=intro: _pooled_table(doc, every[p], pooled[p], i, explained),
                )
    else:  # files from before the rounds: the first file's medians, as shown then
        guarded(doc, "The load table", lambda: _load_table(doc, main))
    _load_plots(doc, every, results, directory, main)


def _load_table(doc: Document, main: Results) -> None:
    """The first file's medians per kind and GPU count at full rate (files from before the rounds)."""
    t = load_table(main).drop(columns="step")
    if len(t):
        points = load_points(main)
        points = points[points["load_rate"].map(is_full)].explode("record_ids")
        points = points.rename(columns={"record_ids": "record_id"})
        doc.para(
            "Each kind at full rate, from the sender's GPU and from every GPU: median send time, slowdown "
            "(÷ SSB) and traffic during the sends:"
        )
        flagged_table(doc, t, marked(points, ["load_kind", "load_gpus"], zip(t["kind"], t["gpus"]), main))


def _load_plots(doc: Document, every: dict, results: Results, directory: Path, main: Results) -> None:
    both = every.get("loads")
    if both is not None and both.summary["load_gpus"].max() > 1:
        guarded(
            doc,
            "The GPU-count plot",
            lambda: doc.image(
                save(plots.slowdown_vs_gpus(both), directory, "interference_gpus.png"),
                "Slowdown against the number of GPUs loading at once (0 = SSB), per kind, full rate",
            ),
        )
    inter = results.probe("interference")
    curve = inter.only_files(*(f for p in ("loads", "rates") for f in step_files(inter, PARTS[p])))
    guarded(
        doc,
        "The traffic plot",
        lambda: doc.image(
            save(
                plots.slowdown_vs_traffic(curve if len(curve.summary) else main), directory, "interference_traffic.png"
            ),
            "Slowdown against the GPU traffic measured during the sends, each point against its own rounds' SSB "
            "and pooled over its step's launches: every kind at full rate from 1 and from all GPUs, and the write "
            "load at several rates (@rate)",
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


def _cold_section(doc: Document, every: dict, problems: list, explained: list) -> None:
    """interference-cold: the SSB send after computing against the back-to-back one (the loads' step),
    and the cold sends' ratios under each load."""
    cold = every.get("cold")
    if not open_section(doc, "Cold sends: the sender computes before each send", cold or Results.empty(), problems):
        return
    rows = ratio_rows(cold)
    gap = gap_text(rows.iloc[0]) if len(rows) else "a gap before each send"
    doc.para(
        f"Applications send after computing, not back to back: here the sending rank runs {gap} (`--gap`), "
        "the baseline and the loaded sends alike, and the GPU traffic is that of the loads above, from the "
        "sender's GPU."
    )

    def idle():
        ssb = rows[rows["layout"] == "SSB"].sort_values("size_bytes")
        table = pd.DataFrame({"size": [size_label(int(b)) for b in ssb["size_bytes"]], "access": ssb["access"]})
        table["cold µs"] = (ssb["median_ns"] / 1e3).to_numpy()
        table["warm µs"] = (ssb["warm_median_ns"] / 1e3).to_numpy()
        table["cold ÷ warm"] = [ratio_text(r) for r in ssb["cold_ratio"]]
        table["95% CI"] = [
            ci_text(low, high) for low, high in zip(ssb["cold_ratio_ci95_low"], ssb["cold_ratio_ci95_high"])
        ]
        doc.para(
            "With the GPU idle (SSB): each visit times cold and warm (back-to-back) sends interleaved in a "
            "seeded order, and cold ÷ warm is paired round by round"
            + (", its interval over the launches" if (ssb["launches"] > 1).any() else ", its interval over rounds")
            + ":"
        )
        flagged_table(doc, table, [record_warnings(cold, ids) for ids in ssb["record_ids"]])

    guarded(doc, "The idle cold-send table", idle)
    guarded(
        doc,
        "The cold load table",
        lambda: _pooled_table(doc, cold, rows, "Under each load, the sends cold:", explained),
    )


def _paper_section(
    doc: Document, paper: Results | None, every: Results | None, directory: Path, problems: list, explained: list
) -> None:
    if not open_section(
        doc,
        "The paper's layouts: its writer in a message-sized buffer",
        paper if paper is not None else Results.empty(),
        problems,
    ):
        return
    drawn = every if every is not None else paper  # every launch, pooled
    doc.para(
        "Elis et al., Sec. 4.3: SSB (the GPU wrote the buffer and finished), PSB (it keeps writing the send "
        "buffer), PCB (a buffer right after it), P2AB (a buffer 2 MiB away), each the size of the message; "
        "stream = one block, stacked = the whole GPU, grid-synchronised between passes."
    )
    guarded(
        doc,
        "The send-time plot",
        lambda: doc.image(
            save(plots.send_time(drawn), directory, "interference_send_time.png"),
            "MPI_Send time against message size, median with the p10-p90 band of one launch, or the 95% interval "
            "over several (as in Elis et al. 2024, Figures 6-11)",
        ),
    )
    guarded(
        doc,
        "The ratio plot",
        lambda: doc.image(
            save(plots.ratio_to_ssb(drawn), directory, "interference_ratio.png"),
            "Median MPI_Send time divided by the SSB median at the same size and access mode",
        ),
    )

    def table():
        send = ratio_rows(drawn).explode("record_ids").rename(columns={"record_ids": "record_id"})
        send["size"] = send["size_bytes"].map(lambda b: size_label(int(b)))
        t = (
            send.pivot_table(index=["access", "size_bytes", "size"], columns="layout", values="median_ns", sort=True)
            / 1000
        )
        t = t[[c for c in LAYOUT_ORDER if c in t.columns]]
        noted = marked(send, ["access", "size_bytes"], [k[:2] for k in t.index], drawn)
        launches = int(send["launches"].max())
        over = f" (the median over {launches} launches, as in the plots)" if launches > 1 else ""
        doc.para(f"Median MPI_Send time (µs) per point{over}:")
        flagged_table(doc, t.reset_index().drop(columns="size_bytes"), noted)

    guarded(doc, "The table of send times", table)
    rows = ratio_rows(every) if every is not None else None
    if rows is not None and has_intervals(rows):
        guarded(
            doc,
            "The ratio table",
            lambda: _pooled_table(doc, every, rows, "Each layout's ratio to SSB at its size and access:", explained),
        )
