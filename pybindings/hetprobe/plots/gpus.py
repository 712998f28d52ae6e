"""Every GPU of a node side by side: one small panel per metric of hetprobe.node.gpus.per_gpu, a bar per
GPU, the node's median dashed, a flagged GPU's bar red."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..errors import UsageError
from ..node import gpus
from .style import finish, new_figure

FLAGGED = "#d62728"
PLAIN = "#1f77b4"


def per_gpu(table_or_run, anomalies=None, path=None, title: str | None = None):
    """Small multiples: one panel per metric measured (round trip, launch+sync, each bandwidth, clock
    drift and precision), one bar per GPU. `table_or_run`: a hetprobe.node.gpus.per_gpu table, a Results or a
    run directory; `anomalies`: the node verdict's flags (hetprobe.node.verdict), whose GPU and metric
    turn that bar red."""
    table = table_or_run if isinstance(table_or_run, pd.DataFrame) else gpus.per_gpu(table_or_run)
    metrics = [m for m in gpus.METRICS if table[m.column].notna().any()]
    if not len(table) or not metrics:
        raise UsageError("no per-GPU numbers to plot (no notify, clock or bandwidth records)")
    flagged = {(a["gpu"], a["metric"]) for a in anomalies or []}
    ncols = min(4, len(metrics))
    fig, axes = new_figure(math.ceil(len(metrics) / ncols), ncols, width=3.2, height=2.6)
    labels = [str(int(g)) for g in table["GPU"]]
    x = np.arange(len(table))
    for ax, metric in zip(axes.flat, metrics):
        values = table[metric.column].to_numpy(dtype=float)
        colors = [FLAGGED if (int(g), metric.key) in flagged else PLAIN for g in table["GPU"]]
        ax.bar(x, np.nan_to_num(values), color=colors)
        finite = values[np.isfinite(values)]
        if len(finite) > 1:
            ax.axhline(float(np.median(finite)), color="grey", linestyle="--", linewidth=1)
        ax.set_xticks(x, labels)
        ax.set_xlabel("GPU")
        ax.set_title(f"{metric.column}\n{metric.worse + ' is worse' if metric.worse else 'not compared'}", fontsize=9)
    for ax in list(axes.flat)[len(metrics) :]:
        ax.set_visible(False)
    return finish(fig, title or "Every GPU, metric by metric (dashed: the node's median; red: flagged)", path)
