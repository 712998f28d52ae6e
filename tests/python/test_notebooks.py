"""The analysis notebooks run headless (nbclient) without a cell error, on the committed H200 data
and on a fresh host-backend run, and show what they claim to: each check below compares a
notebook's output with the data it read, independently of the notebook's own code."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest
from conftest import DATA, REPO, jsonl_records

import hetprobe
from hetprobe import size_label

sys.path.insert(0, str(REPO / "notebooks"))
from execute import execute  # noqa: E402

NOTEBOOKS = ["interference", "notify_clock", "node_report", "compare"]
SECONDS = 60  # each notebook, kernel start included, on 2 CPU cores
_VARIABLES = ("HETPROBE_NOTEBOOK_RUN", "HETPROBE_NOTEBOOK_COMPARE", "HETPROBE_NOTEBOOK_HALO")


_cache: dict = {}


def run(name: str, **variables) -> dict:
    """The executed notebook (cached per data selection) as {"nb": ..., "seconds": ...}."""
    key = (name, tuple(sorted(variables.items())))
    if key not in _cache:
        env = {k: v for k, v in os.environ.items() if k not in _VARIABLES}
        env.update({k: str(v) for k, v in variables.items()})
        # The kernel imports the same hetprobe as these tests (the source tree, or the installed one).
        package_dir = str(Path(hetprobe.__file__).resolve().parents[1])
        if package_dir == str(REPO / "pybindings"):
            env["PYTHONPATH"] = os.pathsep.join(
                [package_dir] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
            )
        start = time.monotonic()
        nb = execute(REPO / "notebooks" / f"{name}.ipynb", env=env, timeout=SECONDS)
        _cache[key] = {"nb": nb, "seconds": time.monotonic() - start}
    return _cache[key]


def cell(nb, tag: str):
    cells = [c for c in nb.cells if tag in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, f"expected one cell tagged {tag!r}, found {len(cells)}"
    return cells[0]


def images(nb, tag: str) -> int:
    return sum("image/png" in o.get("data", {}) for o in cell(nb, tag).outputs)


def text(nb, tag: str) -> str:
    """Everything a cell showed: streams, Markdown, HTML tables and plain text."""
    parts = []
    for o in cell(nb, tag).outputs:
        if o.output_type == "stream":
            parts.append(o.text)
        for kind in ("text/markdown", "text/html", "text/plain"):
            parts.append(o.get("data", {}).get(kind, ""))
    return "\n".join(parts)


def html(nb, tag: str) -> list[str]:
    """The HTML tables a cell displayed."""
    return [o["data"]["text/html"] for o in cell(nb, tag).outputs if "text/html" in o.get("data", {})]


def shows_number(shown: str, value: float, decimals: int) -> bool:
    """Whether `shown` holds `value` rounded to `decimals` places (within rounding, not as a substring)."""
    numbers = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", shown.replace(",", ""))]
    return any(abs(n - value) <= 0.51 * 10**-decimals for n in numbers)


def row_labels(table_html: str) -> set[str]:
    return set(re.findall(r"<th>([^<]*)</th>", table_html))


def header(path, probe: str | None = None) -> dict:
    return next(r for r in jsonl_records(path) if r["record"] == "header" and probe in (None, r["probe"]))


def points(path) -> list[dict]:
    path = Path(path)
    return [
        dict(r, file=path.name) for r in jsonl_records(path) if r["record"] == "point" and r["probe"] == "interference"
    ]


def assert_clean(executed):
    nb = executed["nb"]
    assert executed["seconds"] < SECONDS, f"took {executed['seconds']:.0f} s"
    for c in nb.cells:
        for o in c.get("outputs", []):
            assert o.output_type != "error", o
            assert not (o.output_type == "stream" and o.name == "stderr" and "Traceback" in o.text), o.text


# --- checks shared by the two data selections -------------------------------------------------


def check_interference(nb, sweep: Path, timeline: Path):
    cfg = header(sweep, "interference")["config"]
    pts = points(sweep)
    assert images(nb, "send_time") == 1 and images(nb, "ratio") == 1
    medians = text(nb, "medians")
    for name in cfg["layouts"] + cfg["access"]:
        assert name in medians
    table = html(nb, "medians")[0]
    assert row_labels(table) >= {size_label(p["size_bytes"]) for p in pts}
    for p in pts:  # every point's median, in µs to the table's 3 decimals
        assert shows_number(table, p["send_time_ns"]["median"] / 1e3, 3), (p["size_bytes"], p["layout"], p["access"])
    payload = text(nb, "payload")
    failed = [p for p in pts if p["status"] != "ok"]
    assert (f"All {len(pts)} points have status `ok`" in payload) == (not failed)
    assert "torn" in payload
    assert "GB/s" in text(nb, "writer_bw")
    with_timeline = [p for p in points(timeline) if p.get("writer_timeline")]
    shown = text(nb, "timeline")
    if with_timeline:
        assert "fraction of sends the writer covered" in shown
        assert images(nb, "timeline") >= 2  # one per access mode at the largest size
    else:
        assert "has no writer_timeline" in shown and images(nb, "timeline") == 0


def ci_text(ratio: float, low: float, high: float) -> str:
    return f"{ratio:.3f} [{low:.3f}, {high:.3f}]"


def bare_lines(path) -> list[dict]:
    """A bare_load_rounds output's rows (size_bytes load ratio_median ci95_low ci95_high ...)."""
    lines = Path(path).read_text().splitlines()
    columns = next(line for line in lines if line.startswith("# size_bytes"))[2:].split()
    return [dict(zip(columns, line.split())) for line in lines if line.strip() and not line.startswith("#")]


