#!/usr/bin/env bash
# host_cpu_name.sh HETPROBE: HETPROBE_HOST_CPU_NAME (a test option) names the
# host CPU wherever this machine's name would show: the host backend's device
# (devices, a results header's ranks and show's table) and the header's node,
# so the suite can run as on a machine of another CPU (docs/testing.md).
set -uo pipefail
hp=$1
# shellcheck source=scratch.sh
source "$(dirname "$0")/scratch.sh"
export HETPROBE_HOST_CPU_NAME="Simulated(R) CPU, model 7 @ 2.0GHz"

"$hp" devices --json >"$work/devices.json" || fail "devices exited $?"
"$hp" notify --device host --parts overhead --overhead-ops 10 --quiet --out "$work/n.jsonl" >/dev/null ||
  fail "notify exited $?"
"$hp" show "$work/n.jsonl" >"$work/show.txt" || fail "show exited $?"
python3 "$(dirname "$0")/check_host_cpu_name.py" "$work" || fail "the simulated CPU name is not used everywhere (above)"
echo "OK: the host device and node are named '$HETPROBE_HOST_CPU_NAME'"
