"""hetprobe's 16 MiB write load from k GPUs against tests/gpu/bare_load_rounds.cu with BARE_LOAD_GPUS=k,
launch by launch (tests/gpu/kgpu.sh): each launch's ratio to the unloaded send (and its 95% interval) of
the bare program with every GPU over its own allocation (bare-own-N.txt) beside hetprobe's OWN point
(hetprobe-N.jsonl), then the medians over the launches and hetprobe OWN's over the bare program's. Where
kgpu.sh --near wrote them, also the bare program with GPU 0's 2 MiB after the send buffer
(bare-near-N.txt) and hetprobe's P2AB point. Where kgpu.sh --receivers wrote
them, also the bare program with its receiver on GPU 1 (bare-recv1-N.txt) and hetprobe with both ranks on
GPU 0 (hetprobe-gpu0-N.jsonl), each beside the side it mirrors.
   compare_kgpu.py RESULTS_DIR LAUNCHES
Exit 0 when hetprobe OWN's median ratio over the launches is within 10% of the bare own median
(|h/b - 1| <= 0.10) and both sides load as many GPUs; 1 when not, naming it; 2 for a missing or
malformed file."""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from checks import BadInput, ci_text, picked_points, present, results_and_launches, results_file  # noqa: E402

RELATIVE, SIZE = 0.10, 16 << 20
OWN_COLUMNS, NEAR_COLUMNS = ("bare own", "hetprobe OWN"), ("bare near", "hetprobe P2AB")


def bare_write(path: Path) -> tuple:
    """((ratio median, ci low, ci high), GPUs loading or None) of the 16 MiB write line and the header."""
    text = present(path).read_text()
    gpus = re.search(r" (\d+) GPU\(s\) loading", text)
    for line in text.splitlines():
        fields = line.split()
        if fields[:2] == [str(SIZE), "write"]:
            try:
                if len(fields) < 5:
                    raise ValueError
                return tuple(float(x) for x in fields[2:5]), int(gpus.group(1)) if gpus else None
            except ValueError:
                raise BadInput(f"{path}: malformed line {line!r}") from None
    raise BadInput(f"{path}: no `{SIZE} write` line")


def hetprobe_points(path: Path, layouts: tuple = ("OWN",)) -> dict:
    """{layout: ((ratio median, ci low, ci high), load_gpus)} of the write points OWN and P2AB; each of
    `layouts` must be there."""

    def write(r: dict):
        if r.get("load_kind") != "write" or r.get("layout") not in ("OWN", "P2AB"):
            return None
        low, high = r["ratio_to_ssb_ci95"] or (None, None)
        return r["layout"], ((float(r["ratio_to_ssb_median"]), low, high), r.get("load_gpus"))

    out = picked_points(path, write)
    for layout in layouts:
        if layout not in out:
            raise BadInput(f"{path}: no {layout} write point")
    return out


def main(argv: list[str]) -> int:
    results, launches = results_and_launches(argv, __doc__)
    near = (results / "bare-near-1.txt").is_file()
    columns = OWN_COLUMNS + (NEAR_COLUMNS if near else ())
    try:
        rows = []  # per launch: each column's (ratio, low, high) and the GPUs each side loads
        for n in range(1, launches + 1):
            own, own_gpus = bare_write(results / f"bare-own-{n}.txt")
            mine = hetprobe_points(results_file(results, f"hetprobe-{n}"), ("OWN", "P2AB") if near else ("OWN",))
            values, gpus = [own, mine["OWN"][0]], [own_gpus, mine["OWN"][1]]
            if near:
                near_write, near_gpus = bare_write(results / f"bare-near-{n}.txt")
                values += [near_write, mine["P2AB"][0]]
                gpus += [near_gpus, mine["P2AB"][1]]
            rows.append((values, gpus))
    except BadInput as e:
        print(f"compare_kgpu.py: {e}", file=sys.stderr)
        return 2
    failed = []
    print("| launch | GPUs loading (" + ", ".join(columns) + ") | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 2) + "|")
    for n, (values, gpus) in enumerate(rows, 1):
        print(f"| {n} | {', '.join(map(str, gpus))} | " + " | ".join(ci_text(v) for v in values) + " |")
        if len(set(gpus)) != 1:
            failed.append(f"launch {n}: the sides load different numbers of GPUs ({gpus})")
    med = [statistics.median(values[i][0] for values, _ in rows) for i in range(len(columns))]
    print("| median | | " + " | ".join(f"{m:.3f}" for m in med) + " |")
    over = med[1] / med[0] if med[0] > 0 else float("inf")
    within = abs(over - 1) <= RELATIVE
    print(f"\nhetprobe OWN / bare own, medians over {launches} launches: {med[1]:.3f} / {med[0]:.3f} = {over:.3f}")
    if not within:
        failed.append(f"hetprobe OWN's median ratio {med[1]:.3f} not within 10% of the bare own {med[0]:.3f}")
    try:
        receivers(results, launches, med[0], med[1])
    except BadInput as e:
        print(f"compare_kgpu.py: {e}", file=sys.stderr)
        return 2
    print(f"failed: {'; '.join(failed)}" if failed else "hetprobe OWN within 10% of the bare program's own allocations")
    return 1 if failed else 0


def receivers(results: Path, launches: int, bare_own: float, hetprobe_own: float) -> None:
    """kgpu.sh --receivers' runs, when present: each side with the other's receiver GPU, launch by launch,
    and the medians beside the default ones (not gated: it says which difference the receiver makes)."""
    if not (results / "bare-recv1-1.txt").is_file():
        return
    bare, mine = [], []
    print("\n| launch | bare own, receiver on GPU 1 | hetprobe OWN, both ranks on GPU 0 |")
    print("|---|---|---|")
    for n in range(1, launches + 1):
        b, _ = bare_write(results / f"bare-recv1-{n}.txt")
        h = hetprobe_points(results_file(results, f"hetprobe-gpu0-{n}"))["OWN"][0]
        bare.append(b[0])
        mine.append(h[0])
        print(f"| {n} | {ci_text(b)} | {ci_text(h)} |")
    b, h = statistics.median(bare), statistics.median(mine)
    print(f"| median | {b:.3f} | {h:.3f} |")
    print(
        f"receiver on GPU 1: bare {b:.3f}, hetprobe {hetprobe_own:.3f} ({hetprobe_own / b:.3f}); "
        f"receiver on GPU 0: bare {bare_own:.3f}, hetprobe {h:.3f} ({h / bare_own:.3f})"
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
