"""Numbers as the report's tables and headline write them: times, ratios, 95% intervals, the gap
before a send, and a pooled point with how it was measured."""

from __future__ import annotations

import numpy as np

from ..data.rates import is_full, load_label
from ..data.units import size_label
from .render import number


def ns_text(ns) -> str:
    """A flag's or a launch's time, in ns as the notify and per-GPU tables show it."""
    return f"{number(ns)} ns"


def ratio_text(x: float) -> str:
    """A ratio to SSB as the tables' ratio_to_ssb column writes it."""
    return number(x)


def has_interval(low, high) -> bool:
    return bool(np.isfinite(low) and np.isfinite(high))


def ci_text(low, high) -> str:
    """A 95% interval as `hetprobe show` writes it, "0.97-1.12"; "-" without one (C++ writes it:
    base/number_text.hpp)."""
    from .. import _rules

    return _rules.interval_text(float(low), float(high))


def spread_text(row) -> str:
    """The launches' lowest and highest ratio of a pooled row, "0.98-1.10"; "-" for one launch."""
    if row["launches"] < 2:
        return "-"
    return ci_text(row["ratio_to_ssb_min"], row["ratio_to_ssb_max"])


def time_text(ns) -> str:
    """A send time in µs, as the interference tables show it: "1.452 µs", "2350 µs"."""
    return f"{number(ns / 1e3)} µs"


def gap_text(row) -> str:
    """What the sender did before each send: a pooled point's gap columns (gap_kind, gap_bytes, and
    the label --gap took for a spin's time)."""
    if row["gap_kind"] == "sweep":
        return f"a {size_label(int(row['gap_bytes']))} buffer swept before each send"
    return f"{row['gap']} of spinning before each send"


# Where the sender's GPU's load lands (the layout); other GPUs load allocations of their own.
_PLACEMENT = {
    "PSB": "into the send buffer (PSB)",
    "PCB": "right after the send buffer (PCB)",
    "P2AB": "2 MiB past the send buffer (P2AB)",
    "OWN": "into an allocation of its own (OWN)",
}


def point_text(row) -> str:
    """ "write from 1 GPU, into an allocation of its own (OWN), 16 MiB: SSB 2353 µs, loaded 2689 µs, 52.08
    GB/s during the send"."""
    gpus = int(row["load_gpus"])
    rate = "" if is_full(row["load_rate"]) else f" at rate {row['load_rate']}"
    traffic = f", {number(row['traffic_gbs'])} GB/s during the send" if np.isfinite(row["traffic_gbs"]) else ""
    where = _PLACEMENT.get(row["layout"], row["layout"])
    return (
        f"{row['load_kind']} from {gpus} GPU{'s' if gpus > 1 else ''}{rate}, {where}, "
        f"{size_label(int(row['size_bytes']))}: "
        f"SSB {time_text(row['ssb_median_ns'])}, loaded {time_text(row['median_ns'])}{traffic}"
    )


def how_text(row) -> str:
    """How a pooled point's ratio and interval were measured."""
    where = f"{row['layout']}, {row['access']} access"
    if row["gap_kind"] != "none":
        where += f", {gap_text(row)}"
    if row["launches"] > 1:
        interval = "its 95% interval from their spread" if row["launches"] >= 3 else "no interval under 3 launches"
        return f"{where}; the median of {int(row['launches'])} launches' ratios ({spread_text(row)}), {interval}"
    if not np.isfinite(row["rounds"]):
        return f"{where}; the median of {int(row['n'])} sends ÷ the SSB median at its size"
    return (
        f"{where}; the median over {int(row['rounds'])} rounds of each round's median ÷ the same round's SSB "
        f"median ({int(row['reps'])} sends per visit), its 95% interval over the rounds"
    )


def ci_clause(row) -> str:
    low, high = row["ratio_to_ssb_ci95_low"], row["ratio_to_ssb_ci95_high"]
    return f" (95% CI {ci_text(low, high)})" if has_interval(low, high) else " (no 95% interval)"


def short_text(row) -> str:
    """ "copy-d2h x1 OWN 16 MiB 1.13×": a point and its ratio, for a list."""
    load = load_label(row["load_kind"], row["load_gpus"], row["load_rate"])
    return f"{load} {row['layout']} {size_label(int(row['size_bytes']))} {ratio_text(row['ratio_to_ssb'])}×"
