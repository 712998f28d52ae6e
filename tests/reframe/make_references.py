"""References for hetprobe_node_check.py from a node known to be good: its characterize run's
per-GPU table (characterize.json), each number with a bound in the direction that is bad (times
up, GB/s and the link down) at --tolerance; clock drift recorded without bounds (each GPU's
oscillator differs). Prints the JSON file to keep beside the test:

    python3 tests/reframe/make_references.py RUN_DIR --system mycluster:gpu --tolerance 10% \\
        > tests/reframe/references/mycluster.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# variable suffix: (the per-GPU table's column, unit, which way is worse)
METRICS = {
    "roundtrip_ns": ("round trip (ns)", "ns", "higher"),
    "launch_sync_ns": ("launch+sync (ns)", "ns", "higher"),
    "write_gbs": ("write (GB/s)", "GB/s", "lower"),
    "read_gbs": ("read (GB/s)", "GB/s", "lower"),
    "copy_d2h_gbs": ("copy-d2h (GB/s)", "GB/s", "lower"),
    "copy_h2d_gbs": ("copy-h2d (GB/s)", "GB/s", "lower"),
    "clock_drift_ppm": ("clock drift (ppm)", "ppm", None),
    "clock_precision_ns": ("clock precision (ns)", "ns", None),  # half the round trip, which is compared
    "link_speed_gts": ("link speed (GT/s)", "GT/s", "lower"),
    "link_width": ("link width (lanes)", "lanes", "lower"),
}


def fraction(text: str) -> float:
    value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text}: expected a fraction (0.1) or a percent (10%) above 0 and below 1")
    return value


def references(per_gpu: list[dict], tolerance: float) -> dict:
    out = {}
    for gpu, row in enumerate(per_gpu):
        for key, (column, unit, worse) in METRICS.items():
            value = row.get(column)
            if not isinstance(value, (int, float)):
                continue
            lower, upper = (None, tolerance) if worse == "higher" else (-tolerance, None) if worse else (None, None)
            out[f"gpu{gpu}_{key}"] = [value, lower, upper, unit]
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir", type=Path, help="a characterize run directory of the good node")
    p.add_argument("--system", default="*", help="ReFrame's system:partition the references are for (default: *)")
    p.add_argument("--tolerance", type=fraction, default=0.1, help="how much worse a number may be (default: 10%%)")
    a = p.parse_args(argv)
    try:
        per_gpu = json.loads((a.run_dir / "characterize.json").read_text())["per_gpu"]
    except (OSError, ValueError, KeyError) as e:
        print(f"make_references: error: {a.run_dir}: no per-GPU table in characterize.json ({e})", file=sys.stderr)
        return 2
    entries = [f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in references(per_gpu, a.tolerance).items()]
    print("{\n  " + json.dumps(a.system) + ": {\n" + ",\n".join(entries) + "\n  }\n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
