#!/usr/bin/env bash
# Two hosts (hpa, hpb) on one machine: `hetprobe characterize --hosts hpa,hpb`
# runs its interference steps with one rank on each, over Open MPI's TCP BTL;
# every results file names both hosts, every point says how its message
# crossed, and show says so. Bad --hosts are refused (exit 2) before anything
# is written.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
skip_unless_testbed
testbed_up 2

run=$work/characterize
step characterize 0 on head "$PYTHON" -m hetprobe characterize --quick --device host --hosts hpa,hpb \
  --skip notify,clock,bandwidth --progress lines "$run"
for f in "$run"/interference*.jsonl; do check pair "$f" hpa hpb; done
step show 0 on head "$HETPROBE" show "$run/interference.jsonl"
expect_in show "sender hpa (rank 0), receiver hpb (rank 1): different hosts; Open MPI's tcp BTL (TCP)"
expect_in show "between hosts the tcp BTL (TCP), eager limit"
expect_in show "reached"

# Bad --hosts: exit 2, the reason, and no run directory.
for bad in "one-host hpa expected two host names" "twice hpa,hpa listed twice" "unknown hpa,hpz unknown host"; do
  read -r name hosts why <<<"$bad"
  step "hosts-$name" 2 on head "$PYTHON" -m hetprobe characterize --quick --device host --hosts "$hosts" "$work/$name"
  expect_in "hosts-$name" "$why"
  [[ ! -e $work/$name ]] || { echo "FAILED: $test_name: --hosts $hosts wrote $work/$name" >&2; exit 1; }
done
echo "$test_name: passed"
