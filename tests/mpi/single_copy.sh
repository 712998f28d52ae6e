#!/usr/bin/env bash
# MPI's transport in the header (mpi.transport) and --single-copy, Open MPI
# only: a mechanism asked for is in effect and said so, and one taken from the
# environment is traced to it.
source "$(dirname "$0")/common.sh"
if ! "${mpirun[0]}" --version 2>&1 | grep -Eq "Open MPI|OpenRTE"; then
  echo "single_copy.sh: not Open MPI ($("${mpirun[0]}" --version 2>&1 | head -n1)): --single-copy does not apply"
  exit 77
fi
# FILE KEY=VALUE...: rank 0's mpi.transport has these values (a value ending in * is a prefix).
check() {
  python3 - "$@" <<'PY'
import json, sys
path, pairs = sys.argv[1], sys.argv[2:]
header = json.loads(open(path).readline())
t = header["mpi"]["transport"]
assert t["library"] == "open-mpi" and t["source"] == "MPI_T control variables" and t["control_variables"] > 0, t
assert t["pml"] == "ob1" and t["shared_memory_btl"] in t["btl_components"], t
assert isinstance(t["eager_limit_bytes"], int) and t["eager_limit_bytes"] > 0, t
assert t["single_copy_source"] == t["setting_sources"][next(k for k in t["settings"] if "single_copy" in k or k == "smsc")]
for pair in pairs:
    key, want = pair.split("=", 1)
    got = t
    for part in key.split("."):
        got = got[part]
    ok = got.startswith(want[:-1]) if want.endswith("*") else got == want
    assert ok, f"{path}: mpi.transport.{key} is {got!r}, expected {want!r}"
print(f"{path}: mpi.transport ok ({t['single_copy']}, from {t['single_copy_source']})")
PY
}
halo=(halo --device host --cube 40 --variants baseline --iterations 2 --warmup 1 --mpi-reps 1 --quiet)

"${mpirun[@]}" "$HETPROBE" "${halo[@]}" --single-copy none --out "$work/none.jsonl" >/dev/null
check "$work/none.jsonl" single_copy=none single_copy_requested=none "single_copy_source=--single-copy via OMPI_MCA_*"
"$HETPROBE" show "$work/none.jsonl" | grep -E "^# MPI: Open MPI [0-9.]+, pml ob1, btl .*, single copy none \(--single-copy"

# Interference, keeping what the environment says (Open MPI 4's variable; 5 reads OMPI_MCA_smsc instead).
OMPI_MCA_btl_vader_single_copy_mechanism=none "${mpirun[@]}" "$HETPROBE" interference --device host --sizes 1KiB \
  --layouts SSB --access stream --reps 2 --warmup 1 --no-host-stream --quiet --out "$work/keep.jsonl" >/dev/null
if grep -q '"version":"4\.' "$work/keep.jsonl"; then
  check "$work/keep.jsonl" single_copy=none single_copy_requested=keep \
    "single_copy_source=environment OMPI_MCA_btl_vader_single_copy_mechanism" \
    environment.OMPI_MCA_btl_vader_single_copy_mechanism=none
  "$HETPROBE" show "$work/keep.jsonl" | grep -F "single copy none (environment OMPI_MCA_btl_vader_single_copy_mechanism)"
else
  check "$work/keep.jsonl" single_copy_requested=keep
fi

# A mechanism this Open MPI was built without is refused before MPI_Init:
# tests/cli/single_copy_missing.sh. (check_single_copy, after MPI_Init, stops a
# run whose mechanism Open MPI has but did not take, e.g. cma without ptrace.)
