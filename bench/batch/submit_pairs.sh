#!/usr/bin/env bash
# Submits one sweep_pair.sbatch job per node pair (hosts 1+2, 3+4, ... of
# HOSTFILE, or every pair with --all-pairs). Each job merges the folder when
# it ends, so OUTDIR/merged.jsonl grows as jobs finish.
#
#   bench/batch/submit_pairs.sh [--all-pairs] HOSTFILE [sbatch options...] -- [interference options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/batch_common.sh"
all_pairs=0
if [[ ${1:-} == --all-pairs ]]; then all_pairs=1; shift; fi
(($# >= 1)) || { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
hostfile=$1
shift
sbatch_args=()
while (($#)) && [[ $1 != -- ]]; do sbatch_args+=("$1"); shift; done
[[ ${1:-} == -- ]] && shift
hosts_text=$(read_hosts submit_pairs "$hostfile")  # Slurm's node names: not resolved here
mapfile -t hosts <<<"$hosts_text"
for ((i = 0; i < ${#hosts[@]}; i++)); do
  for ((j = i + 1; j < ${#hosts[@]}; j++)); do
    ((all_pairs)) || ((j == i + 1 && i % 2 == 0)) || continue
    sbatch --nodelist="${hosts[i]},${hosts[j]}" --export="ALL,HETPROBE_BATCH_DIR=$here" "${sbatch_args[@]}" "$here/sweep_pair.sbatch" "$@"
  done
done
