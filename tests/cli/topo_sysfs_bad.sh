#!/usr/bin/env bash
# topo_sysfs_bad.sh HETPROBE DATA_DIR: a sysfs tree (HETPROBE_SYSFS_ROOT)
# whose link files are not what the kernel writes never hangs or crashes
# topo: a FIFO or a device is not read (topo ends at once), a speed no PCIe
# link has ("1e308 GT/s") is not taken and says why, and bytes that are not
# UTF-8 are replaced, so --json stays valid. Each link is reported as not
# read (or partly read), with the reason; topo itself succeeds.
set -uo pipefail
hp=$1
xml=$2/two-socket-gpus-nic.xml
# shellcheck source=scratch.sh
source "$(dirname "$0")/scratch.sh"
sysfs=$work  # stands in for /sys
dev=$sysfs/bus/pci/devices/0000:ca:00.0
mkdir -p "$dev"
echo 16 >"$dev/current_link_width"
echo 16 >"$dev/max_link_width"
topo() {  # topo's tree (or --json), within 30 s, exit 0
  local out
  out=$(HETPROBE_SYSFS_ROOT=$sysfs timeout 30 "$hp" topo --topology-file "$xml" "$@" 2>&1)
  local rc=$?
  [[ $rc != 124 ]] || fail "topo $* did not end within 30 s"
  [[ $rc == 0 ]] || fail "topo $* exit code $rc: $out"
  printf '%s\n' "$out"
}
link_line() { awk '/GPU 0000:ca:00.0/{getline; print}' <<<"$1"; }

ln -s /dev/zero "$dev/current_link_speed"
mkfifo "$dev/max_link_speed"
line=$(link_line "$(topo)")
echo "$line"
grep -qF "current_link_speed is a character device, not a regular file" <<<"$line" || fail "/dev/zero not named"
grep -qF "max_link_speed is a FIFO, not a regular file" <<<"$line" || fail "FIFO not named"
grep -qF "? GT/s x16 of max ? GT/s x16" <<<"$line" || fail "the widths were not read beside them"

rm "$dev/current_link_speed" "$dev/max_link_speed"
echo "1e308 GT/s PCIe" >"$dev/current_link_speed"
echo "16.0 GT/s PCIe" >"$dev/max_link_speed"
line=$(link_line "$(topo)")
echo "$line"
grep -qF "current_link_speed '1e308 GT/s PCIe': not a PCIe link speed (above 0, at most 256 GT/s)" <<<"$line" ||
  fail "1e308 GT/s taken or not explained"
grep -Eq '[0-9]{20}' <<<"$line" && fail "a number of 20 digits or more printed"
topo --json | python3 -c '
import json, sys
link = {g["pci_bus_id"]: g["sysfs_link"] for g in json.load(sys.stdin)["gpus"]}["0000:ca:00.0"]
assert link["current_speed_gts"] is None and link["max_speed_gts"] == 16.0, link
assert any("1e308" in u for u in link["unreadable"]), link
' || fail "topo --json: 1e308 GT/s"

# Nothing readable, and not UTF-8: the reason quotes the bytes, replaced.
printf '\xff\xfe GT/s\n' >"$dev/current_link_speed"
printf 'Unknown \xc3\x28\n' >"$dev/max_link_speed"
printf '0\n' >"$dev/current_link_width"
printf '0\n' >"$dev/max_link_width"
json=$(topo --json) || exit 1
python3 -c '
import json, sys
link = {g["pci_bus_id"]: g["sysfs_link"] for g in json.loads(sys.argv[1])["gpus"]}["0000:ca:00.0"]
assert link["status"] == "skipped", link
assert "current_link_speed '"'"'\ufffd\ufffd GT/s'"'"'" in link["skipped_reason"], link
' "$json" || fail "topo --json: invalid UTF-8 not replaced"
echo "OK: topo reads a bad sysfs tree without hanging, crashing or printing what no link has"
