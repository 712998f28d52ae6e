"""The results, read: hetprobe.load (load) into a Results (results), the JSON Lines reader (jsonl,
which reads older schema versions in the current form through C++'s upgrade), the records as
pandas frames (record_rows: each record type's rows, from its schema entry; frames: the columns;
clock: the clock's samples),
the schema they follow (schema, fields), the interference launches pooled (launches),
characterize's step files (steps), merging files (merge), the halo rates (halo_rates, standard
library only) and the checks of files to be written (paths).

The tables of a Results, raw floats in pandas frames, are here too (hetprobe.data.notify_table, ...):
the notify probe's (notify_tables), the loads' (loads), ratios to SSB as rows (ratios), two runs
side by side (compare) and the halo probe's (halo), with the rows they select (select), their
units (units) and the tables `hetprobe show` prints, computed by the C++ table code (show_tables).
No plotting here: hetprobe.plots draws them."""

from .compare import compare_table as compare_table
from .halo import (
    halo_launches as halo_launches,
    halo_phases as halo_phases,
    halo_rates as halo_rates,
    halo_table as halo_table,
)
from .loads import load_points as load_points, load_table as load_table, worst_slowdown as worst_slowdown
from .notify_tables import (
    loop_table as loop_table,
    mechanism_table as mechanism_table,
    notify_table as notify_table,
    roundtrip_table as roundtrip_table,
)
from .ratios import ratio_rows as ratio_rows
