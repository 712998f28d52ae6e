"""The report's per-GPU section: one row per GPU (hetprobe.node.gpus.per_gpu), the GPUs flagged beside
their numbers, a panel per metric across GPUs, bandwidth's every row per GPU, and the lines of
summary.txt that name them."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .. import plots
from ..data.results import Results, summary_rows
from ..node import gpus, verdict as node_verdict
from .notes import MARK, conditions_note, flagged_table, guarded, warnings_by
from .render import Document, number as _number
from .sections import save

# A flagged GPU's number in report.md: not ⚠, which there means a numbered warning.
FLAG = "⚑"


def link_text(row) -> str:
    """ "16 GT/s x16 of 16 GT/s x16" from a per_gpu row; else how it was (not) read."""
    now, top = row["link speed (GT/s)"], row["link max speed (GT/s)"]
    width, widest = row["link width (lanes)"], row["link max width (lanes)"]
    if not np.isfinite(now) and not np.isfinite(width):
        return str(row["link read"])
    return f"{_number(now)} GT/s x{_number(width)} of {_number(top)} GT/s x{_number(widest)}"


def display_table(table: pd.DataFrame, anomalies: list[dict]) -> pd.DataFrame:
    """The per-GPU table as the report shows it: ⚑ beside each flagged number, the link in one column."""
    flagged = {}
    for a in anomalies:
        flagged.setdefault((a["gpu"], a["metric"]), []).append(a)
    rows = []
    for _, row in table.iterrows():
        gpu = int(row["GPU"])
        link = link_text(row)
        if any((gpu, m.key) in flagged for m in gpus.LINK_METRICS):
            link += f" {FLAG}"
        out = {
            "GPU": gpu,
            "PCI address": row["PCI address"] or "",
            "NUMA node": row["NUMA node"] or "",
            "link (GT/s, lanes: now of max)": link,
        }
        for m in gpus.METRICS:
            out[m.column] = _number(row[m.column]) + (f" {FLAG}" if (gpu, m.key) in flagged else "")
        rows.append(out)
    return pd.DataFrame(rows)


def _bandwidth_rows(results: Results) -> pd.DataFrame:
    """Median GB/s of every bandwidth row (rows) per GPU (columns)."""
    rows = summary_rows(results.probe("bandwidth"), "point", "gbs")
    if not len(rows):
        return pd.DataFrame()
    t = rows.pivot_table(index="writer", columns="rank", values="median", sort=False)
    return t.rename(columns=lambda r: f"GPU {r} (GB/s)")


def gpu_section(
    doc: Document,
    results: Results,
    directory: Path,
    table: pd.DataFrame,
    verdict: dict,
    anomalies: list[dict],
    baseline: dict | None,
) -> None:
    doc.h2("Every GPU")
    if not len(table):
        doc.para("No per-GPU records (gpus, notify, clock, bandwidth): nothing to compare.")
        return
    per_gpu = results.headers[results.headers["probe"].isin(gpus.PER_GPU_PROBES)]
    conditions_note(doc, results.only_files(*(os.path.basename(f) for f in per_gpu["file"])))
    setups = sorted({s for s in table["round trip setup"] if isinstance(s, str)})
    many = len(table) > 1
    rounds = bool(verdict.get("per_gpu"))
    doc.para(
        ("Every GPU ran on its own rank (the GPU column is the rank). " if many else "")
        + (
            "round trip, launch+sync, write, read, copy-d2h, copy-h2d: the medians of the gpus step's visits "
            f"({verdict.get('launches')} launch(es) of rounds that visit the GPUs in a shuffled order, each visit "
            "in a pinned buffer and flags of its own): the host-timed CPU→GPU→CPU flag round trip "
            "(volatile:relaxed pinned flags), an empty kernel's launch + device synchronise, and the plain passes "
            "over the pinned buffer (GB/s = 10^9 B/s); "
            if rounds
            else "round trip: the host-timed CPU→GPU→CPU flag round trip median"
            + (f" ({', '.join(setups)})" if setups else "")
            + "; launch+sync: the launch+device-sync mechanism's round trip median (an empty kernel); write, read, "
            "copy-d2h, copy-h2d: the medians of bandwidth's plain passes over its pinned buffer (GB/s = 10^9 B/s); "
        )
        + "clock drift and precision: the clock fit. The link: PCIe speed and width from sysfs, read while the GPU "
        "ran the write load (an idle NVIDIA GPU lowers its link speed)."
    )
    doc.table(display_table(table, anomalies))
    tolerance = node_verdict.tolerance_text(verdict.get("tolerance", node_verdict.DEFAULT_TOLERANCE))
    rule = (
        f"{FLAG} marks a GPU whose ratio to {verdict.get('reference', 'the node')} (paired round by round) lies "
        f"wholly beyond {tolerance} (times up, GB/s down), over every launch's rounds, and that one more launch "
        "re-measured and confirmed; or a link below its maximum. Clock drift and precision are shown, not "
        "compared: each GPU's timer has its own oscillator, and the precision is half the round trip."
        if many
        else f"One GPU: no other to compare it with; {FLAG} flags a link below its maximum."
    )
    flagged = verdict.get("flags") or []
    doc.para(rule + ("" if flagged else " No GPU is flagged."))
    if flagged:
        doc.bullets([f"{_STATUS.get(f['status'], f['status'])}: {f['line']}" for f in flagged])
    for note in verdict.get("notes") or []:
        doc.para(note[:1].upper() + note[1:] + ".")
    if baseline:
        outside = [a for a in anomalies if a["reference_kind"] == "baseline"]
        doc.para(
            f"Against the baseline `{baseline.get('directory')}` (each GPU with the baseline's of the same rank, "
            f"tolerance {tolerance}, the baselines' {baseline.get('baseline_launches')} launches): "
            + ("every number within tolerance." if not outside else f"{len(outside)} number(s) outside tolerance:")
        )
        if outside:
            doc.bullets([a["line"] for a in outside])
    if many:
        guarded(
            doc,
            "The per-GPU plot",
            lambda: doc.image(
                save(plots.per_gpu(table, anomalies), directory, "gpus.png"), "Every GPU, metric by metric"
            ),
        )

    def bandwidth():
        t = _bandwidth_rows(results)
        if len(t):
            doc.para(
                "Every row of `hetprobe bandwidth`, median GB/s per GPU: the plain passes, the paper's persistent "
                "writer and the loads at full rate, each in the same pinned buffer:"
            )
            found = warnings_by(results, summary_rows(results.probe("bandwidth"), "point", "gbs"), ["writer"])
            flagged_table(doc, t, [found.get((w,), []) for w in t.index], index=True)

    guarded(doc, "The bandwidth table", bandwidth)
    if many:
        doc.para("The sections below show GPU 0 (rank 0) in detail.")


def _short(metric: gpus.Metric, value: float) -> str:
    """A number with its unit, as the headline and the table write it."""
    return f"{_number(value)} {metric.unit}" if np.isfinite(value) else ""


# How the report names a flag's status (the verdict's "status", bench/gpus/node_verdict.cpp).
_STATUS = {
    "confirmed": "FLAGGED (confirmed on re-measure)",
    "transient": "not flagged (a transient: the re-measure did not confirm it)",
    "unconfirmed": "not flagged (not re-measured)",
    "link": "FLAGGED (link)",
    "outside": "OUTSIDE BASELINE",
}


def summary_lines(table: pd.DataFrame, verdict: dict, anomalies: list[dict]) -> list[str]:
    """One line per GPU, then one per flag of the verdict (confirmed, transient or not re-measured, and the
    links), then one per number outside the baseline."""
    out = []
    for _, row in table.iterrows():
        numbers = [
            f"{m.column.split(' (')[0]} {_short(m, row[m.column])}" for m in gpus.METRICS if np.isfinite(row[m.column])
        ]
        where = " ".join(
            x
            for x in (
                row["PCI address"] if isinstance(row["PCI address"], str) else "",
                f"NUMA {row['NUMA node']}" if isinstance(row["NUMA node"], str) else "",
            )
            if x
        )
        out.append(f"GPU {int(row['GPU'])}{' ' + where if where else ''}: link {link_text(row)}; " + ", ".join(numbers))
    shown = list(verdict.get("flags") or []) + [a for a in anomalies if a["reference_kind"] == "baseline"]
    for a in shown:
        counts = a["status"] in ("confirmed", "link", "outside")
        out.append(f"{MARK + ' ' if counts else ''}{_STATUS.get(a['status'], a['status'])}: {a['line']}")
    return out
