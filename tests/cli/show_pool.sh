#!/usr/bin/env bash
# `hetprobe show --pool`: three launches of one command on an H100
# (notebooks/data/h100-rounds) pooled into one row per point, with each
# launch's ratio, the interval from their spread and the effect it supports;
# fewer than 3 launches give no interval; launches of another setting are refused;
# one file is one launch (the same file twice, or a copy of it, is refused),
# --table is refused, and the table names each launch it pooled; a header
# whose config is missing or not an object is named with exit 2 (it once
# aborted, or printed the JSON library's own exception); a run directory's steps
# are pooled apart, each under its name.
set -euo pipefail
hp=$1
data=$(cd "$(dirname "$0")/../../notebooks/data/h100-rounds" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$("$hp" show --pool "$data"/interference-{1,2,3}.jsonl.gz --format csv)
rows=$(grep -c "^[0-9]" <<<"$out")
((rows == 12)) || fail "expected 12 pooled points, got $rows"
# 16 MiB write: launches 1.118 1.147 1.201, their interval wholly above 1.05.
grep -q "^16777216,stacked,P2AB,write x1,3,1.11.*,slowdown," <<<"$out" || fail "16 MiB write is not a slowdown: $out"
# Every other point: no effect beyond noise.
(($(grep -c ",none," <<<"$out") == 11)) || fail "expected 11 points without an effect"
two=$("$hp" show --pool "$data"/interference-{1,2}.jsonl.gz)
grep -q "fewer than 3 launches" <<<"$two" || fail "two launches should carry no interval"
if "$hp" show --pool "$data"/interference-1.jsonl.gz "$data"/interference-gap2ms.jsonl.gz 2>/dev/null; then
  fail "launches with different gaps were pooled"
fi
grep -q "launches: $data/interference-1.jsonl.gz, $data/interference-2.jsonl.gz" <<<"$two" ||
  fail "the pooled launches are not named: $two"
# A run directory: each step's launches pooled apart, the loads' step first, each under its name.
run=$(cd "$(dirname "$0")/../../notebooks/data/h200x2-characterize-default" && pwd)
steps=$("$hp" show --pool "$run" | grep "^==>")
[[ $steps == "==> interference (3 launches) <=="$'\n'"==> interference-cold (1 launch) <=="$'\n'"==> interference-rate (1 launch) <==" ]] ||
  fail "a run directory's steps, pooled apart: $steps"
# 16 MiB write from 2 GPUs: the three launches' ratios, the report's 1.319 and its interval.
grep -q "16 MiB stacked  P2AB   write x2                  3 1.275 1.319 1.483           1.319   1.11-1.65 slowdown" \
  <<<"$("$hp" show --pool "$run")" || fail "the loads' 16 MiB write x2 is not pooled as the report has it"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$data/interference-1.jsonl.gz" "$work/copy.jsonl.gz"
for twice in "$data/interference-1.jsonl.gz $data/interference-1.jsonl.gz" \
  "$data/interference-1.jsonl.gz $data/../h100-rounds/interference-1.jsonl.gz" \
  "$data/interference-1.jsonl.gz $work/copy.jsonl.gz"; do
  code=0
  # shellcheck disable=SC2086  # two paths, split on purpose
  err=$("$hp" show --pool $twice "$data/interference-2.jsonl.gz" 2>&1 >/dev/null) || code=$?
  ((code == 2)) || fail "the same launch twice ($twice): exit $code, expected 2"
  grep -q "one file is one launch" <<<"$err" || fail "the same launch twice: $err"
done
code=0
"$hp" show --pool --table interference "$data"/interference-{1,2,3}.jsonl.gz >/dev/null 2>&1 || code=$?
((code == 2)) || fail "--table with --pool: exit $code, expected 2"
for config in 'del h["config"]' 'h["config"] = "oops"'; do
  python3 -c "import gzip, json, sys
lines = gzip.open(sys.argv[1], 'rt').read().splitlines()
h = json.loads(lines[0])
$config
open(sys.argv[2], 'w').write(json.dumps(h) + '\n' + '\n'.join(lines[1:]) + '\n')" "$data/interference-2.jsonl.gz" "$work/bad.jsonl"
  for order in "$data/interference-1.jsonl.gz $work/bad.jsonl" "$work/bad.jsonl $data/interference-1.jsonl.gz"; do
    code=0
    # shellcheck disable=SC2086  # two paths, split on purpose
    err=$("$hp" show --pool $order 2>&1 >/dev/null) || code=$?
    ((code == 2)) || fail "a header with $config: exit $code, expected 2: $err"
    grep -q "bad.jsonl:1: field 'config'" <<<"$err" || fail "a header with $config: $err"
  done
done
echo "show_pool: OK"
