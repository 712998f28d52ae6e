"""The headline's rows of MPI_Send under GPU traffic. The headline names the largest slowdown whose
95% interval lies wholly above 1.05 (the point's `effect`, pooled over launches where there are
several), with its SSB and loaded medians, among the loads and rate steps' points of the step(s)
measured in the most launches; without one it says "no slowdown beyond noise" and shows the largest
median ratio with its interval. An interval wholly below 0.95 is a speed-up, reported with a note to
find out why. Files from before the rounds have no interval: their worst median ratio is shown, as
it was. Then the host's memory bandwidth, the paper's writer and the payload checks. Which point each
row names, and the numbers beside it (the share of triad, the typical ratio), are chosen and computed
once, in C++ (bench/interference/interference_headline.hpp over the run's aggregates, and
base/headline_choice.hpp, through _core); this module writes them in words."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import _rules
from ..data.launches import headline
from ..data.rates import is_full
from ..data.results import Results, summary_rows as _rows
from ..data.units import size_label
from .notes import condition_warnings, warned
from .parts import MARGIN, interference_parts, ratio_rows
from .render import number
from .texts import ci_clause, ci_text, gap_text, has_interval, how_text, point_text, ratio_text, short_text, time_text


def _near_ties(ties: list) -> str:
    """The other claimed slowdowns whose intervals reach the largest's (_rules.choose_slowdown's near
    ties, largest first), named beside it: which is largest is within the noise, so a rerun may name
    another (up to 3)."""
    if not ties:
        return ""
    more = f" (+{len(ties) - 3} more)" if len(ties) > 3 else ""
    return "; as large within the noise: " + ", ".join(short_text(r) for r in ties[:3]) + more


def _slowdown_row(
    quantity: str, pick: _rules.SlowdownPick | None, pooled: pd.DataFrame, results: Results
) -> tuple | None:
    """The headline row of C++'s pick (_rules.interference_headline: the largest slowdown its interval
    supports, else the largest median ratio) in words; None without one."""
    if pick is None:
        return None
    row = pooled.iloc[pick.point]
    how = how_text(row)
    if pick.verdict == _rules.HeadlineVerdict.claimed:
        value = f"{ratio_text(row['ratio_to_ssb'])}× SSB{ci_clause(row)}: {point_text(row)}"
        value += _near_ties([pooled.iloc[i] for i in pick.near_ties])
        how += f"; claimed: the interval lies wholly above {1 + MARGIN:g}"
    elif pick.verdict == _rules.HeadlineVerdict.within_noise:
        value = f"no slowdown beyond noise: the largest median ratio is {ratio_text(row['ratio_to_ssb'])}× SSB"
        value += f"{ci_clause(row)}, {point_text(row)}"
        how += f"; no point's interval lies wholly above {1 + MARGIN:g}"
    else:  # no_interval
        value = f"no 95% interval to judge by: the largest median ratio is {ratio_text(row['ratio_to_ssb'])}× SSB, "
        value += point_text(row)
        how += "; an interval needs 6 rounds or more in one launch, or 3 launches or more"
    return (quantity, value, how, warned(results, row["record_ids"])), row


def _speedup_row(up: _rules.SpeedupPick | None, pooled: pd.DataFrame, results: Results) -> tuple | None:
    """C++'s fastest claimed speed-up (an interval wholly below 1 - MARGIN), with the note to find out why."""
    if up is None:
        return None
    row = pooled.iloc[up.fastest]
    more = f"; {up.count} points in all" if up.count > 1 else ""
    return (
        "MPI_Send speed-up under GPU traffic (not expected)",
        f"{ratio_text(row['ratio_to_ssb'])}× SSB{ci_clause(row)}: {point_text(row)}{more}",
        f"{how_text(row)}. GPU traffic is not expected to make a send faster: find out why (the SSB "
        "rounds' drift warning, the CPU's frequency and idle states, where the payload and the load buffers lie)",
        warned(results, row["record_ids"]),
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


def _judged_headline(
    picks: _rules.Headline, pooled: pd.DataFrame, results: Results, every: dict, tables: dict
) -> tuple:
    """The rows of a run measured in rounds: warm slowdown, cold sends, speed-ups; and the warm row
    the headline names (for the host memory row's share of triad), or None."""
    rows, chosen = [], None
    found = _slowdown_row("MPI_Send slowdown under GPU traffic", picks.warm, pooled, results)
    if found:
        rows.append(found[0])
        chosen = found[1]
    if "cold" in tables:
        idle = _cold_idle_row(tables["cold"], every)
        if idle:
            rows.append(idle)
        found = _slowdown_row("Cold MPI_Send slowdown under GPU traffic", picks.cold, pooled, results)
        if found:
            rows.append(found[0])
    up = _speedup_row(picks.speedup, pooled, results)
    if up:
        rows.append(up)
    return rows, chosen


def headline_picks(inter: Results, tables: dict) -> tuple[_rules.Headline | None, pd.DataFrame]:
    """C++'s interference headline of `inter` (_rules.interference_headline) and the pooled rows its
    picks index; the warm steps are those of the run's loads and rates parts (`tables`: each part's
    pooled rows), the cold those of its cold part."""
    steps = {p: list(dict.fromkeys(tables[p]["step"])) for p in ("loads", "rates", "cold", "paper") if p in tables}
    picks = headline(
        inter, steps.get("loads", []) + steps.get("rates", []), steps.get("cold", []), steps.get("paper", [])
    )
    return picks, inter.interference_ratios()


def interference_headline(results: Results) -> list[tuple[str, str, str, list[str]]]:
    rows = []
    every = interference_parts(results, launches=True)
    tables = {p: ratio_rows(every[p]) for p in ("loads", "rates", "cold", "paper") if p in every}
    inter = results.probe("interference")
    picks, pooled = headline_picks(inter, tables)
    traffic, whose = None, "the worst point's"
    if picks is not None and picks.judged:
        judged, chosen = _judged_headline(picks, pooled, inter, every, tables)
        rows += judged
        if chosen is not None:
            traffic, whose = chosen["traffic_gbs"], "the headline point's"
    elif picks is not None and picks.worst is not None:  # files from before the rounds: the worst median ratio
        worst = pooled.iloc[picks.worst]
        gpus = int(worst["load_gpus"])
        rate = "" if is_full(worst["load_rate"]) else f" at rate {worst['load_rate']}"
        rows.append(
            (
                "Worst MPI_Send slowdown under GPU traffic",
                f"{ratio_text(worst['ratio_to_ssb'])}× SSB: {worst['load_kind']} from {gpus} "
                f"GPU{'s' if gpus > 1 else ''}"
                f"{rate}, {number(worst['traffic_gbs'])} GB/s during the send, "
                f"{size_label(int(worst['size_bytes']))}",
                f"{worst['layout']}, {worst['access']} access; medians of {int(worst['n'])} sends, each ÷ the "
                "SSB median at its size",
                warned(inter, worst["record_ids"]),
            )
        )
        traffic = worst["traffic_gbs"]
    triad = _rows(results, "host_memory", "triad_gbs")
    if len(triad):
        t = triad.iloc[0]
        copy = _rows(results, "host_memory", "copy_gbs").iloc[0]
        percent = _rules.triad_share_percent(traffic, t["max"])
        share = f"; {whose} GPU traffic is {percent:.0f}% of triad" if percent is not None else ""
        rows.append(
            (
                "Host memory bandwidth (STREAM, best of the runs)",
                f"triad {number(t['max'])} GB/s, copy {number(copy['max'])} GB/s",
                f"{int(t['threads'])} threads, NUMA {t['numa_nodes']}{share}",
                warned(results, [t["record_id"]]),
            )
        )
    if picks is not None and picks.paper_largest is not None:
        rows += _paper_rows(picks, pooled, inter)
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


def _paper_rows(picks: _rules.Headline, pooled: pd.DataFrame, inter: Results) -> list:
    """The paper's writer: its largest ratio (with its interval where measured in rounds) and the typical
    one per layout, as C++ picks them (_rules.interference_headline's paper_largest and paper_typical);
    `pooled`'s record_ids index `inter`'s records."""
    w = pooled.iloc[picks.paper_largest]
    typical = (
        "Typical ratio to SSB, the paper's writer (median over sizes and access)",
        ", ".join(f"{k} {ratio_text(v)}" for k, v in picks.paper_typical),
        "1 = no interference",
        condition_warnings(inter, [i for ids in pooled[pooled["step"] == w["step"]]["record_ids"] for i in ids]),
    )
    if picks.judged:
        effect = f", {w['effect']}" if isinstance(w["effect"], str) else ""
        low, high = w["ratio_to_ssb_ci95_low"], w["ratio_to_ssb_ci95_high"]
        largest = (
            "Largest ratio to SSB, the paper's writer (message-sized buffer)",
            f"{ratio_text(w['ratio_to_ssb'])}× SSB"
            + (f" (95% CI {ci_text(low, high)}{effect})" if has_interval(low, high) else ""),
            f"{size_label(int(w['size_bytes']))}; {how_text(w)}",
            warned(inter, w["record_ids"]),
        )
        return [largest, typical]
    worst = (
        "Worst slowdown, the paper's writer (message-sized buffer)",
        f"{ratio_text(w['ratio_to_ssb'])}× SSB",
        f"{w['layout']}, {w['access']} access, {size_label(int(w['size_bytes']))}; medians of {int(w['n'])} sends",
        warned(inter, w["record_ids"]),
    )
    return [worst, typical]
