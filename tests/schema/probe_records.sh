#!/usr/bin/env bash
# Every probe on the host backend with small settings, writing results files,
# then every line validated against the JSON schema (issue 14 item 4): a field
# of the wrong type, a missing required field, a field or record type the
# schema does not describe, or a record type of the schema no run wrote, fails.
# probe_records.sh HETPROBE PYTHON SCHEMA MPIEXEC [MPIEXEC FLAGS...]
set -euo pipefail
hp=$1 python=$2 schema=$3
shift 3
mpiexec=("$@")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# Without jsonschema (a GPU node with no network) the test is skipped and says
# why; CI (CI=true; bench/setup.sh installs python3-jsonschema) must run it.
if ! "$python" -c "import jsonschema" 2>/dev/null; then
  echo "schema.probe_records: $python has no jsonschema (Debian: python3-jsonschema; or -DHETPROBE_TEST_PYTHON=...)"
  [[ ${CI:-} == true ]] && exit 1
  exit 77
fi
run() { "$@" >/dev/null || { echo "FAIL: $*"; exit 1; }; }

run "$hp" notify --device host --exchanges 100 --mechanism-samples 20 --overhead-samples 3 --overhead-ops 100 \
  --warmup 2 --orders volatile --quiet --out "$work/notify.jsonl"
# The clock on a device slowed on purpose: its header says so (simulated_slowdown).
HETPROBE_HOST_SLOW=0:2 run "$hp" clock --device host --span 0.3 --batches 2 --check-after 0.1 --samples 20 --quiet \
  --out "$work/clock.jsonl"
run "$hp" bandwidth --device host --size 1MiB --reps 2 --duration 0.01 --load write,copy-d2h --out "$work/bandwidth.jsonl"
HETPROBE_HOST_DEVICES=2 run "${mpiexec[@]}" -n 2 "$hp" gpus --device host --size 1MiB --exchanges 50 --rounds 2 --quiet \
  --out "$work/gpus.jsonl"
# Interference: the loads (host_memory first), the receiver's writer and loads, and the paper's writer with its timeline.
run "${mpiexec[@]}" -n 2 "$hp" interference --device host --sizes 1KiB --reps 3 --warmup 1 --access stream \
  --load write,copy-d2h --load-bytes 64KiB --load-rate 1,0.5 --writer both --quiet --out "$work/interference.jsonl"
run "${mpiexec[@]}" -n 2 "$hp" interference --device host --sizes 1KiB --reps 3 --warmup 1 --access stream --paper \
  --no-host-stream --quiet --out "$work/interference-paper.jsonl"
# The interference launch pooled, as records (its aggregates).
run "$hp" show --pool "$work/interference.jsonl" --records "$work/interference-pooled.jsonl"
run "${mpiexec[@]}" -n 2 "$hp" halo --device host --cube 40 --rounds 2 --iterations 2 --warmup 1 --quiet --out "$work/halo.jsonl"
# A layout file (the header's cubes: null) with a message long enough for the stages' busy rates.
printf '0 1 70000\n1 0 70000\n0 1 24\n1 0 24\n' >"$work/layout.txt"
run "${mpiexec[@]}" -n 2 "$hp" halo --device host --layout-file "$work/layout.txt" --variants baseline,notify-stream --rounds 2 \
  --iterations 2 --warmup 1 --quiet --out "$work/halo-file.jsonl"

# Each probe that declares its records in its folder, with the small settings its declaration names.
for declaration in "$here"/../../bench/*/records.schema.json; do
  read -r -a smoke < <("$python" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["probe"], *d["smoke"])' "$declaration")
  run "$hp" "${smoke[@]}" --device host --quiet --out "$work/${smoke[0]}.jsonl"
done

"$python" "$here/validate_records.py" "$schema" "$work"/*.jsonl
