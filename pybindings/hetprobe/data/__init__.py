"""The results, read: hetprobe.load (load) into a Results (results), the JSON Lines reader (jsonl)
and the one place that reads older schema versions in the current form (upgrade), the records as
pandas frames (converters: one per record type; frames: the columns; clock: the clock's samples),
the schema they follow (schema, fields), the interference launches pooled (launches),
characterize's step files (steps), merging files (merge), the halo rates (halo_rates, standard
library only) and the checks of files to be written (paths).

The tables of a Results, raw floats in pandas frames, are here too (hetprobe.data.notify_table, ...):
the notify probe's (notify_tables), the loads' (loads), ratios to SSB as rows (ratios), two runs
side by side (compare) and the halo probe's (halo), with the rows they select (select) and their
units (units). No plotting here: hetprobe.plots draws them."""

from .compare import compare_table
from .halo import halo_phases, halo_rates, halo_table
from .loads import load_points, load_table, worst_slowdown
from .notify_tables import mechanism_table, notify_table, roundtrip_table
from .ratios import ratio_rows

__all__ = [
    "notify_table",
    "roundtrip_table",
    "mechanism_table",
    "load_points",
    "load_table",
    "worst_slowdown",
    "ratio_rows",
    "compare_table",
    "halo_table",
    "halo_phases",
    "halo_rates",
]
