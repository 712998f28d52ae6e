#!/usr/bin/env bash
# An input refused on one rank and accepted on the other is refused on both:
# the probes check locally and settle what the ranks share (the seed) only
# once every rank's check passed, so no rank waits inside a collective the
# refusing rank never reaches. Expected: exit 2 within the timeout, the
# refusing rank's message, no results file.
source "$(dirname "$0")/common.sh"
# Rank 0 drives device 0, rank 1 device 1: --load-devices 1 starts with rank 1's own GPU only.
set +e
HETPROBE_HOST_DEVICES=2 timeout 60 "${mpirun[@]}" "$HETPROBE" interference --device host --sizes 1KiB \
  --load-devices 1 --out "$work/r.jsonl" >"$work/out.txt" 2>"$work/err.txt"
code=$?
set -e
if ((code != 2)); then
  echo "rank_refused: exit $code, expected 2 (124: a rank hung in a collective)"
  cat "$work/err.txt"
  exit 1
fi
grep -q "error: --load-devices 1: the list starts with the sending rank's own GPU (0)" "$work/err.txt"
[[ ! -e $work/r.jsonl ]]
echo "rank_refused: exit 2, one message, no file"
