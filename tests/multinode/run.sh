#!/usr/bin/env bash
# The tests across hosts, on hosts simulated on this machine (testbed.sh):
# two_hosts.sh (characterize --hosts), four_hosts.sh (the pair sweeps, merge,
# a killed pair resumed) and slurm.sh (a real Slurm: submit_pairs.sh through
# sbatch and srun). Each makes its own test bed and removes it; each says
# "skipped: ..." and passes where namespaces (or Slurm) cannot run: not root.
#   tests/multinode/run.sh [TEST...]     (default: all three; TEST: two_hosts, ...)
# HETPROBE, PYTHON: as common.sh says. Exit 1 when a test failed; its last
# lines and build/multinode/TEST/logs/ say why.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tests=("$@")
((${#tests[@]})) || tests=(two_hosts four_hosts slurm)
failed=()
began=$SECONDS
for t in "${tests[@]}"; do
  start=$SECONDS
  if bash "$here/$t.sh"; then
    echo "multinode: $t done in $((SECONDS - start)) s"
  else
    echo "multinode: $t FAILED after $((SECONDS - start)) s"
    failed+=("$t")
  fi
done
if ((${#failed[@]})); then
  echo "multinode: FAILED ${failed[*]} ($((SECONDS - began)) s)"
  exit 1
fi
echo "multinode: ${#tests[@]} test(s) passed or skipped in $((SECONDS - began)) s"
