"""notebooks/data stays lean (issue 25): results of real GPU runs and their tables, no plots, HTML
reports, logs or console captures (`hetprobe report DIR` writes the plots and report.html again), and a
bounded size. notebooks/data/README.md's "Left out" section says what went and where its numbers are."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA

MIB = 2**20
# Issue 25's goal for the whole folder. The notebooks alone read about 9.3 MiB of it (the two-H200 halo
# matrix, the two-H200 main job with its launches, the H200 notify files, the load matrix, the H100
# rounds) and the node check tests 5 MiB more, so it cannot be met by leaving out files nothing reads;
# the test below turns into a failure (strict) once it is met, to take the mark off.
GOAL_BYTES = 8 * MIB
# What the folder may not grow beyond meanwhile: what was left after issue 25's cleanup (16.7 MiB),
# plus issue 27's runs across simulated hosts (testbed-tcp/, 0.5 MiB, which the goldens read).
CAP_BYTES = 18 * MIB
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


def test_no_larger_than_after_the_cleanup():
    size = total_bytes()
    assert size <= CAP_BYTES, (
        f"notebooks/data holds {size / MIB:.2f} MiB, above its cap of {CAP_BYTES / MIB:.0f} MiB; largest: "
        f"{largest()}. Keep what notebooks and tests read, and the tables of the rest (README.md, Left out)"
    )


@pytest.mark.xfail(strict=True, reason="issue 25's 8 MiB: the notebooks and tests read more than that")
def test_within_the_goal():
    size = total_bytes()
    assert size <= GOAL_BYTES, f"notebooks/data holds {size / MIB:.2f} MiB; the goal is {GOAL_BYTES / MIB:.0f} MiB"
