"""The bare interference program beside hetprobe's write load, size by size.

    compare_bare.py BARE.txt HETPROBE.jsonl

BARE.txt: tests/gpu/bare_interference.cu's lines "size idle_us loaded_us ratio writer_gbs".
HETPROBE.jsonl: `hetprobe interference --load write --layouts SSB,P2AB` at the same sizes.
Prints, per size, both medians (loaded), both slowdowns and both write rates, and the
difference of the loaded medians; exits 1 when one differs by more than 15%.
"""

import sys

from checks import read_jsonl


def main(bare_path: str, jsonl_path: str) -> int:
    bare = {}
    for line in open(bare_path):
        parts = line.split()
        if parts and parts[0].isdigit():
            size, idle, loaded, ratio, gbs = parts
            bare[int(size)] = (float(idle), float(loaded), float(ratio), float(gbs))
    points = {}
    for r in read_jsonl(jsonl_path):
        if r.get("record") == "point":
            points[(r["size_bytes"], r["layout"])] = r
    print(
        f"{'size':>10} {'bare idle':>10} {'bare load':>10} {'hp SSB':>10} {'hp load':>10} "
        f"{'bare x':>7} {'hp x':>7} {'bare GB/s':>9} {'hp GB/s':>9} {'diff':>7}"
    )
    worst = 0.0
    for size in sorted(bare):
        if (size, "P2AB") not in points:
            continue
        idle, loaded, ratio, gbs = bare[size]
        p, s = points[(size, "P2AB")], points[(size, "SSB")]
        hp = p["send_time_ns"]["median"] / 1e3
        diff = hp / loaded - 1
        worst = max(worst, abs(diff))
        print(
            f"{size:>10} {idle:>10.3f} {loaded:>10.3f} {s['send_time_ns']['median'] / 1e3:>10.3f} {hp:>10.3f} "
            f"{ratio:>7.2f} {p['ratio_to_ssb_median']:>7.2f} {gbs:>9.2f} "
            f"{p['load']['traffic_during_send_gbs']:>9.2f} {100 * diff:>6.1f}%"
        )
    print(f"largest difference of the loaded medians: {100 * worst:.1f}% (limit 15%)")
    return 0 if worst <= 0.15 else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