def bare_text(row: dict) -> str:
    return ci_text(*(float(row[k]) for k in ("ratio_median", "ci95_low", "ci95_high")))


def check_rounds(nb):
    """The committed H100 rounds section: every launch's ratio and interval, the max and min over the
    launches, the bare program beside them, the payload experiment and the cold sends."""
    rounds = DATA / "h100-rounds"
    for tag in ("rounds_launches", "rounds_bare", "rounds_payload", "rounds_cold"):
        assert images(nb, tag) == 1, tag
    launches = html(nb, "rounds_launches")[0]
    by_point: dict = {}
    for k in (1, 2, 3):
        for p in points(rounds / f"interference-{k}.jsonl"):
            if p["layout"] == "SSB":
                continue
            assert ci_text(p["ratio_to_ssb_median"], *p["ratio_to_ssb_ci95"]) in launches, (k, p["size_bytes"])
            by_point.setdefault((p["size_bytes"], p["load_kind"]), []).append(p["ratio_to_ssb_median"])
    for ratios in by_point.values():  # the smallest and largest over the launches, 3 decimals
        assert shows_number(launches, min(ratios), 3) and shows_number(launches, max(ratios), 3)
    assert "launch 1" in launches and "max over launches" in launches
    bare = html(nb, "rounds_bare")[0]
    for k in (1, 2, 3):
        for row in bare_lines(rounds / f"bare-cpu-{k}.txt"):
            assert bare_text(row) in bare, (k, row)
    for p in points(rounds / "interference-bind-none.jsonl"):
        if p["layout"] != "SSB":
            assert ci_text(p["ratio_to_ssb_median"], *p["ratio_to_ssb_ci95"]) in bare
    payload = text(nb, "rounds_payload")
    poll = {
        name: next(
            r for r in bare_lines(rounds / f"bare-{name}.txt") if r["size_bytes"] == "1024" and r["load"] == "poll"
        )
        for name in ("none", "cpu-1", "gpu")
    }
    assert float(poll["gpu"]["ratio_median"]) > 2 > 1.1 > float(poll["none"]["ratio_median"])  # the data's claim
    assert "1 KiB poll" in payload and all(bare_text(r) in payload for r in poll.values())
    cold = text(nb, "rounds_cold")
    for name in ("gap0", "gap2ms"):
        for p in points(rounds / f"interference-{name}.jsonl"):
            if p["layout"] != "SSB":
                assert ci_text(p["ratio_to_ssb_median"], *p["ratio_to_ssb_ci95"]) in cold, (name, p["size_bytes"])
    for row in bare_lines(rounds / "bare-cpu-gap2ms.txt"):
        assert bare_text(row) in cold


def check_notify_clock(nb, notify: Path, clock: Path, placements: bool):
    cfg = header(notify, "notify")["config"]
    table1 = text(nb, "table1")
    for order in cfg["orders"]:
        assert f"{order['cpu']}:{order['gpu']}" in table1
    assert "Power9" in table1 and "not this run's" in table1  # the paper's values, labelled as such
    assert images(nb, "roundtrip") == 1
    if placements:
        assert images(nb, "placement") == 1 and "same-line (8 B)" in text(nb, "placement")
    else:
        assert images(nb, "placement") == 0 and "no placement/spacing comparison" in text(nb, "placement")
    assert images(nb, "mechanisms") == 1
    mechanisms = [r for r in jsonl_records(notify) if r["record"] == "mechanism"]
    for m in mechanisms:
        assert m["mechanism"] in text(nb, "mechanisms")
    skipped = [m for m in mechanisms if m["status"] != "ok"]
    assert (f"{len(skipped)} of {len(mechanisms)} mechanisms skipped" in text(nb, "mechanisms")) == bool(skipped)
    fit = next(r for r in jsonl_records(clock) if r["record"] == "clock_fit")
    assert f"Drift **{fit['drift_ppm']:.4g} ppm**, precision **{fit['precision_ns']:.4g} ns**" in text(nb, "clock")
    assert images(nb, "clock") == 1 and images(nb, "clock_batches") == 1
    batches = text(nb, "clock_batches")
    assert "check" in batches and "fit" in batches


