"""hetprobe halo's unpack against the bare program's stage (tests/gpu/halo.sh): per cube, rank 0's baseline
isend waitall pinned 128t setup with parts auto, beside the lines of bare-unpack.txt that unpack the same stage:
6 faces of the cube's face size in the parts hetprobe's unpack launch used (its record's unpack_launch), on as
many GPUs at once as the halo run had ranks (they unpack at the same time; at most the bare program's). The
stage's rate (unpack_busy: the long faces' bytes over the time any of them moved) is compared where the
faces are long (64 KiB or more); otherwise a face's own median rate against the bare program's.
Judged against the bare stage received with MPI just before each launch ("received"), hetprobe's condition:
the GPU reads lines MPI has just written. Shown beside it, the bounds of that condition: the stage of
untouched host memory ("stage") and the stage the CPU wrote whole just before ("fresh": the GPU then reads
lines the CPU's caches hold).
usage: compare_unpack.py BARE_UNPACK.txt HALO.jsonl

Close: within 10% of the bare program's. Exit 1 when a cube is not close or has no bare line or record
(named), 2 for bad input."""

import re
import statistics
import sys
from pathlib import Path

from checks import BadInput, present, read_jsonl

RELATIVE = 0.10
SETUP = "baseline isend waitall pinned 128t"
LINE = re.compile(
    r"bare unpack (stage|fresh|received|sent)\s+(\d+) x\s+(\d+) B, parts\s+(\d+) B,\s+(\d+) blocks x (\d+) threads, "
    r"(\d+) GPU\(s\) at once: median\s+([\d.]+) ns,\s+([\d.]+) GB/s; a message\s+([\d.]+) GB/s"
)


def bare_stages(path: Path) -> dict:
    """{(mode, face bytes, part bytes, GPUs at once): (stage GB/s, a message's GB/s)} of the bare program's stage
    lines (mode "stage", "fresh" or "received")."""
    out = {}
    for line in present(path).read_text().splitlines():
        if m := LINE.search(line):
            out[(m[1], int(m[3]), int(m[4]), int(m[7]))] = (float(m[9]), float(m[10]))
    return out


def hetprobe_unpacks(path: Path) -> tuple[dict, int]:
    """({cube: (face bytes, part bytes, stage GB/s or None, a face's median GB/s)} of rank 0's SETUP records,
    the run's ranks)."""
    out, ranks = {}, set()
    try:
        for r in read_jsonl(present(path)):
            if r.get("record") == "halo":
                ranks.add(r.get("rank", 0))
            if r.get("record") != "halo" or r.get("rank", 0) != 0 or r.get("setup") != SETUP:
                continue
            # A layout file's messages have no kind: its largest are the faces.
            face = max(m["bytes"] for m in r["unpack"])
            faces = [m for m in r["unpack"] if m["kind"] in ("face", "message")]
            part = r["unpack_launch"]["parts"]
            stage = (r.get("unpack_busy") or {}).get("gbs_median")
            own = statistics.median(m["unpack_gbs_median"] for m in faces if m["bytes"] == face)
            out.setdefault(r["cube"], (face, face if part == "whole" else int(part), stage, own))
    except (ValueError, KeyError, TypeError) as e:
        raise BadInput(f"{path}: malformed ({type(e).__name__}: {e})") from None
    return out, len(ranks)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n")[-5], file=sys.stderr)
        return 2
    try:
        bare, (mine, ranks) = bare_stages(Path(argv[0])), hetprobe_unpacks(Path(argv[1]))
    except BadInput as e:
        print(f"compare_unpack: {e}")
        return 2
    if not mine:
        print(f"compare_unpack: {argv[1]}: no rank-0 '{SETUP}' halo record")
        return 1
    gpus = min(ranks, max((k[3] for k in bare), default=1))
    print(f"hetprobe halo of {ranks} rank(s); the bare program on {gpus} GPU(s) at once")
    print(
        "| cube | face B | part B | compared | hetprobe GB/s | bare received GB/s | hetprobe / bare "
        "| bare untouched GB/s | bare fresh GB/s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    problems = []
    for cube, (face, part, stage, own) in sorted(mine.items()):
        # The bare program cuts a face smaller than its part into one block, as hetprobe does.
        key_part = part if part < face else max(part, 65536)
        lines = {mode: bare.get((mode, face, key_part, gpus)) for mode in ("received", "stage", "fresh")}
        if lines["received"] is None:
            problems.append(f"cube {cube}: no bare received line of {face} B faces in parts of {part} B")
            continue
        what, h, pick = ("stage", stage, 0) if stage is not None else ("a face", own, 1)
        b = lines["received"][pick]
        shown = ["-" if lines[mode] is None else f"{lines[mode][pick]:.2f}" for mode in ("stage", "fresh")]
        ratio = h / b
        print(f"| {cube} | {face} | {part} | {what} | {h:.2f} | {b:.2f} | {ratio:.3f} | {shown[0]} | {shown[1]} |")
        if abs(ratio - 1) > RELATIVE:
            problems.append(f"cube {cube}: {what} {h:.2f} GB/s against the bare program's {b:.2f} ({ratio:.3f})")
    print()
    for p in problems:
        print(f"NOT CLOSE: {p}")
    print(f"{len(mine) - len(problems)} of {len(mine)} cubes within {100 * RELATIVE:g}% of the bare program")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
