"""tests/cli/host_cpu_name.sh's check: HETPROBE_HOST_CPU_NAME names the host backend's device in `devices
--json` (WORK/devices.json), the results header's ranks (device and node, WORK/n.jsonl) and show's table
(WORK/show.txt). Exit 1 (an AssertionError) where it does not.

    check_host_cpu_name.py WORK
"""

import json
import os
import sys

work, name = sys.argv[1], os.environ["HETPROBE_HOST_CPU_NAME"]
with open(f"{work}/devices.json") as f:
    host = next(b for b in json.load(f)["backends"] if b["backend"] == "host")
assert [d["name"] for d in host["list"]] == [name], host["list"]
with open(f"{work}/n.jsonl") as f:
    header = json.loads(f.readline())
assert [r["device"]["name"] for r in header["ranks"]] == [name], header["ranks"]
assert [r["node"]["cpu_model"] for r in header["ranks"]] == [name]
with open(f"{work}/show.txt") as f:
    assert name in f.read(), "show does not name the device"
