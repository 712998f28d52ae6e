#!/usr/bin/env bash
# The main job: set up, build, and characterise this node (a GPU backend where
# there is a GPU, else CPU threads): notification costs, the clock relation,
# and the default interference sweep on two ranks. Results go to
# hetprobe-results/<probe>-<host>-<UTC time>.jsonl. Extra arguments go to
# `hetprobe interference`.
source "$(dirname "$0")/setup.sh"
mkdir -p "$root/hetprobe-results"
stamp=$(hostname)-$(date -u +%Y%m%dT%H%M%SZ)
results=$root/hetprobe-results
"$build/bench/hetprobe" notify --out "$results/notify-$stamp.jsonl"
"$build/bench/hetprobe" clock --out "$results/clock-$stamp.jsonl"
mpirun -np 2 "${mpirun_flags[@]}" "$build/bench/hetprobe" interference --out "$results/interference-$stamp.jsonl" "$@"
