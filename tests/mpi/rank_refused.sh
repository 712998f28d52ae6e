#!/usr/bin/env bash
# An input refused on one rank and accepted on the other is refused on both,
# one class of rank-dependent check at a time: the probes check locally and
# settle what the ranks share (the seed) only once every rank's check passed,
# so no rank waits inside a collective the refusing rank never reaches.
# Expected for each: exit 2 within the timeout, the refusing rank's message,
# no results file.
#   1. an option only one rank can judge (--load-devices and its own GPU);
#   2. a test environment variable set badly on one rank (the launcher's
#      MPMD form: `mpirun -np 1 A : -np 1 env X=... A`), for each probe;
#   3. other options on one rank (MPMD), which once ran and paired the two.
source "$(dirname "$0")/common.sh"
# The launcher's MPMD form from $MPIRUN ("mpirun -n 2 FLAGS..."): mpirun FLAGS... -n 1 A : -n 1 B.
launcher=("${mpirun[0]}") count=()
for ((i = 1; i < ${#mpirun[@]}; i++)); do
  if [[ ${mpirun[i]} == -n || ${mpirun[i]} == -np ]]; then count=("${mpirun[i]}" 1) && ((i += 1))
  else launcher+=("${mpirun[i]}"); fi
done
mpmd() {  # RANK0_COMMAND... -- RANK1_COMMAND...: the launch, in the array `launch`
  local first=()
  while [[ $1 != -- ]]; do first+=("$1") && shift; done
  shift
  launch=("${launcher[@]}" "${count[@]}" "${first[@]}" : "${count[@]}" "$@")
}
refused() {  # NAME MESSAGE COMMAND...: exit 2, MESSAGE on stderr, no results file
  local name=$1 message=$2 code=0
  shift 2
  rm -f "$work/r.jsonl"
  timeout 60 "$@" >"$work/out.txt" 2>"$work/err.txt" || code=$?
  if ((code != 2)); then
    echo "rank_refused ($name): exit $code, expected 2 (124: a rank hung in a collective)"
    cat "$work/err.txt"
    exit 1
  fi
  grep -qF -- "$message" "$work/err.txt" || { echo "rank_refused ($name): no \"$message\""; cat "$work/err.txt"; exit 1; }
  [[ ! -e $work/r.jsonl ]] || { echo "rank_refused ($name): a results file was written"; exit 1; }
  echo "rank_refused ($name): exit 2, its message, no file"
}
# 1. Rank 0 drives device 0, rank 1 device 1: --load-devices 1 starts with rank 1's own GPU only.
HETPROBE_HOST_DEVICES=2 refused "an option one rank refuses" \
  "error: --load-devices 1: the list starts with the sending rank's own GPU (0)" \
  "${mpirun[@]}" "$HETPROBE" interference --device host --sizes 1KiB --load-devices 1 --out "$work/r.jsonl"
# 2. and 3., probe by probe.
for probe in interference notify gpus clock bandwidth halo; do
  args=("$probe" --device host --out "$work/r.jsonl")
  mpmd "$HETPROBE" "${args[@]}" -- env HETPROBE_HOST_DEVICES=0 "$HETPROBE" "${args[@]}"
  refused "$probe: a test variable set badly on rank 1" "HETPROBE_HOST_DEVICES=0 is not a count from 1 to 64" \
    "${launch[@]}"
  mpmd "$HETPROBE" "${args[@]}" -- "$HETPROBE" "${args[@]}" --quiet
  refused "$probe: other options on rank 1" "rank 1 was given other options than rank 0" "${launch[@]}"
done
