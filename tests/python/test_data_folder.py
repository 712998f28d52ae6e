"""notebooks/data stays lean (issue 25): results of real GPU runs and their tables, no plots, HTML
reports, logs or console captures (`hetprobe report DIR` writes the plots and report.html again), the
large results files gzip-compressed, and under 8 MiB. notebooks/data/README.md's "Left out" section
says what went and where its numbers are."""

from __future__ import annotations

from pathlib import Path

from conftest import DATA

MIB = 2**20
# Issue 25's bound for the whole folder. The notebooks and tests read about 16 MiB of results as written
# (the two-H200 halo matrix, the main job's runs, the notify files with their raw samples), so the
# large results files are kept gzip-compressed (NAME.jsonl.gz), which every reader takes.
GOAL_BYTES = 8 * MIB
# A results file above this is kept compressed: `gzip -9n FILE.jsonl` (no name or time in it, so the
# same file compresses to the same bytes). (`hetprobe show`'s golden test of a run directory reads its
# frozen copy in tests/data/runs, whose files keep their names.)
PLAIN_LIMIT_BYTES = 100 * 1024
PLAIN_ALLOWED: tuple[str, ...] = ()
GENERATED = ("*.html", "*.png", "*.log", "*.out", "*.err")


def data_files() -> list[Path]:
    return sorted(p for p in DATA.rglob("*") if p.is_file())


def total_bytes() -> int:
    return sum(p.stat().st_size for p in data_files())


def largest(count: int = 5) -> str:
    files = sorted(data_files(), key=lambda p: p.stat().st_size, reverse=True)[:count]
    return ", ".join(f"{p.relative_to(DATA)} ({p.stat().st_size / MIB:.2f} MiB)" for p in files)


def test_no_generated_files():
    found = sorted(str(p.relative_to(DATA)) for pattern in GENERATED for p in DATA.rglob(pattern))
    assert not found, (
        f"notebooks/data keeps no plots, HTML reports, logs or console captures ({', '.join(GENERATED)}): "
        f"{found}; `hetprobe report DIR` writes the report and plots again, and a check's output belongs "
        "in the folder's README.md"
    )


def test_within_the_goal():
    size = total_bytes()
    assert size <= GOAL_BYTES, (
        f"notebooks/data holds {size / MIB:.2f} MiB, above issue 25's {GOAL_BYTES / MIB:.0f} MiB; "
        f"largest: {largest()}. "
        "Keep what notebooks and tests read, large results files compressed (gzip -9n), and the tables of the rest "
        "(README.md, Left out)"
    )


def test_large_results_files_are_compressed():
    plain = [
        f"{p.relative_to(DATA)} ({p.stat().st_size / 1024:.0f} KiB)"
        for p in DATA.rglob("*.jsonl")
        if p.stat().st_size > PLAIN_LIMIT_BYTES and p.relative_to(DATA).parts[0] not in PLAIN_ALLOWED
    ]
    assert not plain, f"results files over {PLAIN_LIMIT_BYTES // 1024} KiB kept plain: {plain}; gzip -9n them"


def test_compressed_files_are_reproducible_gzip():
    """gzip -9n: no file name or time in the header (bytes 4-7 zero, flags without FNAME), so compressing the
    same results again gives the same bytes and git sees no change."""
    for p in DATA.rglob("*.jsonl.gz"):
        head = p.read_bytes()[:10]
        assert head[:3] == b"\x1f\x8b\x08" and not head[3] & 0x08 and head[4:8] == bytes(4), p.relative_to(DATA)
