#!/usr/bin/env bash
# The TCP stall of docs/cross-node.md, measured again on two simulated hosts:
# the sweep 1 KiB to 1 MiB with Open MPI's default binding (both ranks on core
# 0: the stall) and with none (the test bed's), LAUNCHES times alternating (a
# launch is the unit of replication), then 64 KiB and 1 MiB with one thing
# changed at a time, each an MCA setting given for that run only. Not a test:
# it measures (no bounds), a file per run into OUTDIR, with its table beside it.
#   tests/multinode/tcp_stall.sh OUTDIR     (root; HETPROBE as common.sh says;
#                                            LAUNCHES, default 3)
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
out=$(realpath -m "${1:?usage: tcp_stall.sh OUTDIR}")
skip_unless_testbed
testbed_up 2
mkdir -p "$out"
base=(--device host --layouts SSB --access stream --rounds 6 --reps 5 --warmup 1 --no-host-stream --quiet --seed 1)
# run NAME [MCA=VALUE...] -- [interference options...]
run() {
  local name=$1 mca=()
  shift
  while [[ $1 != -- ]]; do mca+=(--mca "${1%%=*}" "${1#*=}"); shift; done
  shift
  rm -f "$out/$name.jsonl"
  on head mpirun -np 2 --host hpa,hpb "${mca[@]}" "$HETPROBE" interference "${base[@]}" "$@" \
    --out "$out/$name.jsonl" >"$out/$name.txt"
  echo "tcp_stall: $name -> $out/$name.jsonl"
}
for ((launch = 1; launch <= ${LAUNCHES:-3}; launch++)); do
  suffix=$( ((launch == 1)) || echo ".launch$launch")
  run "bound-core$suffix" hwloc_base_binding_policy=core -- --sizes 1KiB:1MiB:x2
  run "unbound$suffix" -- --sizes 1KiB:1MiB:x2
done
run eager-boundary hwloc_base_binding_policy=core -- --sizes 65480,65481
run eager-limit-256k hwloc_base_binding_policy=core btl_tcp_eager_limit=262144 btl_tcp_rndv_eager_limit=262144 -- \
  --sizes 64KiB,1MiB
run nagle-on hwloc_base_binding_policy=core btl_tcp_use_nagle=1 -- --sizes 64KiB,1MiB
run yield-when-idle hwloc_base_binding_policy=core mpi_yield_when_idle=1 -- --sizes 64KiB,1MiB
run progress-thread hwloc_base_binding_policy=core btl_tcp_progress_thread=1 -- --sizes 64KiB,1MiB
