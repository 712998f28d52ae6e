"""The launches of one interference step pooled, as the notebooks' tables show them.

characterize runs its headline step as several launches (interference.jsonl, interference.launch2.jsonl,
...): a process launch is the unit of replication. The plots take one run (each step's first launch);
these tables take every launch, pooled by hetprobe.Results.interference_ratios (the median of the
launches' ratios to SSB, a 95% interval from their spread; one launch keeps its own interval over its
rounds; files from before the rounds have a ratio and no interval).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hetprobe import Results, size_label
from hetprobe.data.rates import is_full, load_label

KINDS = ["write", "read", "poll", "copy-d2h", "copy-h2d"]
HEADLINE_SIZES = (1 << 10, 64 << 10, 1 << 20, 16 << 20)
PARTS = ["loads", "rates"]


def ci_text(ratio, low, high) -> str:
    """A ratio and its 95% interval, "1.025 [0.954, 1.083]"; the ratio alone without one; "" without a ratio."""
    if not np.isfinite(ratio):
        return ""
    return f"{ratio:.3f} [{low:.3f}, {high:.3f}]" if np.isfinite(low) and np.isfinite(high) else f"{ratio:.3f}"


def ci_texts(rows: pd.DataFrame) -> list[str]:
    """ci_text of each pooled row."""
    return [
        ci_text(*r)
        for r in rows[["ratio_to_ssb", "ratio_to_ssb_ci95_low", "ratio_to_ssb_ci95_high"]].to_numpy(dtype=float)
    ]


def loaded(parts: dict, every_rate: bool = False) -> pd.DataFrame:
    """The load points of {"loads": Results, "rates": Results} (each with every launch of its step), pooled
    over the launches: the loads at full rate (every_rate: at each), the rates at each rate; `part` names
    the step."""
    frames = []
    for part, results in parts.items():
        rows = results.interference_ratios()
        full = rows["load_rate"].map(is_full).astype(bool)
        rows = rows[(rows["load_kind"] != "none") & (full | every_rate | (part == "rates"))]
        frames.append(rows.assign(part=part))
    return pd.concat(frames, ignore_index=True) if frames else Results.empty().interference_ratios().assign(part="")


def load_table(parts: dict) -> pd.DataFrame:
    """One row per step, load kind, GPU count and rate (layout and access where they vary); per size (the
    headline sizes 1 KiB, 64 KiB, 1 MiB, 16 MiB where measured, else every size): the median send time
    (µs), ratio_to_ssb with its 95% interval, and the GB/s the loads moved during the sends; each over the
    step's launches."""
    rows = loaded(parts)
    have = sorted(rows["size_bytes"].unique())
    rows = rows[rows["size_bytes"].isin([s for s in HEADLINE_SIZES if s in have] or have)]
    keys = ["part", "load_kind", "load_gpus", "load_rate"] + [c for c in ("layout", "access") if rows[c].nunique() > 1]
    cells = rows.assign(
        **{"µs": rows["median_ns"] / 1e3, "ratio_to_ssb [95% CI]": ci_texts(rows), "GB/s": rows["traffic_gbs"]}
    )
    quantities = ["µs", "ratio_to_ssb [95% CI]", "GB/s"]
    table = cells.pivot_table(index=keys, columns="size_bytes", values=quantities, aggfunc="first", sort=False)
    table = table.swaplevel(0, 1, axis=1)
    table = table[[(s, q) for s in sorted(rows["size_bytes"].unique()) for q in quantities if (s, q) in table.columns]]
    table.columns = pd.MultiIndex.from_tuples([(size_label(int(s)), q) for s, q in table.columns], names=["size", ""])
    order = {k: i for i, k in enumerate(PARTS + KINDS)}
    table = table.sort_index(key=lambda c: c.map(lambda v: order.get(v, len(order))) if c.name in keys[:2] else c)
    table.index = table.index.set_names({"part": "step", "load_kind": "kind", "load_gpus": "GPUs", "load_rate": "rate"})
    numeric = [c for c in table.columns if c[1] != "ratio_to_ssb [95% CI]"]
    table[numeric] = table[numeric].astype(float).round(3)
    return table


def how(rows: pd.DataFrame) -> str:
    """How the ratios of these pooled rows were measured, in a sentence."""
    launches = int(rows["launches"].max()) if len(rows) else 0
    if launches > 1:
        return (
            f"Pooled over up to {launches} launches (each a separate mpirun): ratio_to_ssb is the median of the "
            "launches' ratios, its 95% interval from their spread (3 launches or more); µs and GB/s are medians over "
            "the launches."
        )
    if rows["ratio_to_ssb_ci95_low"].notna().any():
        return (
            f"One launch, {int(rows['rounds'].max())} rounds: ratio_to_ssb is the median over the rounds of each "
            "round's median ÷ the same round's SSB median, with its 95% interval over the rounds."
        )
    return "Measured before the rounds: ratio_to_ssb is the median ÷ the SSB median, without an interval."


def worst_text(parts: dict) -> str:
    """The load point with the largest pooled ratio to SSB at any rate, in a sentence (Markdown)."""
    rows = loaded(parts, every_rate=True).dropna(subset=["ratio_to_ssb"])
    if rows.empty:
        return "No load point has a ratio to SSB."
    w = rows.loc[rows["ratio_to_ssb"].idxmax()]
    interval = (
        f" (95% CI {w['ratio_to_ssb_ci95_low']:.3g}-{w['ratio_to_ssb_ci95_high']:.3g})"
        if np.isfinite(w["ratio_to_ssb_ci95_low"])
        else ""
    )
    if w["launches"] > 1:
        over = f"the median of {int(w['launches'])} launches"
    else:
        over = (
            f"over {int(w['rounds'])} rounds"
            if np.isfinite(w["ratio_to_ssb_ci95_low"])
            else f"median of {int(w['n'])} sends"
        )
    return (
        f"Largest slowdown: **{w['ratio_to_ssb']:.3g}× SSB**{interval}, {w['load_kind']} from "
        f"{int(w['load_gpus'])} GPU(s) at rate {w['load_rate']}, {w['traffic_gbs']:.3g} GB/s during the send, "
        f"{size_label(int(w['size_bytes']))}, "
        f"{w['layout']} {w['access']} ({over})" + (f"; effect: {w['effect']}." if isinstance(w["effect"], str) else ".")
    )


def load_names(rows: pd.DataFrame) -> list[str]:
    """Each pooled row's load: "none" (SSB), "write", "write x2 @0.5" (off one GPU or full rate): the
    brief form of hetprobe's load label."""
    return [
        "none" if kind == "none" else load_label(kind, gpus, rate, brief=True)
        for kind, gpus, rate in zip(rows["load_kind"], rows["load_gpus"], rows["load_rate"])
    ]
