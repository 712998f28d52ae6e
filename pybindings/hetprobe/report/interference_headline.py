"""The headline's rows of MPI_Send under GPU traffic. The headline names the largest slowdown whose
95% interval lies wholly above 1.05 (the point's `effect`, pooled over launches where there are
several), with its SSB and loaded medians, among the loads and rate steps' points of the step(s)
measured in the most launches; without one it says "no slowdown beyond noise" and shows the largest
median ratio with its interval. An interval wholly below 0.95 is a speed-up, reported with a note to
find out why. Files from before the rounds have no interval: their worst median ratio is shown, as
it was. Then the host's memory bandwidth, the paper's writer and the payload checks. Which point each
row names, and the numbers beside it (the share of triad, the typical ratio), are chosen and computed
once, in C++ (base/headline_choice.hpp, through _core); this module writes them in words."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import _core
from ..data.loads import worst_slowdown
from ..data.rates import is_full
from ..data.results import Results, summary_rows as _rows
from ..data.units import size_label
from ..errors import UsageError
from .notes import condition_warnings, warned
from .parts import MARGIN, has_intervals, interference_parts, loaded, ratio_rows
from .render import number
from .texts import ci_clause, ci_text, gap_text, has_interval, how_text, point_text, ratio_text, short_text, time_text


def _worst_load(parts: dict):
    """(the worst load point, the Results it is in) over the loads and rates parts, or (None, None)."""
    found = []
    for name in ("loads", "rates"):
        if name in parts:
            try:
                found.append((worst_slowdown(parts[name]), parts[name]))
            except UsageError:  # no load point with an SSB baseline (a run that stopped early)
                pass
    worst = _core.largest_ratio([f[0]["slowdown"] for f in found])
    return found[worst] if worst is not None else (None, None)


def _judged(candidates: list) -> list:
    """(part, pooled row)s as _core's headline choices take them: (ratio, (low, high) or None, effect or None)."""
    out = []
    for _, r in candidates:
        low, high = r["ratio_ci95_low"], r["ratio_ci95_high"]
        ci = (low, high) if has_interval(low, high) else None
        out.append((r["ratio"], ci, r["effect"] if isinstance(r["effect"], str) else None))
    return out


def _near_ties(ties: list) -> str:
    """The other claimed slowdowns whose intervals reach the largest's (_core.choose_slowdown's near
    ties, largest first), named beside it: which is largest is within the noise, so a rerun may name
    another (up to 3)."""
    if not ties:
        return ""
    more = f" (+{len(ties) - 3} more)" if len(ties) > 3 else ""
    return "; as large within the noise: " + ", ".join(short_text(r) for r in ties[:3]) + more


def _slowdown_row(quantity: str, candidates: list, every: dict) -> tuple | None:
    """The headline of one set of (part, pooled row): the point _core.choose_slowdown names (the largest
    slowdown its interval supports, else the largest median ratio) in words; None without points."""
    choice = _core.choose_slowdown(_judged(candidates))
    if choice is None:
        return None
    part, row = candidates[choice["chosen"]]
    how = how_text(row)
    if choice["verdict"] == "claimed":
        value = f"{ratio_text(row['ratio'])}× SSB{ci_clause(row)}: {point_text(row)}"
        value += _near_ties([candidates[i][1] for i in choice["near_ties"]])
        how += f"; claimed: the interval lies wholly above {1 + MARGIN:g}"
    elif choice["verdict"] == "within_noise":
        value = f"no slowdown beyond noise: the largest median ratio is {ratio_text(row['ratio'])}× SSB"
        value += f"{ci_clause(row)}, {point_text(row)}"
        how += f"; no point's interval lies wholly above {1 + MARGIN:g}"
    else:  # no_interval
        value = f"no 95% interval to judge by: the largest median ratio is {ratio_text(row['ratio'])}× SSB, "
        value += point_text(row)
        how += "; an interval needs 6 rounds or more in one launch, or 3 launches or more"
    return (quantity, value, how, warned(every[part], row["record_ids"])), row


def _speedup_row(candidates: list, every: dict) -> tuple | None:
    """Points whose interval lies wholly below 1 - MARGIN: the fastest (_core.choose_speedup), with the
    note to find out why."""
    up = _core.choose_speedup(_judged(candidates))
    if up is None:
        return None
    part, row = candidates[up["fastest"]]
    more = f"; {up['count']} points in all" if up["count"] > 1 else ""
    return (
        "MPI_Send speed-up under GPU traffic (not expected)",
        f"{ratio_text(row['ratio'])}× SSB{ci_clause(row)}: {point_text(row)}{more}",
        f"{how_text(row)}. GPU traffic is not expected to make a send faster: find out why (the SSB "
        "rounds' drift warning, the CPU's frequency and idle states, where the payload and the load buffers lie)",
        warned(every[part], row["record_ids"]),
    )


def _cold_idle_row(cold: pd.DataFrame, every: dict) -> tuple | None:
    """A cold send with the GPU idle against the warm ones timed in the same visits: the SSB points'
    medians and their paired cold ÷ warm ratio at each size."""
    ssb = cold[cold["layout"] == "SSB"].sort_values("size_bytes")
    if ssb.empty:
        return None
    texts, ids = [], []
    for _, c in ssb.iterrows():
        text = f"{size_label(int(c['size_bytes']))}: {time_text(c['median_ns'])} cold"
        if np.isfinite(c["warm_median_ns"]):
            low, high = c["cold_ratio_ci95_low"], c["cold_ratio_ci95_high"]
            text += f", {time_text(c['warm_median_ns'])} warm, {ratio_text(c['cold_ratio'])}× " + (
                f"(95% CI {ci_text(low, high)})" if has_interval(low, high) else "(no 95% interval)"
            )
        else:
            text += " (no warm sends in its rounds: a file from before 2026-11-27)"
        texts.append(text)
        ids += list(c["record_ids"])
    first = ssb.iloc[0]
    launches = int(ssb["launches"].max())
    return (
        f"Cold MPI_Send, the GPU idle ({gap_text(first)})",
        "; ".join(texts),
        f"SSB of interference-cold, {first['access']} access: cold and warm sends interleaved in each visit, "
        "cold ÷ warm paired round by round" + (f", over {launches} launches" if launches > 1 else ""),
        warned(every["cold"], ids),
    )


