"""The records of interference runs across hosts, checked field by field (tests/multinode/*.sh run it
after each step). An AssertionError names the first thing that is off; exit 0 when all holds.

    check_hosts.py pair FILE SENDER RECEIVER [CARRIER]   every segment: rank 0 on SENDER, rank 1 on RECEIVER,
                                                         every point's mpi_path across hosts (over CARRIER: tcp)
    check_hosts.py merged FILE A,B C,D ...               FILE holds a segment of each pair, and no other
    check_hosts.py resumed FILE POINTS                   FILE holds POINTS points, none twice, in 2 segments,
                                                         the second resumed
"""

from __future__ import annotations

import json
import sys


def segments(path) -> list[tuple[dict, list[dict]]]:
    """(header, points) per segment of a results file, in order."""
    out: list[tuple[dict, list[dict]]] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            if r.get("record") == "header":
                out.append((r, []))
            elif r.get("record") == "point":
                assert out, f"{path}: a point before any header"
                out[-1][1].append(r)
    assert out, f"{path}: no header"
    return out


def hosts_of(header: dict) -> tuple[str, str]:
    ranks = header["ranks"]
    assert len(ranks) == 2 and [r["rank"] for r in ranks] == [0, 1], ranks
    return ranks[0]["host"], ranks[1]["host"]


def check_pair(path, sender: str, receiver: str, carrier: str = "tcp") -> int:
    """Asserts that every segment of `path` ran rank 0 on `sender` and rank 1 on `receiver`, that its
    header says how messages cross (the network BTL, each rank's interfaces) and that every point's
    mpi_path says so too. Returns the number of points."""
    n = 0
    for header, points in segments(path):
        assert header["schema_version"] >= 3, header["schema_version"]
        assert hosts_of(header) == (sender, receiver), (path, hosts_of(header))
        assert header["host"] == sender
        transport = header["mpi"]["transport"]
        assert transport["network_btl"] == carrier, transport
        limit = transport["network_eager_limit_bytes"]
        assert isinstance(limit, int) and limit > 0, limit
        for rank in header["ranks"]:
            assert rank["network"], f"rank {rank['rank']}: no network interfaces recorded"
            assert rank["topology"] is None or isinstance(rank["topology"], dict)
        for p in points:
            path_ = p["mpi_path"]
            assert path_["sender_host"] == sender and path_["receiver_host"] == receiver, path_
            assert path_["across_hosts"] is True and path_["carrier"] == carrier, path_
            assert path_["eager_limit_bytes"] == limit, (path_, limit)
            assert path_["at_or_above_eager_limit"] == (p["size_bytes"] >= limit), (p["size_bytes"], path_)
            assert path_["sender_interface"] and path_["receiver_interface"], path_
            # PSB under a write load tears the payload on purpose (docs/results-schema.md, Payload).
            assert p["status"] == "ok" and p["payload"]["check"] in ("intact", "torn"), (p["size_bytes"], p["payload"])
            n += 1
    return n


def check_merged(path, pairs: list[str]) -> int:
    """Asserts that the merged file at `path` holds a segment of each pair "a,b" (sender a, receiver
    b) and of no other, each with its points. Returns the number of segments."""
    found = segments(path)
    seen = {",".join(hosts_of(h)) for h, _ in found}
    assert seen == set(pairs), (sorted(seen), sorted(pairs))
    for header, points in found:
        assert points, f"{','.join(hosts_of(header))}: a segment without points"
    return len(found)


def check_resumed(path, expected: int) -> None:
    """Asserts that `path` holds `expected` points, none twice (a point is its key), written by a
    killed run and the --resume that completed it."""
    found = segments(path)
    assert [h["resumed"] for h, _ in found] == [False, True], [h["resumed"] for h, _ in found]
    keys = [
        (p["size_bytes"], p["layout"], p["access"], p["load_kind"], p["load_gpus"], p["load_rate"])
        for _, points in found
        for p in points
    ]
    assert len(keys) == len(set(keys)), f"points measured twice: {sorted(k for k in set(keys) if keys.count(k) > 1)}"
    assert len(keys) == expected, (len(keys), expected)
    assert found[0][1] and found[1][1], "the kill left no points, or the resume measured none"


def main(argv: list[str]) -> int:
    what, path, *rest = argv
    if what == "pair":
        print(f"{path}: {check_pair(path, *rest)} points, rank 0 on {rest[0]}, rank 1 on {rest[1]}")
    elif what == "merged":
        print(f"{path}: {check_merged(path, rest)} segments, pairs {' '.join(sorted(rest))}")
    elif what == "resumed":
        check_resumed(path, int(rest[0]))
        print(f"{path}: {rest[0]} points, none twice, the second segment resumed")
    else:
        raise SystemExit(f"check_hosts.py: unknown check {what!r} (pair, merged, resumed)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
