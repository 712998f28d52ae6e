"""Figures of hetprobe results (matplotlib, object-oriented: each function returns a Figure).

Every plot function takes a Results (hetprobe.load), an optional `path=` to save a PNG (dpi 110)
and `title=` to replace the default title. Times are shown in µs unless the axis says ns. The
layouts have the same colours everywhere: SSB black (grey band), PSB red, PCB blue, P2AB green, OWN purple.

Interference (plots.interference): send_time, ratio_to_ssb, writer_timeline, compare; the loads
(plots.loads): slowdown_vs_traffic, slowdown_vs_gpus; several runs' ratios side by side
(plots.ratios): ratios_side_by_side. Every plot of ratios to SSB draws a point's 95% interval (files
measured in rounds) as error bars and shades the ±5% "no effect" margin around 1.
Notify and clock (plots.notify): roundtrip, mechanisms, clock. Every GPU of a node (plots.gpus):
per_gpu. The halo probe (plots.halo): halo_times, halo_timeline, halo_speedups.

The plots only draw. The tables beside them are hetprobe.data's: notify_table, roundtrip_table,
mechanism_table, load_table, worst_slowdown, ratio_rows, compare_table, halo_table, halo_phases,
halo_rates. Their old names here (hetprobe.plots.notify_table, ...) still work, with a
DeprecationWarning.
"""

from __future__ import annotations

import warnings

from .gpus import per_gpu
from .halo import halo_speedups, halo_timeline, halo_times
from .interference import compare, ratio_to_ssb, send_time, writer_timeline
from .loads import slowdown_vs_gpus, slowdown_vs_traffic
from .notify import clock, mechanisms, roundtrip
from .ratios import ratios_side_by_side

__all__ = [
    "send_time",
    "ratio_to_ssb",
    "writer_timeline",
    "compare",
    "slowdown_vs_traffic",
    "slowdown_vs_gpus",
    "ratios_side_by_side",
    "roundtrip",
    "mechanisms",
    "clock",
    "per_gpu",
    "halo_times",
    "halo_speedups",
    "halo_timeline",
]

# Tables that hetprobe.plots used to return, now hetprobe.data's: the old name warns and hands over.
MOVED_TABLES = (
    "notify_table",
    "roundtrip_table",
    "mechanism_table",
    "load_table",
    "worst_slowdown",
    "ratio_rows",
    "compare_table",
    "halo_table",
    "halo_phases",
    "halo_rates",
)


def __getattr__(name: str):
    if name in MOVED_TABLES:
        warnings.warn(
            f"hetprobe.plots.{name} is deprecated: the tables moved to hetprobe.data (hetprobe.data.{name})",
            DeprecationWarning,
            stacklevel=2,
        )
        from .. import data

        return getattr(data, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
