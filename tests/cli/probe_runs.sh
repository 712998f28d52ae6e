#!/usr/bin/env bash
# notify, clock and bandwidth end to end on the host backend: the records each
# run must write, rank 1's records under mpirun, and `hetprobe show` of the
# files. bandwidth in the common session frame: the header's planned records,
# --quiet (no progress lines, the table still printed: the one `hetprobe show`
# prints), progress lines without it, under mpirun each rank on its own
# device (--gpu's default: the node-local rank's), and its link record (the
# host device has no PCI address: skipped).
# probe_runs.sh HETPROBE MPIEXEC [MPIEXEC FLAGS...]
set -euo pipefail
hp=$1
shift
mpiexec=("$@")
# shellcheck source=scratch.sh
source "$(dirname "$0")/scratch.sh"
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
count() { grep -c "\"record\":\"$1\"" "$2" || true; }
# Records of FILE whose fields have these values, read by key (tests/records.py): FILE record=point rank=1.
records() { python3 "$(dirname "$0")/../records.py" count "$@"; }

small=(--exchanges 300 --mechanism-samples 100 --overhead-samples 5 --overhead-ops 200 --handover-samples 100 --warmup 10
  --quiet)
"$hp" notify --device host "${small[@]}" --out "$work/n.jsonl" >"$work/n.txt"
[[ $(count header "$work/n.jsonl") == 1 ]] || fail "notify: expected 1 header"
# 6 default order pairs x {cpu, gpu} x {uncontended, contended}; x {cpu, gpu}; x 2 directions.
[[ $(count overhead "$work/n.jsonl") == 24 ]] || fail "notify: expected 24 overhead records"
[[ $(count handover "$work/n.jsonl") == 12 ]] || fail "notify: expected 12 handover records"
[[ $(count roundtrip "$work/n.jsonl") == 12 ]] || fail "notify: expected 12 roundtrip records"
[[ $(count mechanism "$work/n.jsonl") == 12 ]] || fail "notify: expected 12 mechanism records"
[[ $(grep -c '"status":"ok"' "$work/n.jsonl") == 3 ]] || fail "notify: the 3 pinned-flag mechanisms must measure on host"
grep -q '"skipped_reason":"no kernel launches on the host backend"' "$work/n.jsonl" || fail "notify: no skip reason"
grep -q "## Mechanisms" "$work/n.txt" || fail "notify: no mechanism table"
grep -q "## One flag read + one flag write of a flag the other side wrote last" "$work/n.txt" ||
  fail "notify: no handover table"
# --parts handover alone: one record per side and order, nothing else measured.
"$hp" notify --device host --parts handover --orders volatile:relaxed --handover-samples 50 --warmup 5 --quiet \
  --out "$work/h.jsonl" >/dev/null
[[ $(count handover "$work/h.jsonl") == 2 && $(grep -c '"record":' "$work/h.jsonl") == 3 ]] ||
  fail "notify --parts handover: expected the header and 2 handover records"
grep -q '"timer_cost_ns":{' "$work/h.jsonl" || fail "notify --parts handover: no timer cost in the records"
"$hp" show "$work/n.jsonl" >"$work/n-show.txt"
grep -q "## Round trip" "$work/n-show.txt" || fail "show: no round-trip table from the notify file"

# Without --quiet: the progress lines on stderr name each record, count them
# (3 fit batches, the check batch, the fit), and say the time taken and left.
"$hp" clock --device host --span 0.6 --batches 3 --check-after 0.2 --samples 50 --out "$work/c.jsonl" >"$work/c.txt" \
  2>"$work/c.err"
grep -Eq "^\[4/5\] clock batch 3 \(check\) .* elapsed [0-9]+:[0-9]{2}  ETA [0-9]+:[0-9]{2}$" "$work/c.err" ||
  fail "clock: no progress line with elapsed time and ETA for the check batch"
grep -Eq "^\[5/5\] .* elapsed [0-9]+:[0-9]{2}$" "$work/c.err" || fail "clock: no last progress line (without ETA)"
[[ $(count clock_batch "$work/c.jsonl") == 4 ]] || fail "clock: expected 3 fit batches and 1 check batch"
[[ $(count clock_fit "$work/c.jsonl") == 1 ]] || fail "clock: expected 1 fit record"
grep -q '"within_precision":' "$work/c.jsonl" || fail "clock: no prediction check"
grep -q "drift" "$work/c.txt" || fail "clock: no drift in the table"
"$hp" show "$work/c.jsonl" >"$work/c-show.txt"
grep -q "fit over" "$work/c-show.txt" || fail "show: no fit from the clock file"

