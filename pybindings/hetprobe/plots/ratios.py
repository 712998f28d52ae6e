"""Ratios to SSB of several runs side by side, with their 95% intervals: the launches of one command,
hetprobe beside another program's numbers, a run with and without --gap. The rows are
hetprobe.data.ratio_rows' (one per load point, a label per file), or rows from elsewhere (a bare
program's output) with the same columns.
"""

from __future__ import annotations

import pandas as pd

from ..data.loads import KIND_ORDER
from ..data.ratios import RATIO_COLUMNS
from ..data.select import ordered
from ..data.units import size_label
from ..errors import UsageError
from .style import CI_TEXT, finish, log_if_wide, new_figure, no_effect_band, ratio_axis_label, ratio_line

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


def _load_order(loads) -> list[str]:
    """Load names in the kinds' usual order (write, read, poll, copies), variants after their kind."""
    seen = list(dict.fromkeys(loads))
    rank = {k: i for i, k in enumerate(KIND_ORDER)}

    def kind(name):
        return min((rank[w] for w in name.split() if w in rank), default=len(rank))

    return sorted(seen, key=lambda name: (kind(name), seen.index(name)))


def ratios_side_by_side(
    rows: pd.DataFrame, sizes=None, path=None, title=None, labels=None, styles=None, value="ratio_to_ssb"
):
    """One panel per message size; per load kind, one marker per label (run, launch, program) side by
    side, with its 95% interval as error bars where it has one; the ±5% "no effect" margin shaded.

    `rows`: ratio_rows frames (and rows of the same columns from elsewhere), concatenated. `labels`:
    which labels to draw, in that order (default: all, as they come). `sizes`: which sizes (default all).
    `styles`: {label: matplotlib line keywords (color, marker, mfc, ...)} replacing a label's own colour
    and marker, e.g. to pair two programs' runs by colour. `value`: the column of the ratio drawn
    (another paired ratio, such as cold_over_warm, with its ci_low and ci_high)."""
    needed = [value if c == "ratio_to_ssb" else c for c in RATIO_COLUMNS]
    missing = [c for c in needed if c not in rows.columns]
    if missing:
        raise UsageError(f"ratios_side_by_side needs the columns {needed}; missing {missing}")
    labels = list(labels) if labels is not None else ordered(rows["label"], [])
    rows = rows[rows["label"].isin(labels)]
    twice = rows[rows.duplicated(["label", "size_bytes", "load"])]
    if len(twice):
        first = twice.iloc[0]
        raise UsageError(
            f"ratios_side_by_side: {first['label']} has {first['load']} at {size_label(int(first['size_bytes']))} "
            "more than once; give each run its own label"
        )
    have = sorted(rows["size_bytes"].unique())
    sizes = [s for s in (sizes if sizes is not None else have) if s in have]
    if not sizes:
        raise UsageError("no ratios to draw")
    loads = _load_order(rows["load"])
    per_load = max(0.85, 0.22 * len(labels))  # inches: room for every label's bar and the kind's name
    panel_width = max(3.0, per_load * len(loads) + 0.6)
    fig, axes = new_figure(1, len(sizes), width=panel_width, height=4.0, sharey=True)
    width = 0.8 / len(labels)
    shown = pd.concat([rows[value], rows["ci_low"], rows["ci_high"]]).dropna()
    for ax, size in zip(axes[0], sizes):
        panel = rows[rows["size_bytes"] == size]
        for i, label in enumerate(labels):
            d = panel[panel["label"] == label].set_index("load").reindex([x for x in loads if x in set(panel["load"])])
            d = d[d[value].notna()]
            x = [loads.index(name) + (i - (len(labels) - 1) / 2) * width for name in d.index]
            style = {"color": COLORS[i % len(COLORS)], "marker": MARKERS[i % len(MARKERS)], "ms": 5}
            style.update((styles or {}).get(label, {}))
            color = style.pop("color")
            ratio_line(ax, x, d[value], d["ci_low"], d["ci_high"], color, linestyle="none", label=label, **style)
        no_effect_band(ax)
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1)
        ax.set_xticks(range(len(loads)), loads)
        ax.set_xlim(-0.6, len(loads) - 0.4)
        ax.set_title(size_label(int(size)))
        ax.set_xlabel("GPU load during the send (kind)")
        ax.grid(True, axis="y", alpha=0.3)
    log = log_if_wide(axes[0][0], list(shown) + [1.0])
    with_ci = bool(rows["ci_low"].notna().any())
    axes[0][0].set_ylabel(ratio_axis_label(with_ci, log=log, name=value))
    axes[0][-1].legend(
        fontsize="small",
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        title=CI_TEXT if with_ci else None,
        title_fontsize="small",
    )
    return finish(fig, title or "Send time relative to SSB, side by side", path)
