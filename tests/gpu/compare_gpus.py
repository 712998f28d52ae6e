"""`hetprobe gpus` against tests/gpu/bare_gpus.cu, launch by launch (tests/gpu/gpus.sh): each GPU's median
over the launches of each number both measure, side by side, and whether hetprobe's is within 10%.
   compare_gpus.py RESULTS_DIR LAUNCHES      (bare-N.txt and gpus-N.jsonl, N = 1..LAUNCHES)
Exit 0 when every number is within 10%, 1 when not, 2 for bad input."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from checks import read_jsonl  # noqa: E402

KEYS = ("roundtrip_ns", "launch_sync_ns", "copy_d2h_gbs", "copy_h2d_gbs")


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not (argv[1].isascii() and argv[1].isdigit()):
        print(__doc__, file=sys.stderr)
        return 2
    results, launches = Path(argv[0]), int(argv[1])
    bare: dict = {}
    mine: dict = {}
    for n in range(1, launches + 1):
        for line in (results / f"bare-{n}.txt").read_text().splitlines():
            fields = dict(f.split("=") for f in line.split()[1:])
            for k in KEYS:
                bare.setdefault((int(fields["gpu"]), k), []).append(float(fields[k]))
        rounds = [r for r in read_jsonl(results / f"gpus-{n}.jsonl") if r.get("record") == "gpu_round"]
        for k in KEYS:
            for gpu in {r["gpu"] for r in rounds}:
                values = [r["metrics"][k] for r in rounds if r["gpu"] == gpu and r["metrics"][k] is not None]
                mine.setdefault((gpu, k), []).append(statistics.median(values))
    ok = True
    print("| GPU | number | bare, per launch | hetprobe gpus, per launch | medians | within 10% |")
    print("|---|---|---|---|---|---|")
    for key in sorted(bare):
        b, h = statistics.median(bare[key]), statistics.median(mine[key])
        within = abs(h / b - 1) <= 0.10
        ok &= within
        print(
            f"| {key[0]} | {key[1]} | {', '.join(f'{x:.4g}' for x in bare[key])} | "
            f"{', '.join(f'{x:.4g}' for x in mine[key])} | {h:.4g} vs {b:.4g} ({h / b - 1:+.1%}) | {within} |"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
