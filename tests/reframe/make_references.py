"""References for hetprobe_node_check.py from a node known to be good: its characterize run's
numbers (characterize.json's per_gpu rows' "numbers", and the interference headline's ratios where
it measured the pair: value, unit and which way is worse, as hetprobe writes them), each with a
bound in the direction that is bad (times and ratios up, GB/s and the link down) at --tolerance;
a number never compared (clock drift: each GPU's oscillator differs) recorded without bounds.
Prints the JSON file to keep beside the test:

    python3 tests/reframe/make_references.py RUN_DIR --system mycluster:gpu --tolerance 10% \\
        > tests/reframe/references/mycluster.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def fraction(text: str) -> float:
    value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text}: expected a fraction (0.1) or a percent (10%) above 0 and below 1")
    return value


def variables(manifest: dict) -> dict[str, tuple]:
    """Every number of a characterize run that the ReFrame check holds to a reference, by performance
    variable name: each GPU's numbers (gpu<N>_<metric>: characterize.json's per_gpu rows' "numbers"),
    and, where the run measured the interference pair, its headline ratios to SSB (headline_warm_ratio,
    headline_cold_ratio: characterize.json's "headline"); each (value, unit, which way is worse, None
    for a number never compared). KeyError for a run from before the per-GPU numbers."""
    out = {}
    for gpu, row in enumerate(manifest["per_gpu"]):
        for key, number in row["numbers"].items():
            out[f"gpu{gpu}_{key}"] = (number["value"], number["unit"], number["worse"])
    for pick in ("warm", "cold"):
        chosen = (manifest.get("headline") or {}).get(pick) or {}
        if isinstance(chosen.get("value"), (int, float)):
            out[f"headline_{pick}_ratio"] = (chosen["value"], chosen["unit"], "higher")
    return out


def references(manifest: dict, tolerance: float) -> dict:
    out = {}
    for name, (value, unit, worse) in variables(manifest).items():
        lower, upper = (None, tolerance) if worse == "higher" else (-tolerance, None) if worse else (None, None)
        out[name] = [value, lower, upper, unit]
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir", type=Path, help="a characterize run directory of the good node")
    p.add_argument("--system", default="*", help="ReFrame's system:partition the references are for (default: *)")
    p.add_argument("--tolerance", type=fraction, default=0.1, help="how much worse a number may be (default: 10%%)")
    a = p.parse_args(argv)
    try:
        manifest = json.loads((a.run_dir / "characterize.json").read_text())
        per_gpu = manifest["per_gpu"]
        if not per_gpu or not all(isinstance(row.get("numbers"), dict) for row in per_gpu):
            raise KeyError("per_gpu rows with numbers: a run of hetprobe from before 2026-12-07 has none")
    except (OSError, ValueError, KeyError) as e:
        print(f"make_references: error: {a.run_dir}: no per-GPU numbers in characterize.json ({e})", file=sys.stderr)
        return 2
    entries = [f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in references(manifest, a.tolerance).items()]
    print("{\n  " + json.dumps(a.system) + ": {\n" + ",\n".join(entries) + "\n  }\n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
