#!/usr/bin/env bash
# loads.sh gpus|rates: the multi-GPU load path on the host backend with 3
# simulated devices, or paced load rates (a fraction and GB/s): recorded with
# their targets and never above them by more than 10% (the load's threads share
# a core with a rank that busy-polls MPI here, so they may fall short; the
# device suite's KeepsASetRate holds every kind within 10% both ways).
source "$(dirname "$0")/common.sh"
run=("${mpirun[@]}" "$HETPROBE" interference --device host --warmup 1 --timeout 60 --quiet
     --no-host-stream --load-bytes 2MiB --out "$work/r.jsonl")
case $1 in
  gpus)
    # 0 GPUs is the baseline; 1, 2 and 3 GPUs, each other GPU into its own buffer.
    HETPROBE_HOST_DEVICES=3 "${run[@]}" --sizes 4KiB --access stream --layouts SSB,P2AB --load write,copy-h2d \
      --load-gpus 0:all --reps 3 >"$work/table.txt"
    cat "$work/table.txt"
    grep -q "write x3" "$work/table.txt"
    "$CHECK" "$work/r.jsonl" 7 3
    ;;
  rates)
    "${run[@]}" --sizes 4MiB --access stream --layouts SSB,PCB --load write,read --load-rate 0.05,0.2GB/s \
      --reps 5 >"$work/table.txt"
    cat "$work/table.txt"
    "$CHECK" "$work/r.jsonl" 5 5 --rate-ceiling 0.1
    ;;
  *) echo "loads.sh gpus|rates"; exit 2 ;;
esac
