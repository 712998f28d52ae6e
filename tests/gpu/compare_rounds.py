"""hetprobe's interference ratios against the bare program's, over the launches of tests/gpu/rounds.sh.

    compare_rounds.py RESULTS_DIR LAUNCHES [--tolerance 0.05] [--max-outside 1]

RESULTS_DIR holds bare-cpu-N.txt (tests/gpu/bare_load_rounds.cu's lines "size_bytes load ratio_median ...")
and interference-N.jsonl or .jsonl.gz (`hetprobe interference`, P2AB against SSB) for N = 1..LAUNCHES.
Prints, per size and load, each launch's median ratio to the idle send, bare and hetprobe, and
hetprobe's median over the launches divided by the bare program's (notebooks/data/h100-rounds/README.md's
table). Exits 1 when more than --max-outside points lie beyond --tolerance of 1 or a point is missing on
one side (docs/probes/interference.md: "within 5% at 11 of 12 points" on one H100; the 16 MiB write is
the point tests/gpu/write16.sh looks into),
2 for bad input.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from checks import jsonl, read_jsonl


def bare_ratios(path: Path) -> dict[tuple[int, str], float]:
    out = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0].isdigit():
            out[(int(parts[0]), parts[1])] = float(parts[2])
    return out


def hetprobe_ratios(path: Path) -> dict[tuple[int, str], float]:
    return {
        (r["size_bytes"], r["load"]["kind"]): r["ratio_to_ssb_median"]
        for r in read_jsonl(path)
        if r.get("record") == "point" and r["layout"] != "SSB"
    }


def size_text(size: int) -> str:
    return f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", type=Path)
    p.add_argument("launches", type=int)
    p.add_argument("--tolerance", type=float, default=0.05, help="how far hetprobe / bare may lie from 1")
    p.add_argument("--max-outside", type=int, default=1, help="how many points may lie beyond it")
    a = p.parse_args(argv)
    try:
        launches = range(1, a.launches + 1)
        bare = [bare_ratios(a.results / f"bare-cpu-{n}.txt") for n in launches]
        hp = [hetprobe_ratios(jsonl.results_file(a.results, f"interference-{n}")) for n in launches]
    except (OSError, ValueError, KeyError) as e:
        print(f"compare_rounds.py: cannot read {a.results}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    points = sorted(set().union(*bare, *hp))
    print(f"{'size':>7} {'load':<6} {'bare (each launch)':<24} {'hetprobe (each launch)':<24} hetprobe / bare")
    outside, missing = [], []
    for point in points:
        b = [run[point] for run in bare if point in run]
        h = [run[point] for run in hp if point in run]
        name = f"{size_text(point[0])} {point[1]}"
        if len(b) < len(bare) or len(h) < len(hp):
            missing.append(name)
            print(f"{name:>14}: missing in {len(bare) - len(b)} bare, {len(hp) - len(h)} hetprobe launch(es)")
            continue
        quotient = statistics.median(h) / statistics.median(b)
        beyond = abs(quotient - 1) > a.tolerance
        if beyond:
            outside.append(f"{name} {quotient:.3f}")
        print(
            f"{size_text(point[0]):>7} {point[1]:<6} {' '.join(f'{v:.3f}' for v in b):<24} "
            f"{' '.join(f'{v:.3f}' for v in h):<24} {quotient:.3f}{'  beyond' if beyond else ''}"
        )
    within = len(points) - len(outside) - len(missing)
    print(
        f"hetprobe / bare within {100 * a.tolerance:g}% at {within} of {len(points)} points "
        f"(at most {a.max_outside} beyond allowed)"
        + (f"; beyond: {', '.join(outside)}" if outside else "")
        + (f"; missing: {', '.join(missing)}" if missing else "")
    )
    return 0 if points and not missing and len(outside) <= a.max_outside else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
