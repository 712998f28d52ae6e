#!/usr/bin/env bash
# host_cpu_name.sh HETPROBE: HETPROBE_HOST_CPU_NAME (a test option) names the
# host CPU wherever this machine's name would show: the host backend's device
# (devices, a results header's ranks and show's table) and the header's node,
# so the suite can run as on a machine of another CPU (docs/testing.md).
set -uo pipefail
hp=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export HETPROBE_HOST_CPU_NAME="Simulated(R) CPU, model 7 @ 2.0GHz"

"$hp" devices --json >"$work/devices.json" || fail "devices exited $?"
"$hp" notify --device host --parts overhead --overhead-ops 10 --quiet --out "$work/n.jsonl" >/dev/null ||
  fail "notify exited $?"
"$hp" show "$work/n.jsonl" >"$work/show.txt" || fail "show exited $?"
python3 - "$work" <<'PY' || fail "the simulated CPU name is not used everywhere (above)"
import json, os, sys
work, name = sys.argv[1], os.environ["HETPROBE_HOST_CPU_NAME"]
host = next(b for b in json.load(open(f"{work}/devices.json"))["backends"] if b["backend"] == "host")
assert [d["name"] for d in host["list"]] == [name], host["list"]
header = json.loads(open(f"{work}/n.jsonl").readline())
assert [r["device"]["name"] for r in header["ranks"]] == [name], header["ranks"]
assert [r["node"]["cpu_model"] for r in header["ranks"]] == [name]
assert name in open(f"{work}/show.txt").read(), "show does not name the device"
PY
echo "OK: the host device and node are named '$HETPROBE_HOST_CPU_NAME'"
