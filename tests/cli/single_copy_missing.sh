#!/usr/bin/env bash
# single_copy_missing.sh HETPROBE MPIEXEC MPIEXEC_ARGS...: --single-copy with
# a mechanism this Open MPI was built without is refused before MPI_Init:
# exit 2, hetprobe's message naming what Open MPI offers, said once, and none
# of Open MPI's own warnings before it. Skipped (77) where this is not Open
# MPI 4 or where it has every mechanism.
set -uo pipefail
hp=$1
shift
mpi=("$@")
fail() { echo "FAIL: $*"; exit 1; }
offered=$(ompi_info --param btl vader --level 9 2>/dev/null | grep -A3 'btl_vader_single_copy_mechanism' |
  grep -o 'Valid values:.*')
[[ -n $offered ]] || { echo "SKIP: no Open MPI 4 vader BTL here (ompi_info)"; exit 77; }
for mechanism in xpmem knem; do
  grep -q "\"$mechanism\"" <<<"$offered" && continue
  work=$(mktemp -d)
  "$(dirname "$0")/expect_usage_error.sh" \
    "^hetprobe halo: error: --single-copy $mechanism: this Open MPI [0-9.]+ was built without it; its shared-memory BTL offers .*none" -- \
    "${mpi[@]}" "$hp" halo --device host --single-copy "$mechanism" --out @OUT@ >"$work/log"
  rc=$?
  cat "$work/log"
  [[ $rc == 0 ]] || fail "--single-copy $mechanism"
  grep -q "invalid value was supplied\|ORTE_ERROR_LOG\|help-mca-var" "$work/log" && fail "Open MPI's warnings were printed"
  (($(grep -c "^hetprobe halo: error:" "$work/log") == 1)) || fail "the message is not said once"
  rm -rf "$work"
done
echo "OK: a single-copy mechanism Open MPI lacks is refused before MPI_Init, quietly"
