"""Table 1 of Elis et al. 2024, hetprobe against the bare program (tests/gpu/table1.sh): per launch the
bare program's line (bare-N.txt) beside hetprobe notify's handover records (notify-N.jsonl), then for
each side the median over the launches of each one's median pair, and whether hetprobe's is close.
usage: compare_table1.py RESULTS_DIR LAUNCHES

Close: within 10% of the bare program's, or within 10 ns where both are under 100 ns (a CPU pair of a
few tens of ns moves by more than 10% between launches). Exit 1 when a side is not close, or a launch
lacks its bare line or a handover record (a missing one is named)."""

import pathlib
import statistics
import sys

from checks import read_jsonl

RELATIVE, ABSOLUTE_NS, SMALL_NS = 0.10, 10.0, 100.0
# Each side: the bare program's keys (pair, timer cost, pair beyond the timer).
BARE = {
    "cpu": ("cpu_pair_ns", "tsc_empty_ns", "cpu_beyond_ns"),
    "gpu": ("gpu_pair_ns", "globaltimer_cost_ns", "gpu_beyond_ns"),
}


def bare_line(path: pathlib.Path) -> dict:
    """{key: float} of the `bare-table1 k=v ...` line."""
    for line in path.read_text().splitlines() if path.exists() else []:
        if line.startswith("bare-table1 "):
            return {k: float(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
    return {}


def handovers(path: pathlib.Path) -> dict:
    """{side: (pair median, timer cost median, pair beyond the timer)} of the volatile:relaxed records."""
    out = {}
    for r in read_jsonl(path) if path.exists() else []:
        if r.get("record") == "handover" and (r["setup"]["cpu_order"], r["setup"]["gpu_order"]) == (
            "volatile",
            "relaxed",
        ):
            out.setdefault(r["side"], (r["pair_ns"]["median"], r["timer_cost_ns"]["median"], r["pair_beyond_timer_ns"]))
    return out


def close(mine: float, bare: float) -> bool:
    if max(mine, bare) < SMALL_NS:
        return abs(mine - bare) <= ABSOLUTE_NS
    return bare > 0 and abs(mine / bare - 1) <= RELATIVE


def main(results: pathlib.Path, launches: int) -> int:
    problems, pairs = [], {side: ([], []) for side in BARE}
    columns = ["launch", "side"] + [
        f"{who} {what} ns" for what in ("pair", "timer", "beyond") for who in ("bare", "hetprobe")
    ]
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|---|---|---|")
    for launch in range(1, launches + 1):
        bare, mine = bare_line(results / f"bare-{launch}.txt"), handovers(results / f"notify-{launch}.jsonl")
        for side, keys in BARE.items():
            missing = [
                what
                for what, there in (("the bare line", all(k in bare for k in keys)), ("its record", side in mine))
                if not there
            ]
            if missing:
                problems.append(f"launch {launch} {side}: missing {' and '.join(missing)}")
                continue
            b, h = [bare[k] for k in keys], mine[side]
            pairs[side][0].append(b[0])
            pairs[side][1].append(h[0])
            print(
                f"| {launch} | {side} | " + " | ".join(f"{x:.1f}" for x in (b[0], h[0], b[1], h[1], b[2], h[2])) + " |"
            )
    print()
    for side, (bare, mine) in pairs.items():
        if not bare:
            continue
        b, h = statistics.median(bare), statistics.median(mine)
        ok = close(h, b)
        rule = f"within {ABSOLUTE_NS:g} ns" if max(h, b) < SMALL_NS else f"within {100 * RELATIVE:g}%"
        print(
            f"{side} pair, median over {len(bare)} launches: hetprobe {h:.1f} ns, bare {b:.1f} ns: "
            f"{'' if ok else 'not '}{rule}"
        )
        if not ok:
            problems.append(f"{side} pair {h:.1f} ns against the bare {b:.1f} ns")
    print(f"not close: {'; '.join(problems)}" if problems else "both pairs close to the bare program's")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or not (sys.argv[2].isascii() and sys.argv[2].isdigit()):
        print("usage: compare_table1.py RESULTS_DIR LAUNCHES", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(pathlib.Path(sys.argv[1]), int(sys.argv[2])))
