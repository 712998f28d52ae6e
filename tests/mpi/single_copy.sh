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
  python3 "$(dirname "$0")/check_transport.py" "$@"
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
