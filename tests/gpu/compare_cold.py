"""hetprobe's cold sends against tests/gpu/bare_cold.cu, launch by launch (tests/gpu/cold.sh): per size,
each launch's bare cold and warm medians and cold/warm ratio beside hetprobe interference --gap's SSB
point (send_time_ns: the cold sends; warm_send_time_ns; cold_over_warm_median and its 95% interval),
the medians over the launches, and hetprobe's cold median over the bare program's.
   compare_cold.py RESULTS_DIR LAUNCHES      (bare-N.txt and hetprobe-N.jsonl, N = 1..LAUNCHES)
Exit 0 when at every size hetprobe's cold median over the launches is within 10% of the bare program's,
and at 1 KiB each launch's cold/warm interval lies within ±15% of its median (a wide one says the cold
sends are not yet steady); 1 when not, naming each; 2 for a missing or malformed file."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from checks import BadInput, ci_text, picked_points, present, results_and_launches, results_file  # noqa: E402

RELATIVE, CI_HALF_WIDTH, CI_SIZE = 0.10, 0.15, 1024


def bare_lines(path: Path) -> dict:
    """{size: (cold us, warm us, ratio, ci low, ci high)} of the `bare-cold SIZE ...` lines."""
    out = {}
    for line in present(path).read_text().splitlines():
        if line.startswith("bare-cold "):
            fields = line.split()
            try:
                out[int(fields[1])] = tuple(float(x) for x in fields[2:7])
            except (ValueError, IndexError):
                raise BadInput(f"{path}: malformed line {line!r}") from None
    if not out:
        raise BadInput(f"{path}: no `bare-cold` line (did bare_cold run?)")
    return out


def points(path: Path) -> dict:
    """{size: (cold us, warm us, ratio, ci low or None, ci high or None)} of the SSB point records."""

    def cold(r: dict):
        if r.get("layout") != "SSB":
            return None
        if r.get("warm_send_time_ns") is None:
            raise BadInput(f"{path}: the {r.get('size_bytes')} B point has no warm sends (run without --gap?)")
        ci = r.get("cold_over_warm_ci95") or (None, None)
        return int(r["size_bytes"]), (
            r["send_time_ns"]["median"] / 1e3,
            r["warm_send_time_ns"]["median"] / 1e3,
            float(r["cold_over_warm_median"]),
            *ci,
        )

    out = picked_points(path, cold)
    if not out:
        raise BadInput(f"{path}: no SSB point record")
    return out


def row(*cells) -> None:
    print("| " + " | ".join(c if isinstance(c, str) else f"{c:.3f}" for c in cells) + " |")


def main(argv: list[str]) -> int:
    results, launches = results_and_launches(argv, __doc__)
    try:
        bare = [bare_lines(results / f"bare-{n}.txt") for n in range(1, launches + 1)]
        mine = [points(results_file(results, f"hetprobe-{n}")) for n in range(1, launches + 1)]
        sizes = sorted(set().union(*bare))
        for n in range(launches):
            for size in sizes:
                for name, got in ((f"bare-{n + 1}.txt", bare[n]), (f"hetprobe-{n + 1}.jsonl", mine[n])):
                    if size not in got:
                        raise BadInput(f"{results / name}: no {size}-byte result")
    except BadInput as e:
        print(f"compare_cold.py: {e}", file=sys.stderr)
        return 2
    failed = []
    for size in sizes:
        b, h = [launch[size] for launch in bare], [launch[size] for launch in mine]
        print(f"\n{size} bytes")
        row(
            "launch",
            *(f"{who} {what}" for who in ("bare", "hetprobe") for what in ("cold us", "warm us", "cold/warm (ci95)")),
        )
        print("|---|---|---|---|---|---|---|")
        for n in range(launches):
            row(str(n + 1), b[n][0], b[n][1], ci_text(b[n][2:]), h[n][0], h[n][1], ci_text(h[n][2:]))
        med = [[statistics.median(v[i] for v in side) for i in range(3)] for side in (b, h)]
        row("median", *med[0], *med[1])
        over = med[1][0] / med[0][0] if med[0][0] > 0 else float("inf")
        within = abs(over - 1) <= RELATIVE
        print(f"hetprobe/bare cold median: {over:.3f} ({over - 1:+.1%}): {'' if within else 'not '}within 10%")
        if not within:
            failed.append(f"{size} B: hetprobe's cold median {med[1][0]:.3f} us against the bare {med[0][0]:.3f} us")
        if size != CI_SIZE:
            continue
        for n, v in enumerate(h, 1):
            if v[3] is None or not (v[3] >= (1 - CI_HALF_WIDTH) * v[2] and v[4] <= (1 + CI_HALF_WIDTH) * v[2]):
                failed.append(
                    f"{size} B launch {n}: hetprobe's cold/warm {ci_text(v[2:])} wider than ±15% of its median"
                )
    print()
    print(f"failed: {'; '.join(failed)}" if failed else "hetprobe's cold sends agree with the bare program's")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
