"""The Python package's in-process probes on a GPU (tests/gpu/python.sh): hetprobe.devices() picks a GPU,
hetprobe.notify() gives round trips and hetprobe.clock() a fit; prints them, exit 1 naming what is missing.

    check_inprocess.py   (with the hetprobe package importable)
"""

import sys

import hetprobe

devices = hetprobe.devices()
print(devices["auto_reason"])
r = hetprobe.notify(parts="roundtrip", orders="volatile,fence", exchanges=5000)
rt = r.summary[r.summary["metric"] == "roundtrip_ns"]
print(rt[["cpu_order", "gpu_order", "direction", "n", "median", "p10", "p90"]].to_string(index=False))
c = hetprobe.clock(span=2, check_after=1)
fit = c.summary[c.summary["record"] == "clock_fit"]
print(fit[["drift_ppm", "precision_ns", "samples_used"]].to_string(index=False))
missing = [
    what
    for what, bad in [
        (f"a GPU (--device auto picked {devices['auto']})", devices["auto"] == "host"),
        ("notify round trips", rt.empty),
        ("a clock fit", fit.empty),
    ]
    if bad
]
if missing:
    print(f"missing: {', '.join(missing)}")
    sys.exit(1)
