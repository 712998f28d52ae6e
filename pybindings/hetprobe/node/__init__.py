"""A node's GPUs side by side: the per-GPU table of a run (gpus), the node verdict that C++ computes,
against the node's others or a baseline (verdict), and a run against a known-good node's (check,
`hetprobe check`). Reads results through hetprobe.data; draws nothing."""