def check_loads(nb, loads: list[Path]):
    """The loads section: its table holds every full-rate load point's median, slowdown and traffic."""
    pts = [p for f in loads for p in points(f) if p["load_kind"] != "none" and p["load_rate"] == "1"]
    table = text(nb, "loads")
    assert "Largest slowdown" in table
    for p in pts:
        if p["size_bytes"] in (1024, 65536, 1 << 20, 16 << 20) and p["layout"] == "P2AB" and p["file"] == loads[0].name:
            assert shows_number(table, p["send_time_ns"]["median"] / 1e3, 3), (p["size_bytes"], p["load_kind"])
    gpus = max(p["load_gpus"] for p in pts)
    assert images(nb, "loads_plots") == 1 + (gpus > 1)


def check_node_report(nb, interference: Path, topology: dict, host_backend: bool):
    assert ("This run used the host backend" in text(nb, "provenance")) == host_backend
    assert "Payload checks" in text(nb, "headline")
    topo = text(nb, "topology")
    for device in topology["gpus"] + topology["nics"]:
        assert device["pci_bus_id"] in topo
    assert ("No GPU in the topology" in topo) == (not topology["gpus"])
    ranks = text(nb, "ranks")
    for rank in header(interference, "interference")["ranks"]:
        assert rank["placement"]["cpuset"] in ranks and rank["placement"]["bind"] in ranks
    assert images(nb, "notify") == 2 and images(nb, "clock") == 1
    directory = interference.parent
    loads = (
        [p for p in points(directory / "interference.jsonl") if p.get("load_kind", "none") != "none"]
        if (directory / "interference-paper.jsonl").exists()
        else []
    )
    gpus = max((p["load_gpus"] for p in loads), default=0)
    assert images(nb, "interference") == 2 + (1 + (gpus > 1) if loads else 0)


def check_compare(nb, a: list[Path], b: list[Path], host_b: bool):
    sizes = [{p["size_bytes"] for f in files for p in points(f)} for files in (a, b)]
    common = sorted(sizes[0] & sizes[1])
    assert images(nb, "compare") == 1
    ratio_table = html(nb, "compare")[-1]  # B ÷ A per point: the common sizes only
    sizes_shown = row_labels(ratio_table) & {size_label(s) for s in sizes[0] | sizes[1]}
    assert sizes_shown == {size_label(s) for s in common}
    differs = text(nb, "differs")
    assert "differs" in differs and ("used the host backend" in differs) == host_b
    table = text(nb, "compare_table")
    assert "A: " in table and "B: " in table
    assert f"SSB at {size_label(common[-1])}" in table


# --- (a) the committed data (the notebooks' defaults) -----------------------------------------


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_data(name):
    executed = run(name)
    assert_clean(executed)
    nb = executed["nb"]
    if name == "interference":
        check_interference(nb, DATA / "h200-interference-sweep.jsonl", DATA / "h200-interference-timeline.jsonl")
        assert "The writers alone" in text(nb, "writer_bw")  # h200-bandwidth.jsonl
        check_loads(nb, [DATA / "h200x2-load" / "matrix.jsonl"])
        check_rounds(nb)
    elif name == "notify_clock":
        check_notify_clock(nb, DATA / "h200-notify.jsonl", DATA / "h200-clock.jsonl", placements=True)
    elif name == "node_report":
        run_dir = DATA / "h200x2-characterize"
        if run_dir.is_dir():
            interference, topology = (
                run_dir / "interference-paper.jsonl",
                json.loads((run_dir / "topology.json").read_text()),
            )
        else:  # the single-probe H200 files the notebook falls back to
            interference, topology = (
                DATA / "h200-interference-placed.jsonl",
                json.loads((DATA / "h200-topo.json").read_text()),
            )
        check_node_report(nb, interference, topology, host_backend=False)
    else:
        check_compare(
            nb, [DATA / "h200-interference-sweep.jsonl"], [DATA / "h200-interference-placed.jsonl"], host_b=False
        )


# --- (b) a fresh host-backend run -------------------------------------------------------------


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_host_run(name, host_run):
    directory, completed = host_run
    assert completed.returncode == 0, completed.stderr
    variables = {"HETPROBE_NOTEBOOK_COMPARE": directory} if name == "compare" else {"HETPROBE_NOTEBOOK_RUN": directory}
    executed = run(name, **variables)
    assert_clean(executed)
    nb = executed["nb"]
    host = header(directory / "interference.jsonl")["backend"] == "host"
    paper = directory / "interference-paper.jsonl"
    if name == "interference":
        check_interference(nb, paper, paper)
        assert ("Host backend" in text(nb, "how")) == host
        check_loads(nb, [directory / "interference.jsonl", directory / "interference-rate.jsonl"])
        check_rounds(nb)  # the committed H100 section, whatever run the rest reads
    elif name == "notify_clock":
        check_notify_clock(nb, directory / "notify.jsonl", directory / "clock.jsonl", placements=False)
    elif name == "node_report":
        check_node_report(nb, paper, json.loads((directory / "topology.json").read_text()), host_backend=host)
        assert "characterize.json" in text(nb, "provenance")
    else:
        run_dir = DATA / "h200x2-characterize"
        a = [run_dir / "interference-paper.jsonl"] if run_dir.is_dir() else [DATA / "h200-interference-placed.jsonl"]
        check_compare(nb, a, [paper], host_b=host)
        assert "clock drift" in text(nb, "compare_table")
