#!/usr/bin/env bash
# Four hosts (hpa..hpd) on one machine: bench/batch/sweep_pairs.sh with their
# hosts file runs pairs 1+2 and 3+4, then every pair (--all-pairs), one rank on
# each host of a pair; `hetprobe merge` of both holds every pair. A pair killed
# in the middle (its hosts and the launcher) resumes where it stopped, with no
# point measured twice. Bad hosts files are refused (exit 2).
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
skip_unless_testbed
testbed_up 4
# shellcheck disable=SC2054  # commas inside options
sweep=(--device host --sizes 1KiB,64KiB --layouts SSB --access stream --rounds 2 --reps 2 --warmup 1
  --no-host-stream --quiet)

step pairs 0 on head "$root/bench/batch/sweep_pairs.sh" "$tb_dir/hosts" "$work/pairs" "${sweep[@]}"
check pair "$work/pairs/interference-hpa-hpb.jsonl" hpa hpb
check pair "$work/pairs/interference-hpc-hpd.jsonl" hpc hpd
check merged "$work/pairs/merged.jsonl" hpa,hpb hpc,hpd

step all-pairs 0 on head "$root/bench/batch/sweep_pairs.sh" --all-pairs "$tb_dir/hosts" "$work/all" "${sweep[@]}"
# shellcheck disable=SC2054  # pairs a,b
all=(hpa,hpb hpa,hpc hpa,hpd hpb,hpc hpb,hpd hpc,hpd)
for pair in "${all[@]}"; do check pair "$work/all/interference-${pair/,/-}.jsonl" "${pair%,*}" "${pair#*,}"; done
check merged "$work/all/merged.jsonl" "${all[@]}"
step merge 0 on head "$PYTHON" -m hetprobe merge -o "$work/every-pair.jsonl" "$work/pairs" "$work/all"
check merged "$work/every-pair.jsonl" "${all[@]}"

# A pair killed in the middle: hpc, hpd and the launcher die at once; the
# sweep run again resumes the file. 4 sizes x 2 access x (SSB + 3 layouts) = 32 points.
printf 'hpc\nhpd\n' >"$work/hosts-cd"
# shellcheck disable=SC2054  # commas inside options
long=(--device host --sizes 1KiB:64KiB:x4 --access stream,stacked --layouts SSB,PSB,PCB,P2AB --load-bytes 4MiB
  --rounds 2 --reps 5 --warmup 1 --no-host-stream --quiet)
out=$work/killed/interference-hpc-hpd.jsonl
points() {
  local n
  n=$(grep -c '"record":"point"' "$out" 2>/dev/null) || true
  echo "${n:-0}"
}
on head "$root/bench/batch/sweep_pairs.sh" "$work/hosts-cd" "$work/killed" "${long[@]}" >"$tb_log/killed.log" 2>&1 &
sweep_pid=$!
for _ in $(seq 1200); do (($(points) >= 4)) && break; sleep 0.1; done
kill_hosts head hpc hpd
wait "$sweep_pid" 2>/dev/null || true
kept=$(points)
echo "$test_name: killed the pair with $kept of 32 points in its file"
((kept >= 4 && kept < 32)) || { echo "FAILED: $test_name: $kept points when killed (expected 4 to 31)" >&2; exit 1; }
step resume 0 on head "$root/bench/batch/sweep_pairs.sh" "$work/hosts-cd" "$work/killed" "${long[@]}"
check resumed "$out" 32
check pair "$out" hpc hpd

# Bad hosts files: exit 2, each with its reason, nothing written.
printf '' >"$work/empty"
printf 'hpa\n' >"$work/one"
printf 'hpa\n   \nhpb\n' >"$work/blank"
printf 'hpa\nhpz\n' >"$work/unknown"
for bad in "empty names no hosts" "one fewer than 2 hosts" "blank a blank name" "unknown unknown host"; do
  read -r name why <<<"$bad"
  step "hostfile-$name" 2 on head "$root/bench/batch/sweep_pairs.sh" "$work/$name" "$work/out-$name" "${sweep[@]}"
  expect_in "hostfile-$name" "$why"
  [[ ! -e $work/out-$name ]] || { echo "FAILED: $test_name: hosts file $name wrote $work/out-$name" >&2; exit 1; }
done
echo "$test_name: passed"
