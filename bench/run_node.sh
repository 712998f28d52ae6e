#!/usr/bin/env bash
# The main job: set up, build, and characterise this node with the default
# interference sweep on two ranks (a GPU backend where there is a GPU, else
# CPU threads). Extra arguments go to `hetprobe interference`.
source "$(dirname "$0")/setup.sh"
mkdir -p "$root/hetprobe-results"
out=$root/hetprobe-results/interference-$(hostname)-$(date -u +%Y%m%dT%H%M%SZ).jsonl
mpirun -np 2 "${mpirun_flags[@]}" "$build/bench/hetprobe" interference --out "$out" "$@"
