"""The results, read: hetprobe.load and its Results (load), the records as pandas frames (frames,
clock), the schema they follow (schema, fields), the one place that reads older schema versions in
the current form (upgrade), characterize's step files (steps), merging files (merge), the halo
rates (halo_rates, standard library only) and the checks of files to be written (paths). No
plotting here: numpy and pandas at most."""
