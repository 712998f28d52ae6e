#!/usr/bin/env bash
# Sweeps message sizes across node pairs with plain mpirun: one interference
# run per pair (one rank on each node), each into its own results file, then
# one merged dataset. Run it again (or after a crash) and every pair resumes
# where it stopped: finished points are kept, missing ones are measured.
#
#   bench/batch/sweep_pairs.sh [--all-pairs] HOSTFILE OUTDIR [hetprobe interference options...]
#
# HOSTFILE: one host per line (# comments allowed; each must resolve here).
# Pairs: hosts 1+2, 3+4, ... (--all-pairs: every pair of distinct lines). Writes
# OUTDIR/interference-<host a>-<host b>.jsonl and OUTDIR/merged.jsonl.
# Environment: HETPROBE (the executable; default: the package's, else
# build/bench/hetprobe), MPIRUN (default mpirun), MPIRUN_FLAGS (extra flags).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/batch_common.sh"

all_pairs=0
if [[ ${1:-} == --all-pairs ]]; then all_pairs=1; shift; fi
if (($# < 2)); then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
hostfile=$1 outdir=$2
shift 2
hosts_text=$(read_hosts sweep_pairs "$hostfile" --resolve)  # exit 2 with its message for a bad file
mapfile -t hosts <<<"$hosts_text"
mkdir -p "$outdir"

pairs=()
if ((all_pairs)); then
  for ((i = 0; i < ${#hosts[@]}; i++)); do
    for ((j = i + 1; j < ${#hosts[@]}; j++)); do pairs+=("${hosts[i]},${hosts[j]}"); done
  done
else
  for ((i = 0; i + 1 < ${#hosts[@]}; i += 2)); do pairs+=("${hosts[i]},${hosts[i + 1]}"); done
  if ((${#hosts[@]} % 2)); then
    echo "sweep_pairs: ${hosts[-1]} has no partner (an odd number of hosts; --all-pairs pairs every host)" >&2
  fi
fi

failed=0
for pair in "${pairs[@]}"; do
  out=$outdir/interference-${pair/,/-}.jsonl
  echo "sweep_pairs: $pair -> $out" >&2
  # shellcheck disable=SC2086  # MPIRUN_FLAGS is a list of flags
  if ! "${MPIRUN:-mpirun}" -np 2 --host "$pair" ${MPIRUN_FLAGS:-} "$hetprobe" interference \
      --out "$out" --resume "$@"; then
    echo "sweep_pairs: $pair failed; its finished points are in $out (run again to resume)" >&2
    failed=1
  fi
done
merge_results "$outdir"
exit $failed
