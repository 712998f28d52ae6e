"""`hetprobe clock` with the ranks in turn against --concurrent (tests/gpu/clock_turns.sh): per GPU (rank) and
launch, the fit's precision, drift and check error (turns-N.jsonl, concurrent-N.jsonl), then per GPU the
medians of each way.
   compare_clock_turns.py RESULTS_DIR LAUNCHES
Exit 0 when on every GPU the concurrent median precision is within 5% of the in-turn one and the concurrent
launches' largest |check error| is within the in-turn launches' largest (or within the in-turn median
precision); 1 when not, naming each; 2 for a missing or malformed file."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from checks import BadInput, present, read_jsonl, results_and_launches  # noqa: E402

RELATIVE = 0.05
WAYS = ("turns", "concurrent")


def fits(path: Path) -> dict:
    """{rank: (precision_ns, drift_ppm, check error_ns)} of a clock results file's fits."""
    out = {}
    try:
        for r in read_jsonl(present(path)):
            if r.get("record") == "clock_fit":
                out[int(r["rank"])] = (float(r["precision_ns"]), float(r["drift_ppm"]), float(r["check"]["error_ns"]))
    except (ValueError, KeyError, TypeError) as e:
        raise BadInput(f"{path}: malformed ({type(e).__name__}: {e})") from None
    if not out:
        raise BadInput(f"{path}: no clock_fit record")
    return out


def main(argv: list[str]) -> int:
    results, launches = results_and_launches(argv, __doc__)
    try:
        runs = {(way, n): fits(results / f"{way}-{n}.jsonl") for n in range(1, launches + 1) for way in WAYS}
    except BadInput as e:
        print(f"compare_clock_turns.py: {e}", file=sys.stderr)
        return 2
    gpus = sorted(set.intersection(*(set(f) for f in runs.values())))
    print("| GPU | launch | way | precision ns | drift ppm | check error ns |")
    print("|---|---|---|---|---|---|")
    for g in gpus:
        for n in range(1, launches + 1):
            for way in WAYS:
                p, d, e = runs[way, n][g]
                print(f"| {g} | {n} | {way} | {p:.1f} | {d:.3f} | {e:.1f} |")
    failed = []
    print()
    for g in gpus:
        prec = {w: statistics.median(runs[w, n][g][0] for n in range(1, launches + 1)) for w in WAYS}
        err = {w: max(abs(runs[w, n][g][2]) for n in range(1, launches + 1)) for w in WAYS}
        drift = {w: [runs[w, n][g][1] for n in range(1, launches + 1)] for w in WAYS}
        over = prec["concurrent"] / prec["turns"]
        print(
            f"GPU {g}: precision median {prec['turns']:.1f} ns in turn, {prec['concurrent']:.1f} ns concurrent "
            f"({over:.3f}); largest |check error| {err['turns']:.1f} and {err['concurrent']:.1f} ns; drift "
            f"{min(drift['turns']):.3f}..{max(drift['turns']):.3f} and "
            f"{min(drift['concurrent']):.3f}..{max(drift['concurrent']):.3f} ppm"
        )
        if over > 1 + RELATIVE:
            failed.append(f"GPU {g}: concurrent precision {over:.3f} x the in-turn one")
        if err["concurrent"] > max(err["turns"], prec["turns"]):
            failed.append(f"GPU {g}: concurrent check error {err['concurrent']:.1f} ns beyond {err['turns']:.1f} ns")
    print(f"failed: {'; '.join(failed)}" if failed else "concurrent fits as precise as those in turn on every GPU")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
