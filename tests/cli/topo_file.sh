#!/usr/bin/env bash
# `hetprobe topo` on a committed two-socket topology: the tree puts each GPU
# and the NIC under the NUMA node nearest it, and --json says the same; with
# HETPROBE_SYSFS_ROOT, each GPU's PCIe link read from that sysfs tree.
# topo_file.sh HETPROBE DATA_DIR
set -euo pipefail
hp=$1
xml=$2/two-socket-gpus-nic.xml
fail() { echo "FAIL: $*"; exit 1; }
tree=$("$hp" topo --topology-file "$xml")
echo "$tree"
grep -q "2 package(s), 2 NUMA node(s), 32 cores, 64 PUs" <<<"$tree" || fail "counts"
# The line after "NUMA 1:" lists the GPU on PCI ca:00.0, then the NIC.
awk '/NUMA 1:/{on=1; next} on' <<<"$tree" | grep -q "GPU 0000:ca:00.0" || fail "GPU ca:00.0 not under NUMA 1"
awk '/NUMA 1:/{on=1; next} on' <<<"$tree" | grep -q "NIC 0000:cb:00.0.*mlx5_0 ib0" || fail "NIC not under NUMA 1"
awk '/NUMA 0:/{on=1} /NUMA 1:/{on=0} on' <<<"$tree" | grep -q "GPU 0000:17:00.0" || fail "GPU 17:00.0 not under NUMA 0"
json=$("$hp" topo --topology-file "$xml" --json)
grep -q '"pci_bus_id": "0000:cb:00.0"' <<<"$json" || fail "json lacks the NIC"
grep -q '"runtime_devices": \[\]' <<<"$json" || fail "a file's topology must not list this machine's runtime devices"
# A file's GPUs are not this machine's: no sysfs link is read for them...
grep -q "PCIe link" <<<"$tree" && fail "a file's GPUs got this machine's sysfs links"
grep -q '"sysfs_link"' <<<"$json" && fail "a file's GPUs got this machine's sysfs links (json)"
# ...unless HETPROBE_SYSFS_ROOT names a sysfs tree: ca:00.0 downtrained there, 17:00.0 absent.
sysfs=$(mktemp -d)
trap 'rm -rf "$sysfs"' EXIT
dev=$sysfs/bus/pci/devices/0000:ca:00.0
mkdir -p "$dev"
echo "2.5 GT/s PCIe" >"$dev/current_link_speed"
echo "16.0 GT/s PCIe" >"$dev/max_link_speed"
echo 16 >"$dev/current_link_width"
echo 16 >"$dev/max_link_width"
tree=$(HETPROBE_SYSFS_ROOT=$sysfs "$hp" topo --topology-file "$xml")
echo "$tree"
awk '/GPU 0000:ca:00.0/{getline; print}' <<<"$tree" |
  grep -qF "PCIe link (sysfs, idle read): 2.5 GT/s (gen 1) x16 of max 16.0 GT/s x16, below max" ||
  fail "no idle link line under GPU ca:00.0"
awk '/GPU 0000:17:00.0/{getline; print}' <<<"$tree" |
  grep -qF "PCIe link (sysfs): not read: no $sysfs/bus/pci/devices/0000:17:00.0" || fail "no reason for 17:00.0"
HETPROBE_SYSFS_ROOT=$sysfs "$hp" topo --topology-file "$xml" --json | python3 -c '
import json, sys
gpus = {g["pci_bus_id"]: g["sysfs_link"] for g in json.load(sys.stdin)["gpus"]}
ca, other = gpus["0000:ca:00.0"], gpus["0000:17:00.0"]
assert ca["read_while"] == "idle" and ca["status"] == "ok" and ca["below_max"] is True, ca
assert (ca["current_speed_gts"], ca["max_speed_gts"], ca["current_width"], ca["max_generation"]) == (2.5, 16.0, 16, 4), ca
assert other["status"] == "skipped" and other["skipped_reason"].startswith("no "), other
' || fail "topo --json: sysfs_link under each GPU"
echo "OK: topo from a file"
