"""Medians of the runs compare_builds.sh made: one row per measurement, the
old build's runs and the new build's side by side, as a Markdown table.
usage: compare_medians.py RESULTS_DIR (holding old-N/ and new-N/)"""

import json
import pathlib
import statistics
import sys


def records(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def medians(run_dir):
    """{measurement name: (median, unit)} of one run directory."""
    out = {}
    for r in records(run_dir / "sweep.jsonl"):
        if r.get("record") == "point":
            key = f"interference {r['layout']} {r['access']} {r['size_bytes']} B send"
            out[key] = (r["send_time_ns"]["median"], "ns")
    for r in records(run_dir / "notify.jsonl"):
        if r.get("record") == "roundtrip" and r.get("direction") == "cpu-gpu-cpu":
            s = r["setup"]
            key = f"notify roundtrip {s['cpu_order']}:{s['gpu_order']} {r['timed_by']}-timed"
            out[key] = (r["roundtrip_ns"]["median"], "ns")
    for r in records(run_dir / "bandwidth.jsonl"):
        if r.get("record") == "point":
            out[f"bandwidth {r['writer']}"] = (r["median_gbs"], "GB/s")
    return out


def main():
    root = pathlib.Path(sys.argv[1])
    runs = {
        side: [medians(d) for d in sorted(root.glob(f"{side}-*")) if (d / "bandwidth.jsonl").exists()]
        for side in ("old", "new")
    }
    keys = list(runs["new"][0]) if runs["new"] else []
    print("| measurement | unit | old (each run) | new (each run) | new/old of medians |")
    print("|---|---|---|---|---|")
    for k in keys:
        old = [m[k][0] for m in runs["old"] if k in m]
        new = [m[k][0] for m in runs["new"] if k in m]
        unit = runs["new"][0][k][1]
        ratio = statistics.median(new) / statistics.median(old) if old and new and statistics.median(old) else None
        fmt = (lambda v: f"{v:.1f}") if unit == "ns" else (lambda v: f"{v:.2f}")
        print(
            f"| {k} | {unit} | {', '.join(map(fmt, old))} | {', '.join(map(fmt, new))} | "
            f"{'' if ratio is None else f'{ratio:.3f}'} |"
        )


if __name__ == "__main__":
    main()
