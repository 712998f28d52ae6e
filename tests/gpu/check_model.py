"""The node model's predictions (`hetprobe model RUN --halo FILE --format json`, one document per halo
launch, all of one fit; tests/gpu/model.sh) against the measured exchanges. Prints each launch's setups,
then each setup pooled over the launches (a launch is the unit of replication): the median over the
launches of its median error, which must lie within 10% (issue 35's bar). Exit 1 naming each miss.

    check_model.py MODEL_JSON...
"""

import json
import statistics
import sys

BAR = 0.10
if not sys.argv[1:]:
    sys.exit("check_model.py: no model documents given")
pooled = {}
for path in sys.argv[1:]:
    with open(path) as f:
        doc = json.load(f)
    for p in doc["predictions"]:
        low, high = p["error_ci95"] or (float("nan"), float("nan"))
        print(
            f"{path.rsplit('/', 1)[-1]}: cube {p['cube']:>4} {p['setup']:<44} measured "
            f"{p['measured_comm_ns_median'] / 1e3:8.1f} us, predicted {p['predicted_comm_ns_median'] / 1e3:8.1f} us, "
            f"error {p['error_median'] * 100:+6.1f}% (95% CI {low * 100:+.1f} to {high * 100:+.1f}), "
            f"traffic {p['traffic_gbs_median']:.2f} GB/s"
        )
        pooled.setdefault((p["cube"], p["setup"]), []).append(p["error_median"])
misses = 0
for (cube, setup), errors in pooled.items():
    error = statistics.median(errors)
    ok = abs(error) <= BAR
    misses += not ok
    launches = ", ".join(f"{e * 100:+.1f}" for e in errors)
    print(
        f"{'ok  ' if ok else 'MISS'} cube {cube:>4} {setup:<44} error {error * 100:+6.1f}% "
        f"(median of {len(errors)} launches: {launches})"
    )
print(f"check_model: {misses} of {len(pooled)} setups beyond {BAR:.0%} pooled over {len(sys.argv) - 1} launches")
sys.exit(1 if misses else 0)
