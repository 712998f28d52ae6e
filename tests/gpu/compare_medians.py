"""Medians of the runs compare_builds.sh made: one row per measurement, the
old build's runs and the new build's side by side, as a Markdown table, and
whether the new build kept the number.
usage: compare_medians.py RESULTS_DIR [--tolerance 0.1] (RESULTS_DIR holding old-N/ and new-N/)

A measurement is not kept when the new/old ratio of the medians lies beyond
--tolerance of 1 and the runs do not overlap (every new run beyond every old
one, the same way): a move both large and consistent between launches. A
measurement in every new run and no old one is new, not missing. Exit 1
when one is not kept; exit 3 when a measurement or a side's runs are missing
(nothing that more runs would settle)."""

import argparse
import pathlib
import statistics
import sys

from checks import read_jsonl as records


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


NEW = "new: only this build measures it"


def kept(old, new, tolerance) -> bool:
    before, after = statistics.median(old), statistics.median(new)
    apart = min(new) > max(old) or max(new) < min(old)
    return not apart or (before != 0 and abs(after / before - 1) <= tolerance)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", type=pathlib.Path)
    p.add_argument("--tolerance", type=float, default=0.1, help="how far new/old may move (default 0.1)")
    a = p.parse_args()
    runs = {
        side: [medians(d) for d in sorted(a.results.glob(f"{side}-*")) if (d / "bandwidth.jsonl").exists()]
        for side in ("old", "new")
    }
    keys = list(dict.fromkeys(k for side in runs.values() for m in side for k in m))
    problems = [f"no {side} runs" for side, found in runs.items() if not found]
    incomplete = bool(problems)
    print("| measurement | unit | old (each run) | new (each run) | new/old of medians | kept |")
    print("|---|---|---|---|---|---|")
    for k in keys:
        old = [m[k][0] for m in runs["old"] if k in m]
        new = [m[k][0] for m in runs["new"] if k in m]
        unit = next(m[k][1] for side in runs.values() for m in side if k in m)
        complete = len(old) == len(runs["old"]) and len(new) == len(runs["new"]) and old and new
        ratio = statistics.median(new) / statistics.median(old) if complete and statistics.median(old) else None
        if not old and len(new) == len(runs["new"]):
            verdict = NEW
        elif not complete:
            verdict = "missing"
            incomplete = True
        elif kept(old, new, a.tolerance):
            verdict = "yes"
        else:
            verdict = f"no: beyond {100 * a.tolerance:g}%, runs apart"
        if verdict not in ("yes", NEW):
            problems.append(f"{k}: {verdict}")
        fmt = (lambda v: f"{v:.1f}") if unit == "ns" else (lambda v: f"{v:.2f}")
        print(
            f"| {k} | {unit} | {', '.join(map(fmt, old))} | {', '.join(map(fmt, new))} | "
            f"{'' if ratio is None else f'{ratio:.3f}'} | {verdict} |"
        )
    print()
    print(f"not kept: {'; '.join(problems)}" if problems else f"every measurement kept ({len(keys)})")
    return 3 if incomplete else 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
