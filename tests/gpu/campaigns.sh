#!/usr/bin/env bash
# The GPU campaigns in one command: runs each named campaign (tests/gpu/NAME.sh)
# with its defaults, one after the other, its console output also in
# $results/NAME.log, and fails when one does. Each campaign checks its own
# expectations (common.sh's expect) and ends with one line naming each that
# failed; this driver gathers those lines and ends with its own.
#   tests/gpu/campaigns.sh NAME...   run, rounds, repeat, gpus, clock_precision, clock_turns,
#                                    table1, cold, write16, kgpu, halo, model,
#                                    halo_parts, load, nodecheck, python (or a
#                                    script's path)
#   tests/gpu/campaigns.sh all       every one of them, in that order (kgpu,
#                                    halo and model need two GPUs; compare_builds, which
#                                    needs an old source, is run by itself)
# Exit 0 when every campaign met every expectation, 1 when not, 2 for an
# unknown name (then nothing runs).
# Results: each campaign's in its own default folder (or $RESULTS_DIR/NAME when
# RESULTS_DIR is set); this driver's logs in $RESULTS_DIR (default build-gpu/campaigns).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
known=(run rounds repeat gpus clock_precision clock_turns table1 cold write16 kgpu halo model halo_parts load nodecheck python)
usage() { echo "usage: tests/gpu/campaigns.sh NAME... | all   (NAME: ${known[*]}, or a script's path)" >&2; exit 2; }
(($#)) || usage
names=("$@")
[[ $* == all ]] && names=("${known[@]}")
scripts=()
for name in "${names[@]}"; do
  if [[ $name == */* ]]; then script=$name; else script=$here/$name.sh; fi
  [[ -f $script && $(basename "$script") != campaigns.sh ]] || { echo "campaigns.sh: no campaign $name ($script)" >&2; usage; }
  scripts+=("$script")
done
default_results=campaigns
campaign=campaigns
# shellcheck source=common.sh
source "$here/common.sh"
for script in "${scripts[@]}"; do
  name=$(basename "$script" .sh)
  step "campaign $name ($script)"
  log=$results/$name.log
  if [[ -n ${RESULTS_DIR:-} ]]; then
    expect "$name" 0 -- env RESULTS_DIR="$RESULTS_DIR/$name" bash "$script" 2>&1 | tee "$log"
  else
    expect "$name" 0 -- bash "$script" 2>&1 | tee "$log"
  fi
done
step "summary"
for script in "${scripts[@]}"; do
  name=$(basename "$script" .sh)
  grep -E "^$name: (all [0-9]+ expectations met|FAILED)" "$results/$name.log" | tail -n 1 ||
    echo "$name: no summary line: it stopped before its finish (see $results/$name.log)"
done
finish