def _most_launched(tables: dict, parts: tuple) -> list[str]:
    """Of these parts, those measured in the most launches (_core.most_launched_parts): by default the
    loads step has 3 and the rate step 1, and the headline rests on the launches."""
    present = [p for p in parts if p in tables]
    return [present[i] for i in _core.most_launched_parts([tables[p]["launches"].tolist() for p in present])]


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
        idle = _cold_idle_row(tables["cold"], every)
        if idle:
            rows.append(idle)
        found = _slowdown_row("Cold MPI_Send slowdown under GPU traffic", cold, every)
        if found:
            rows.append(found[0])
    up = _speedup_row(warm + cold, every)
    if up:
        rows.append(up)
    return rows, chosen


def interference_headline(results: Results) -> list[tuple[str, str, str, list[str]]]:
    rows = []
    parts = interference_parts(results)
    every = interference_parts(results, launches=True)
    tables = {p: ratio_rows(every[p]) for p in ("loads", "rates", "cold", "paper") if p in every}
    rounds = any(has_intervals(t) for t in tables.values())
    traffic, whose = None, "the worst point's"
    if rounds:
        judged, chosen = _judged_headline(every, tables)
        rows += judged
        if chosen is not None:
            traffic, whose = chosen["traffic_gbs"], "the headline point's"
    else:  # files from before the rounds: the worst median ratio, as it was shown then
        worst, where = _worst_load(parts)
        if worst is not None:
            gpus = int(worst["load_gpus"])
            rate = "" if is_full(worst["load_rate"]) else f" at rate {worst['load_rate']}"
            rows.append(
                (
                    "Worst MPI_Send slowdown under GPU traffic",
                    f"{ratio_text(worst['slowdown'])}× SSB: {worst['load_kind']} from {gpus} "
                    f"GPU{'s' if gpus > 1 else ''}"
                    f"{rate}, {number(worst['traffic_during_send_gbs'])} GB/s during the send, "
                    f"{size_label(int(worst['size_bytes']))}",
                    f"{worst['layout']}, {worst['access']} access; medians of {int(worst['n'])} sends, each ÷ the "
                    "SSB median at its size",
                    warned(where, [worst["record_id"]]),
                )
            )
            traffic = worst["traffic_during_send_gbs"]
    triad = _rows(results, "host_memory", "triad_gbs")
    if len(triad):
        t = triad.iloc[0]
        copy = _rows(results, "host_memory", "copy_gbs").iloc[0]
        percent = _core.triad_share_percent(traffic, t["max"])
        share = f"; {whose} GPU traffic is {percent:.0f}% of triad" if percent is not None else ""
        rows.append(
            (
                "Host memory bandwidth (STREAM, best of the runs)",
                f"triad {number(t['max'])} GB/s, copy {number(copy['max'])} GB/s",
                f"{t['label']}{share}",
                warned(results, [t["record_id"]]),
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
        w = others.iloc[_core.largest_ratio(others["ratio"].tolist())]
        effect = f", {w['effect']}" if isinstance(w["effect"], str) else ""
        low, high = w["ratio_ci95_low"], w["ratio_ci95_high"]
        typical = _core.typical_ratio_per_layout(list(zip(others["layout"], others["ratio"])))
        ids = [i for group in others["record_ids"] for i in group]
        return [
            (
                "Largest ratio to SSB, the paper's writer (message-sized buffer)",
                f"{ratio_text(w['ratio'])}× SSB"
                + (f" (95% CI {ci_text(low, high)}{effect})" if has_interval(low, high) else ""),
                f"{size_label(int(w['size_bytes']))}; {how_text(w)}",
                warned(every, w["record_ids"]),
            ),
            (
                "Typical ratio to SSB, the paper's writer (median over sizes and access)",
                ", ".join(f"{k} {ratio_text(v)}" for k, v in typical),
                "1 = no interference",
                condition_warnings(every, ids),
            ),
        ]
    send = _rows(paper, "point", "send_time_ns")
    others = send[send["layout"] != "SSB"].dropna(subset=["ratio_to_ssb_median"])
    if not len(others):
        return []
    w = others.iloc[_core.largest_ratio(others["ratio_to_ssb_median"].tolist())]
    typical = _core.typical_ratio_per_layout(list(zip(others["layout"], others["ratio_to_ssb_median"])))
    return [
        (
            "Worst slowdown, the paper's writer (message-sized buffer)",
            f"{ratio_text(w['ratio_to_ssb_median'])}× SSB",
            f"{w['layout']}, {w['access']} access, {size_label(int(w['size_bytes']))}; medians of {int(w['n'])} sends",
            warned(paper, [w["record_id"]]),
        ),
        (
            "Typical ratio to SSB, the paper's writer (median over sizes and access)",
            ", ".join(f"{k} {ratio_text(v)}" for k, v in typical),
            "1 = no interference",
            condition_warnings(paper, others["record_id"]),
        ),
    ]