"${mpiexec[@]}" -n 2 "$hp" notify --device host --parts roundtrip --orders volatile "${small[@]}" --out "$work/m.jsonl" >/dev/null
[[ $(records "$work/m.jsonl" record=roundtrip rank=1) == 2 ]] || fail "notify under mpirun: rank 1's records missing"

# A field of the header (the file's first line) by its dotted path, as JSON (tests/records.py).
header() { python3 "$(dirname "$0")/../records.py" header "$@"; }

# 4 plain passes, 2 persistent writers, write stream and stacked, copy-d2h: 9 rows; then the link record.
small=(--device host --size 1MiB --reps 2 --duration 0.01 --load write,copy-d2h)
"$hp" bandwidth "${small[@]}" --quiet --out "$work/bq.jsonl" >"$work/bq.txt" 2>"$work/bq.err"
[[ ! -s "$work/bq.err" ]] || fail "--quiet: stderr not empty: $(head -3 "$work/bq.err")"
[[ $(records "$work/bq.jsonl" record=point probe=bandwidth) == 9 ]] || fail "expected 9 point records"
[[ $(records "$work/bq.jsonl" record=point rank=0) == 9 ]] || fail "every point record names rank 0"
# The host device has no PCI address: one link record, skipped, last, every link field null.
[[ $(count link "$work/bq.jsonl") == 1 ]] || fail "expected 1 link record"
tail -n 1 "$work/bq.jsonl" >"$work/last.jsonl"
link_fields=(record=link probe=bandwidth rank=0 status=skipped "skipped_reason=the device has no PCI address (host backend)"
  pci_bus_id=null read_while=null current_speed_gts=null max_speed_gts=null current_generation=null
  max_generation=null current_width=null max_width=null below_max=null sysfs=null)
[[ $(records "$work/last.jsonl" "${link_fields[@]}") == 1 ]] ||
  fail "the last record is not the skipped link record: $(cat "$work/last.jsonl")"
[[ $(header "$work/bq.jsonl" planned_records) == 10 ]] || fail "the header plans 10 records (9 rows, the link)"
grep -q "^# PCIe link: not read: the device has no PCI address (host backend)$" "$work/bq.txt" ||
  fail "no link line under the table"
[[ $(header "$work/bq.jsonl" config.reps) == 2 ]] || fail "the header's config has --reps"
grep -q "load copy-d2h" "$work/bq.txt" || fail "--quiet: no table on stdout"
"$hp" show "$work/bq.jsonl" >"$work/bq-show.txt"
diff "$work/bq-show.txt" "$work/bq.txt" || fail "the live table differs from hetprobe show's"

# Without --quiet: a progress line per record, the last one [10/10], the link's (not read on the host).
"$hp" bandwidth "${small[@]}" --out "$work/bp.jsonl" >/dev/null 2>"$work/bp.err"
grep -Eq "^\[9/10\] bandwidth load copy-d2h: median [0-9.]+ GB/s  elapsed [0-9]+:[0-9]{2}  ETA [0-9]+:[0-9]{2}$" \
  "$work/bp.err" || fail "no progress line for the last row: $(cat "$work/bp.err")"
grep -Eq "^\[10/10\] PCIe link: not read: .*  elapsed [0-9]+:[0-9]{2}$" "$work/bp.err" ||
  fail "no last progress line: $(cat "$work/bp.err")"
grep -q "results in $work/bp.jsonl" "$work/bp.err" || fail "no 'results in' line"

# Two ranks, two host devices, no --gpu: rank r measures device r; rank 1's records follow rank 0's.
HETPROBE_HOST_DEVICES=2 "${mpiexec[@]}" -n 2 "$hp" bandwidth "${small[@]}" --quiet --out "$work/bm.jsonl" >/dev/null
[[ $(records "$work/bm.jsonl" record=point rank=1) == 9 ]] || fail "mpirun: rank 1's 9 records missing"
[[ $(records "$work/bm.jsonl" record=link rank=1) == 1 ]] || fail "mpirun: rank 1's link record missing"
"$hp" show "$work/bm.jsonl" | grep -q "^# PCIe link (rank 1): not read" || fail "show: no link line naming rank 1"
[[ $(header "$work/bm.jsonl" mpi.ranks) == 2 ]] || fail "mpirun: the header's mpi.ranks is not 2"
[[ $(header "$work/bm.jsonl" "ranks[].device.ordinal") == "[0, 1]" ]] ||
  fail "mpirun: the ranks' devices are not 0 and 1"
echo "OK: notify, clock and bandwidth wrote every record; show printed them; bandwidth --quiet, progress, one device per rank"
