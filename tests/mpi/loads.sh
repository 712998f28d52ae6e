#!/usr/bin/env bash
# loads.sh gpus|rates|resume: the multi-GPU load path on the host backend with
# 3 simulated devices, or paced load rates (a fraction and GB/s): recorded with
# their targets and never above them by more than 10% (the load's threads share
# a core with a rank that busy-polls MPI here, so they may fall short; the
# device suite's KeepsASetRate holds every kind within 10% both ways), or
# --resume finding paced points by their rate.
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
  resume)
    # A point is found again by its rate's value: a run at 50% and 1, resumed
    # at 0.5 and 100%, has nothing left to measure (by label it would measure
    # the size again).
    small=(--sizes 4KiB --access stream --layouts SSB,PCB --load write --reps 2 --rounds 2)
    "${run[@]}" "${small[@]}" --load-rate 50%,1 >/dev/null
    before=$(points_in "$work/r.jsonl")
    ((before == 3))
    "${run[@]}" "${small[@]}" --load-rate 0.5,100% --resume >/dev/null 2>"$work/resume.txt"
    cat "$work/resume.txt"
    (($(points_in "$work/r.jsonl") == before))
    grep -q "3 points (3 already in $work/r.jsonl)" "$work/resume.txt"
    "$CHECK" "$work/r.jsonl" 3 2 --headers 2
    ;;
  *) echo "loads.sh gpus|rates|resume"; exit 2 ;;
esac
