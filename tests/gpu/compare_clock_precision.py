"""The clock fit's precision against the bare program's (tests/gpu/clock_precision.sh): per launch, the
fit's precision within 1.1 of the bare sync exchange's half minimum, and the launches within 5% of each other;
exit 1 otherwise.

    compare_clock_precision.py RESULTS_DIR LAUNCHES   (bare-N.txt and clock-N.jsonl for N = 1..LAUNCHES)
"""

import json
import sys

results, launches = sys.argv[1], int(sys.argv[2])
precisions, ok = [], True
for launch in range(1, launches + 1):
    bare = dict(kv.split("=") for kv in open(f"{results}/bare-{launch}.txt").read().split() if "=" in kv)
    half, cpu_half = float(bare["device_half_min_ns"]), float(bare["fence_half_min_ns"])
    fit = next(r for r in map(json.loads, open(f"{results}/clock-{launch}.jsonl")) if r.get("record") == "clock_fit")
    p = fit["precision_ns"]
    precisions.append(p)
    within = p <= 1.1 * half
    ok &= within
    print(
        f"launch {launch}: precision {p:.1f} ns (best {fit['best_precision_ns']:.1f} ns, {fit['samples_used']} of "
        f"{fit['samples_total']} samples); bare sync exchange: half minimum {half:.1f} ns, ratio {p / half:.3f} "
        f"({'within' if within else 'above'} 1.1); bare CPU-timed ping-pong: half minimum {cpu_half:.1f} ns, "
        f"ratio {p / cpu_half:.3f}"
    )
spread = max(precisions) / min(precisions)
ok &= spread < 1.05
print(
    f"precision over {launches} launches: {min(precisions):.1f}-{max(precisions):.1f} ns, max/min {spread:.3f} "
    f"({'below' if spread < 1.05 else 'not below'} 1.05)"
)
sys.exit(0 if ok else 1)
