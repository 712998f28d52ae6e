#!/usr/bin/env bash
# no_gpu.sh HETPROBE: on a machine without a GPU, --device auto says so plainly,
# once ("no GPU found (no CUDA driver); using the host backend"), and never shows
# the runtime's driver error as if it were a fault; --device cuda|hip is a usage
# error (exit 2) that says the same. Whatever this build carries: without a GPU
# backend the line says none is built in. Skipped (77) where a GPU is present.
set -uo pipefail
hp=$1
# shellcheck source=scratch.sh
source "$(dirname "$0")/scratch.sh"

"$hp" devices --json >"$work/devices.json" || fail "hetprobe devices --json exited $?"
# One line per GPU backend built in: NAME DEVICES WHY_NONE.
python3 "$(dirname "$0")/gpu_backends.py" "$work/devices.json" >"$work/gpu_backends" || fail "cannot read devices --json"
if awk '$2 > 0 { found = 1 } END { exit !found }' "$work/gpu_backends"; then
  echo "SKIP: this machine has a GPU: $(tr '\n' ' ' <"$work/gpu_backends")"
  exit 77
fi

# What auto must say: each backend's plain reason, or that none is built in.
reasons=$(cut -d' ' -f3- "$work/gpu_backends" | paste -sd';' | sed 's/;/; /g')
if [[ -z $reasons ]]; then
  expected="no GPU backend built in; using the host backend"
elif grep -Evq '^[a-z]+ 0 no (CUDA|HIP) (driver|device)$' "$work/gpu_backends"; then
  # A driver present but too old, or another runtime error: a fault, stated as one.
  expected="no usable GPU ("
else
  expected="no GPU found ($reasons); using the host backend"
fi
echo "GPU backends: $(tr '\n' ' ' <"$work/gpu_backends")"
echo "expect: $expected"

(cd "$work" && "$hp" notify --device auto --parts overhead --overhead-ops 10 --out "$work/n.jsonl") \
  >"$work/stdout" 2>"$work/stderr" || { cat "$work/stderr"; fail "notify --device auto exited $?"; }
cat "$work/stderr"
count=$(grep -oF -- "$expected" "$work/stderr" | wc -l)
[[ $count == 1 ]] || fail "'$expected' appears $count times in notify's messages, expected once"
! grep -Eq "cudaError|hipError|driver version is insufficient" "$work/stderr" "$work/stdout" ||
  [[ $expected == "no usable GPU (" ]] || fail "a runtime error is shown although there is simply no GPU"
grep -q '"backend":"host"' "$work/n.jsonl" || grep -q '"backend": "host"' "$work/n.jsonl" ||
  fail "the results do not say the host backend ran"

# Asked for by name, a GPU backend without a GPU is a usage error that says why, plainly.
while read -r backend _ why; do
  "$hp" notify --device "$backend" --parts overhead --out "$work/$backend.jsonl" >/dev/null 2>"$work/named.err"
  rc=$?
  cat "$work/named.err"
  [[ $rc == 2 ]] || fail "--device $backend without a GPU: exit code $rc, expected 2"
  grep -qF -- "--device $backend: no " "$work/named.err" || fail "--device $backend: the message does not say why"
  [[ ! -e $work/$backend.jsonl ]] || fail "--device $backend wrote a results file"
  [[ $why != "no "* ]] || ! grep -Eq "cudaError|hipError" "$work/named.err" ||
    fail "--device $backend shows a runtime error although there is simply no GPU"
done <"$work/gpu_backends"
echo "OK: --device auto says '$expected' once, and no driver error"
