"""A node's GPUs side by side: the per-GPU table of a run (gpus), and a run against a known-good
node's (check, `hetprobe check`). Reads results through hetprobe.data; draws nothing."""
