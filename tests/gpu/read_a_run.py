"""A run directory read as a Python user reads it (issue 52): docs/python.md's "Read a run" block run
as written on RUN_DIR, hetprobe.data.load_table's numbers against report.md's loads table, value by
value, and the run's pooled points written as records (`show --pool --records`) and read back by
hetprobe.load, against those of the run directory, column by column. tests/python/test_read_a_run.py
runs these on a fresh host run; on a GPU node:
    python3 tests/gpu/read_a_run.py RUN_DIR
prints what it compared and exits 1 on a difference."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

DOCS = Path(__file__).resolve().parents[2] / "docs" / "python.md"
PLACEHOLDER = "hetprobe-results/characterize-node-..."


def read_a_run_block() -> str:
    """The Python block under docs/python.md's "## Read a run"."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Read a run") :]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def run_docs_block(run_dir: Path, workdir: Path) -> dict:
    """Runs the block as written, its run directory `run_dir`, in `workdir` (where send.png lands)."""
    block = read_a_run_block()
    assert f'RUN = "{PLACEHOLDER}"' in block, "the block no longer names its run directory as RUN"
    here = os.getcwd()
    os.chdir(workdir)
    try:
        scope: dict = {}
        exec(compile(block.replace(PLACEHOLDER, str(run_dir)), str(DOCS), "exec"), scope)
    finally:
        os.chdir(here)
    return scope


def report_loads_table(report: str) -> dict:
    """{(kind, GPUs, size): (µs, ratio_to_ssb, GB/s)} of report.md's loads table at full rate, as printed."""
    lines = report[report.index("Each kind, from the sender's GPU") :].splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("|"))
    rows = []
    for line in lines[first:]:  # the table: its lines up to the first that is not one
        if not line.startswith("|"):
            break
        rows.append(line)
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    out = {}
    for line in rows[2:]:
        cells = dict(zip(head, (c.strip() for c in line.strip("|").split("|"))))
        if cells.get("rate", "1") == "1":
            out[(cells["kind"], int(cells["GPUs"]), cells["size"])] = tuple(
                float(cells[c].replace(",", "")) for c in ("µs", "ratio_to_ssb", "GB/s")
            )
    return out


def compare_load_table(run_dir: Path) -> list[str]:
    """Each (kind, GPUs, size) of load_table(run_dir) against report.md's: "kind GPUs size: table vs
    report" lines, "!" marking a difference beyond the report's 4 significant digits."""
    from hetprobe import data

    printed = report_loads_table((run_dir / "report.md").read_text(encoding="utf-8"))
    table = data.load_table(run_dir)
    lines = []
    for _, row in table.iterrows():
        for column in [c for c in table.columns if c.endswith(" µs")]:
            size = column[: -len(" µs")]
            values = tuple(float(row[f"{size} {q}"]) for q in ("µs", "ratio_to_ssb", "GB/s"))
            if not np.isfinite(values[0]):
                continue
            theirs = printed.get((row["kind"], int(row["gpus"]), size))
            same = theirs is not None and np.allclose(values, theirs, rtol=6e-4)
            lines.append(
                f"{'' if same else '! '}{row['step']} {row['kind']} x{row['gpus']} {size}: {values} vs {theirs}"
            )
    return lines


def compare_pooled_records(run_dir: Path, work: Path) -> tuple[int, list[str]]:
    """(rows, differing columns) of Results.interference_ratios() read from the pooled file `show --pool
    RUN_DIR --records` writes, against the same of the run directory."""
    import subprocess

    import hetprobe

    pooled = work / "pooled.jsonl"
    subprocess.run(
        [hetprobe.binary(), "show", "--pool", str(run_dir), "--records", str(pooled)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    key = ["step", "size_bytes", "layout", "access", "load_kind", "load_gpus", "load_rate", "gap"]
    direct = hetprobe.load(run_dir).interference_ratios().sort_values(key, ignore_index=True)
    read = hetprobe.load(pooled).interference_ratios().sort_values(key, ignore_index=True)
    if len(direct) != len(read):
        return len(read), ["(rows)"]
    differ = []
    for column in (c for c in direct.columns if c not in ("series", "record_ids")):
        a, b = direct[column], read[column]
        same = ((a == b) | (a.isna() & b.isna())).all() if a.dtype != object else a.astype(str).equals(b.astype(str))
        if not same:
            differ.append(column)
    return len(read), differ


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    run_dir = Path(argv[1]).resolve()
    with tempfile.TemporaryDirectory() as work:
        run_docs_block(run_dir, Path(work))
        print(f"docs/python.md 'Read a run': ran as written on {run_dir}")
        rows, differ = compare_pooled_records(run_dir, Path(work))
    print(f"pooled records read back: {rows} rows, " + (f"differing in {differ}" if differ else "every column equal"))
    lines = compare_load_table(run_dir)
    print("\n".join(lines))
    bad = [ln for ln in lines if ln.startswith("!")]
    print(f"load_table against report.md: {len(lines) - len(bad)} of {len(lines)} cells equal")
    return 1 if bad or not lines or differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
