#!/usr/bin/env bash
# `hetprobe topo` on a committed two-socket topology: the tree puts each GPU
# and the NIC under the NUMA node nearest it, and --json says the same.
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
echo "OK: topo from a file"
