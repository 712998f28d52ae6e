"""How long reading a run takes, for a change that must keep it no slower (issue 52): hetprobe.load of a run
directory, Results.interference_ratios of it (the aggregates C++ pools), and `hetprobe show --pool` of three
launches, each repeated and reported as median [min, max] in ms with the repetitions.

    python3 bench/reading/time_reading.py RUN_DIR [--hetprobe BIN ...] [--repeat N]

RUN_DIR: a characterize run directory whose interference step has three launches (interference.jsonl,
interference.launch2.jsonl, interference.launch3.jsonl, or .jsonl.gz). Each --hetprobe binary's show --pool
is timed in turn, round by round, so two builds are compared under the same load."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path


def spread(ms: list[float]) -> str:
    return f"{statistics.median(ms):.1f} ms [{min(ms):.1f}, {max(ms):.1f}], n={len(ms)}"


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--hetprobe", action="append", default=[], help="a hetprobe binary whose show --pool to time")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat: at least 1")
    import hetprobe

    launches = [
        next(args.run_dir.glob(f"interference{suffix}.jsonl*"), None) for suffix in ("", ".launch2", ".launch3")
    ]
    if None in launches:
        parser.error(f"{args.run_dir}: expected three launches of the interference step")
    load, ratios = [], []
    show: dict[str, list[float]] = {b: [] for b in args.hetprobe}
    for _ in range(args.repeat):
        results = None

        def read():
            nonlocal results
            results = hetprobe.load(args.run_dir)

        load.append(timed(read))
        ratios.append(timed(lambda: results.interference_ratios()))
        for binary in args.hetprobe:
            command = [binary, "show", "--pool", *map(str, launches)]
            show[binary].append(timed(lambda c=command: subprocess.run(c, check=True, capture_output=True)))
    print(f"hetprobe.load({args.run_dir}): {spread(load)}")
    print(f"Results.interference_ratios(): {spread(ratios)}")
    for binary, ms in show.items():
        print(f"{binary} show --pool (3 launches): {spread(ms)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
