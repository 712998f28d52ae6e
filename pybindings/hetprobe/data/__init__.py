"""The results, read: hetprobe.load (load) into a Results (results), the JSON Lines reader (jsonl)
and the one place that reads older schema versions in the current form (upgrade), the records as
pandas frames (converters: one per record type; frames: the columns; clock: the clock's samples),
the schema they follow (schema, fields), the interference launches pooled (launches),
characterize's step files (steps), merging files (merge), the halo rates (halo_rates, standard
library only) and the checks of files to be written (paths). No plotting here."""
