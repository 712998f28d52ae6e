"""Each loaded point's ratio to SSB in an interference results file, with its 95% interval, one line each
("1.234 ci95 1.100-1.300"); tests/gpu/write16.sh prints it beside the bare program's.

    loaded_ratios.py FILE
"""

import json
import sys

with open(sys.argv[1]) as f:
    for line in f:
        r = json.loads(line)
        if r.get("record") == "point" and r["layout"] != "SSB":
            low, high = r["ratio_to_ssb_ci95"]
            print(f"{r['ratio_to_ssb_median']:.3f} ci95 {low:.3f}-{high:.3f}")
