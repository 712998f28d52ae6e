"""tests/cli/no_gpu.sh's reading of `hetprobe devices --json`: one line per GPU backend built in, its name,
its device count and why it has none (empty where it has some).

    gpu_backends.py DEVICES_JSON
"""

import json
import sys

with open(sys.argv[1]) as f:
    for b in json.load(f)["backends"]:
        if b["backend"] != "host":
            print(b["backend"], b["devices"], b["why_none"] or "")
