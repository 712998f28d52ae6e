"""The analysis notebooks run headless (nbclient) without a cell error, on the committed H200 data,
on a fresh host-backend run, on a fresh run over two host devices and on the committed run on two
H200s, and show what they claim to: each check below compares a notebook's output with the data it
read, independently of the notebook's own code. A run over several GPUs shows each GPU where a table
or figure is per device, and a step run as several launches is pooled in the tables."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, REPO, jsonl_records

import hetprobe
from hetprobe import size_label
from hetprobe.data.jsonl import results_file, results_files
from hetprobe.data.steps import split_launch

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


def load_of(p: dict) -> tuple:
    """(kind, GPUs, rate) of a point; files from before the load kinds: the paper's writer (results-schema)."""
    if "load_kind" in p:
        return p["load_kind"], p["load_gpus"], p.get("load_rate")
    return ("none", 0, None) if p["layout"] == "SSB" else ("write", 1, "1")


def shown_points(path) -> list[dict]:
    """The points the interference notebook's paper sections show of a file: all of them where it has one
    load; of a step of several loads (characterize's loads step), SSB and the paper's writer (a GPU
    writing, from one GPU, at full rate)."""
    pts = points(path)
    if len({load_of(p) for p in pts if load_of(p)[0] != "none"}) <= 1:
        return pts
    return [p for p in pts if load_of(p)[0] == "none" or load_of(p) == ("write", 1, "1")]


def launch_files(directory: Path, step: str = "interference") -> list[Path]:
    """A characterize step's files: STEP.jsonl, then STEP.launch2.jsonl, STEP.launch3.jsonl, ... (each
    may be gzip-compressed, .jsonl.gz)."""
    return sorted(
        (f for f in results_files(directory) if split_launch(f.name)[0] == step), key=lambda f: split_launch(f.name)[1]
    )


def pooled(files: list[Path]) -> dict:
    """{(size, layout, access, kind, GPUs, rate): (median send time over the launches in ns, the launches'
    ratios to SSB, the one launch's interval or None)} of the points of one step's launch files."""
    by: dict = {}
    for f in files:
        for p in points(f):
            key = (p["size_bytes"], p["layout"], p["access"], *load_of(p))
            by.setdefault(key, []).append(p)
    out = {}
    for key, pts in by.items():
        ratios = [p["ratio_to_ssb_median"] for p in pts if p.get("ratio_to_ssb_median") is not None]
        ci = pts[0].get("ratio_to_ssb_ci95") if len(pts) == 1 else None
        out[key] = (float(np.median([p["send_time_ns"]["median"] for p in pts])), ratios, ci)
    return out


def rank_labels(path) -> dict[int, str]:
    """{rank: "GPU 1" or "GPU 1 (PCI)"} of a per-GPU probe's header (its ranks, one GPU each)."""
    out = {}
    for r in header(path)["ranks"]:
        pci = (r.get("device") or {}).get("pci_bus_id") or (r.get("placement") or {}).get("pci_bus_id")
        out[r["rank"]] = f"GPU {r['rank']}" + (f" ({pci})" if pci else "")
    return out


def assert_clean(executed):
    nb = executed["nb"]
    assert executed["seconds"] < SECONDS, f"took {executed['seconds']:.0f} s"
    for c in nb.cells:
        for o in c.get("outputs", []):
            assert o.output_type != "error", o
            assert not (o.output_type == "stream" and o.name == "stderr" and "Traceback" in o.text), o.text


# --- checks shared by the two data selections -------------------------------------------------


def check_interference(nb, sweep: Path, timeline: Path, launches: list[Path] | None = None):
    """The paper's sections: the sweep's shown points (shown_points), their medians and payload checks; with
    `launches` (the sweep's step's launch files) each point's ratio to SSB pooled over them, with its interval."""
    cfg = header(sweep, "interference")["config"]
    pts = shown_points(sweep)
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
    assert ("torn" in payload) == any(p["layout"] == "PSB" for p in pts)
    assert "GB/s" in text(nb, "writer_bw")
    if launches is not None:
        check_pooled_ratios(nb, launches)
    with_timeline = [p for p in shown_points(timeline) if p.get("writer_timeline")]
    shown = text(nb, "timeline")
    if with_timeline:
        assert "fraction of sends the writer covered" in shown
        assert images(nb, "timeline") >= 2  # one per access mode at the largest size
    else:
        assert "has no writer_timeline" in shown and images(nb, "timeline") == 0


def ci_text(ratio: float, low: float, high: float) -> str:
    return f"{ratio:.3f} [{low:.3f}, {high:.3f}]"


def check_pooled_ratios(nb, launches: list[Path]):
    """The sweep's ratio table: each shown point's ratio to SSB with its 95% interval, over the launches:
    one launch's own (ratio_to_ssb_median, ratio_to_ssb_ci95), several launches' median ratio with the
    interval Results.interference_ratios pools."""
    table = html(nb, "ratio_pooled")[0]
    shown = {(p["size_bytes"], p["layout"], p["access"], *load_of(p)) for p in shown_points(launches[0])}
    rows = (
        hetprobe.load(launches)
        .interference_ratios()
        .set_index(["size_bytes", "layout", "access", "load_kind", "load_gpus", "load_rate"])
    )
    for key, (_, ratios, ci) in pooled(launches).items():
        if key[1] == "SSB" or key not in shown:
            continue
        if len(ratios) == 1:
            assert ci_text(ratios[0], *ci) in table, key
        else:
            low, high = rows.loc[key, ["ratio_to_ssb_ci95_low", "ratio_to_ssb_ci95_high"]]
            assert ci_text(float(np.median(ratios)), low, high) in table, key
    assert ("median of the launches' ratios" in text(nb, "ratio_pooled")) == (len(launches) > 1)


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
        for p in points(results_file(rounds, f"interference-{k}")):
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
    for p in points(results_file(rounds, "interference-bind-none")):
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
        for p in points(results_file(rounds, f"interference-{name}")):
            if p["layout"] != "SSB":
                assert ci_text(p["ratio_to_ssb_median"], *p["ratio_to_ssb_ci95"]) in cold, (name, p["size_bytes"])
    for row in bare_lines(rounds / "bare-cpu-gap2ms.txt"):
        assert bare_text(row) in cold


def check_cold_launches(shown: str, cold_dir: Path, launches) -> None:
    """Each launch's cold ÷ warm with its interval is in `shown`: from hetprobe's records
    (hetprobe-K.jsonl) and the bare program's lines (bare-K.txt) of `cold_dir`."""
    for k in launches:
        for p in points(results_file(cold_dir, f"hetprobe-{k}")):
            assert ci_text(p["cold_over_warm_median"], *p["cold_over_warm_ci95"]) in shown, (k, p["size_bytes"])
        for line in (cold_dir / f"bare-{k}.txt").read_text().splitlines():
            if line.startswith("bare-cold "):
                ratio, low, high = (float(x) for x in line.split()[4:7])
                assert ci_text(ratio, low, high) in shown, (k, line)


def check_h200x2_bare(nb):
    """The committed two-H200 section: each launch's cold ÷ warm with its interval, from hetprobe's records and
    the bare program's lines, the cold medians over the launches, and the two-GPU write ratios of both
    programs with hetprobe's payload check each visit and every send."""
    cold_dir, kgpu_dir = DATA / "h200x2-cold" / "cold-sh-60rounds", DATA / "h200x2-kgpu" / "check" / "last"
    assert images(nb, "h200x2_bare") == 1
    shown = text(nb, "h200x2_bare")
    check_cold_launches(shown, cold_dir, (1, 2, 3))
    for k in (1, 2, 3):
        for check in ("last", "every"):
            for p in points(results_file(kgpu_dir, f"k-{check}-{k}")):
                if p["layout"] != "SSB":
                    assert ci_text(p["ratio_to_ssb_median"], *p["ratio_to_ssb_ci95"]) in shown, (check, k)
    assert "hetprobe ÷ bare: 1.043 and 0.985" in shown  # the medians over the three launches, README.md's
    assert "cold send, median over 3 launches" in shown and shows_number(shown, 0.720, 3)


def check_h200x4_bare(nb):
    """The committed four-H200 section: each of six launches' cold ÷ warm with its interval, from hetprobe's
    records and the bare program's lines, the cold medians over the launches, and kgpu.sh --receivers' write
    ratios of both programs, each receiver on GPU 0 and on GPU 1."""
    cold_dir, kgpu_dir = DATA / "h200x4-cold", DATA / "h200x4-kgpu" / "kgpu-sh"
    assert images(nb, "h200x4_bare") == 1
    shown = text(nb, "h200x4_bare")
    check_cold_launches(shown, cold_dir, range(1, 7))
    for k in (1, 2, 3):
        for name in ("hetprobe", "hetprobe-gpu0"):
            for p in points(results_file(kgpu_dir, f"{name}-{k}")):
                if p["layout"] != "SSB":
                    assert ci_text(p["ratio_to_ssb_median"], *p["ratio_to_ssb_ci95"]) in shown, (name, k)
    assert "hetprobe ÷ bare 1.312" in shown  # compare_kgpu.py's, README.md's
    assert "cold send, median over 6 launches" in shown and shows_number(shown, 0.962, 3)


def labelled(label: str, several: bool) -> str:
    """What a GPU's line of text starts with: its label where the run has several GPUs."""
    return f"{label}: " if several else ""


def check_notify_clock(nb, notify: Path, clock: Path, placements: bool):
    """Table 1 (from the handover records; the loop beside it, never as it), the round trips, the mechanisms
    and the clock fit of every GPU (rank) of the files, each GPU's figures and lines labelled with it where
    there are several."""
    cfg = header(notify, "notify")["config"]
    gpus = rank_labels(notify)
    several = len(gpus) > 1
    table1 = text(nb, "table1")
    for order in cfg["orders"]:
        assert f"{order['cpu']}:{order['gpu']}" in table1
    assert "Power9" in table1 and "not this run's" in table1  # the paper's values, labelled as such
    handovers = [r for r in jsonl_records(notify) if r["record"] == "handover"]
    if not handovers:  # files from before the handover part: their loop is no Table 1
        assert "Table 1 is skipped" in table1 and "This run in the paper's setup" not in table1
    for rank, label in gpus.items() if handovers else ():
        cpu, gpu = (
            next(
                r["pair_beyond_timer_ns"]
                for r in handovers
                if r.get("rank", 0) == rank
                and r["side"] == side
                and (r["setup"]["cpu_order"], r["setup"]["gpu_order"]) == ("volatile", "relaxed")
            )
            for side in ("cpu", "gpu")
        )
        assert f"{labelled(label, several)}This run in the paper's setup" in table1
        line = next(x for x in table1.splitlines() if x.startswith(f"{labelled(label, several)}This run in"))
        assert f"CPU {cpu:.4g} ns, GPU {gpu:.4g} ns" in line, (label, line)
    assert images(nb, "roundtrip") == len(gpus)
    if placements:
        assert images(nb, "placement") == 1 and "same-line (8 B)" in text(nb, "placement")
    else:
        assert images(nb, "placement") == 0 and "no placement/spacing comparison" in text(nb, "placement")
    assert images(nb, "mechanisms") == len(gpus)
    shown = text(nb, "mechanisms")
    for rank, label in gpus.items():
        mechanisms = [r for r in jsonl_records(notify) if r["record"] == "mechanism" and r.get("rank", 0) == rank]
        for m in mechanisms:
            assert m["mechanism"] in shown
        skipped = [m for m in mechanisms if m["status"] != "ok"]
        claim = f"{labelled(label, several)}{len(skipped)} of {len(mechanisms)} mechanisms skipped"
        assert (claim in shown) == bool(skipped), claim
    fits = [r for r in jsonl_records(clock) if r["record"] == "clock_fit"]
    assert len(fits) == len(rank_labels(clock))  # one fit per GPU
    lines = text(nb, "clock").splitlines()
    for fit in fits:
        drift = f"Drift **{fit['drift_ppm']:.4g} ppm**, precision **{fit['precision_ns']:.4g} ns**"
        line = next(x for x in lines if drift in x)
        assert labelled(rank_labels(clock)[fit.get("rank", 0)], len(fits) > 1) in line, line
    assert images(nb, "clock") == 1 and images(nb, "clock_batches") == 1
    batches = text(nb, "clock_batches")
    assert "check" in batches and "fit" in batches
    if len(fits) > 1:
        assert all(label in batches for label in rank_labels(clock).values())


def check_loads(nb, loads: list[Path], rates: list[Path] | None = None, tag: str = "loads"):
    """The loads table: every full-rate load point of the loads step (`loads`: its launch files) and every
    point of the rates step at the headline sizes, each its median send time over the launches (µs) and its
    ratio to SSB with its interval (one launch's own; over several, the median of their ratios); and the
    largest ratio over them all."""
    table = text(nb, tag)
    steps = [(loads, lambda key: key[5] == "1")] + ([(rates, lambda key: True)] if rates else [])
    largest = 0.0
    for files, shown in steps:
        for key, (median_ns, ratios, ci) in pooled(files).items():
            if key[3] == "none":
                continue
            ratio = float(np.median(ratios)) if ratios else np.nan
            largest = max(largest, ratio)
            if key[0] in (1024, 65536, 1 << 20, 16 << 20) and key[1] == "P2AB" and shown(key):
                assert shows_number(table, median_ns / 1e3, 3), key
                if ci is not None:
                    assert ci_text(ratio, *ci) in table, key
                elif ratios:
                    assert f"{ratio:.3f}" in table, key
    assert f"Largest slowdown: **{largest:.3g}× SSB**" in table
    gpus = max(p["load_gpus"] for f in loads for p in points(f))
    if tag == "loads":
        assert images(nb, "loads_plots") == 1 + (gpus > 1)


def check_gpus(nb, tag: str, clocks: list[Path]):
    """A per-GPU table (hetprobe.per_gpu's): every GPU of each run, with its clock drift."""
    table = "\n".join(html(nb, tag))
    for clock in clocks:
        for fit in (r for r in jsonl_records(clock) if r["record"] == "clock_fit"):
            assert shows_number(table, fit["drift_ppm"], 3), (clock, fit.get("rank", 0))
        for label in rank_labels(clock).values():
            if " (" in label:  # its PCI address (a host device has none)
                assert label.split(" (")[1].rstrip(")") in table, label


def check_node_report(nb, interference: Path, topology: dict, host_backend: bool, gpus: int = 1):
    """`interference`: the file whose header places the ranks: the paper's sweep where the run has one, else
    the loads step's first launch."""
    assert ("This run used the host backend" in text(nb, "provenance")) == host_backend
    assert "Payload checks" in text(nb, "headline")
    assert ("The notify and clock numbers are GPU 0" in text(nb, "headline")) == (gpus > 1)
    topo = text(nb, "topology")
    for device in topology["gpus"] + topology["nics"]:
        assert device["pci_bus_id"] in topo
    assert ("No GPU in the topology" in topo) == (not topology["gpus"])
    ranks = text(nb, "ranks")
    for rank in header(interference, "interference")["ranks"]:
        assert rank["placement"]["cpuset"] in ranks and rank["placement"]["bind"] in ranks
    assert images(nb, "notify") == 2 * gpus and images(nb, "clock") == 1
    directory = interference.parent
    loads_file = results_file(directory, "interference")
    loads = [p for p in points(loads_file) if load_of(p)[0] != "none"] if loads_file.exists() else []
    load_gpus = max((p["load_gpus"] for p in loads), default=0)
    paper = interference != loads_file
    assert images(nb, "interference") == 2 * paper + (1 + (load_gpus > 1) if loads else 0)
    if loads:
        check_loads(nb, launch_files(directory), launch_files(directory, "interference-rate"), tag="interference")


def check_compare(nb, a: list[Path], b: list[Path], host_b: bool, clocks: list[Path] = ()):
    """a, b: the interference files each run is compared by (the plots' one run); clocks: the clock files of
    the runs that measured their GPUs one by one."""
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
    # Each layout both runs loaded, at the largest size both have (a run of P2AB and one of OWN share none).
    layouts = [{p["layout"] for f in files for p in points(f)} - {"SSB"} for files in (a, b)]
    for layout in layouts[0] & layouts[1]:
        assert f"interference {layout} " in table and f"ratio_to_ssb at {size_label(common[-1])}" in table
    for layout in layouts[0] ^ layouts[1]:
        assert f"interference {layout} " not in table, f"{layout} is in one run only"
    if clocks:
        check_gpus(nb, "compare_gpus", clocks)
    else:
        assert "no per-GPU table" in text(nb, "compare_gpus")


# --- (a) the committed data (the notebooks' defaults) -----------------------------------------


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_data(name):
    executed = run(name)
    assert_clean(executed)
    nb = executed["nb"]
    if name == "interference":
        check_interference(nb, DATA / "h200-interference-sweep.jsonl.gz", DATA / "h200-interference-timeline.jsonl.gz")
        assert "The writers alone" in text(nb, "writer_bw")  # h200-bandwidth.jsonl
        check_loads(nb, [DATA / "h200x2-load" / "matrix.jsonl.gz"])
        check_rounds(nb)
        check_h200x2_bare(nb)
        check_h200x4_bare(nb)
    elif name == "notify_clock":
        check_notify_clock(nb, DATA / "h200-notify.jsonl.gz", DATA / "h200-clock.jsonl", placements=True)
    elif name == "node_report":  # the committed run on two H200s, characterize's defaults
        run_dir = DATA / "h200x2-characterize-default"
        topology = json.loads((run_dir / "topology.json").read_text())
        check_node_report(nb, results_file(run_dir, "interference"), topology, host_backend=False, gpus=2)
        check_gpus(nb, "gpus", [results_file(run_dir, "clock")])
    else:
        check_compare(
            nb, [DATA / "h200-interference-sweep.jsonl.gz"], [DATA / "h200-interference-placed.jsonl.gz"], host_b=False
        )


# --- (b) run directories: a fresh host-backend run, and runs over two GPUs ---------------------


def check_run(name: str, directory: Path):
    """The notebook `name` on the characterize run `directory` (compare: as B, the committed H200 run A):
    every GPU's tables and figures, the paper's sections on the paper's sweep or else on the loads step's
    paper kind, each step's launches pooled in the tables, with their intervals."""
    variables = {"HETPROBE_NOTEBOOK_COMPARE": directory} if name == "compare" else {"HETPROBE_NOTEBOOK_RUN": directory}
    executed = run(name, **variables)
    assert_clean(executed)
    nb = executed["nb"]
    host = header(results_file(directory, "interference"))["backend"] == "host"
    gpus = len(rank_labels(results_file(directory, "clock")))
    step = "interference-paper" if results_file(directory, "interference-paper").exists() else "interference"
    sweep = results_file(directory, step)
    if name == "interference":
        check_interference(nb, sweep, sweep, launch_files(directory, step))
        assert ("Host backend" in text(nb, "how")) == host
        assert ("No paper's layout sweep in this run" in text(nb, "setup")) == (step == "interference")
        check_loads(nb, launch_files(directory), launch_files(directory, "interference-rate"))
        # The committed campaigns (bare programs beside hetprobe) are not this run's: said once, then empty.
        assert "not part of" in text(nb, "rounds_setup") and str(directory.name) in text(nb, "rounds_setup")
        for tag in ("rounds_launches", "rounds_bare", "rounds_payload", "rounds_cold", "h200x2_bare", "h200x4_bare"):
            assert text(nb, tag).strip() == "" and images(nb, tag) == 0, tag
        assert (f"each of the {gpus} GPUs" in text(nb, "writer_bw")) == (gpus > 1)
    elif name == "notify_clock":
        check_notify_clock(nb, results_file(directory, "notify"), results_file(directory, "clock"), placements=False)
        assert (f"{gpus} GPUs, one rank each" in text(nb, "how")) == (gpus > 1)
    elif name == "node_report":
        topology = json.loads((directory / "topology.json").read_text())
        check_node_report(nb, sweep, topology, host_backend=host, gpus=gpus)
        assert "characterize.json" in text(nb, "provenance")
        check_gpus(nb, "gpus", [results_file(directory, "clock")])
    elif name == "compare":  # A: the committed run on two H200s (its loads step: it has no paper sweep)
        run_dir = DATA / "h200x2-characterize-default"
        a = [results_file(run_dir, "interference")]
        clocks = [results_file(run_dir, "clock"), results_file(directory, "clock")]
        check_compare(nb, a, [sweep], host_b=host, clocks=clocks)
        assert "clock drift" in text(nb, "compare_table")
    else:  # halo: characterize runs no halo exchange
        assert "No halo data" in text(nb, "setup") and "has no halo.jsonl" in text(nb, "setup")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_host_run(name, host_run):
    """One host device, --paper, three launches of each step."""
    directory, completed = host_run
    assert completed.returncode == 0, completed.stderr
    check_run(name, directory)


@pytest.mark.parametrize("name", NOTEBOOKS + ["halo"])
def test_host_run_of_two_devices(name, host_run_gpus):
    """Two host devices (HETPROBE_HOST_DEVICES=2), characterize --quick: no paper sweep, one launch each."""
    directory, completed = host_run_gpus
    assert completed.returncode == 0, completed.stderr
    assert len(rank_labels(results_file(directory, "clock"))) == 2
    check_run(name, directory)


@pytest.mark.parametrize("name", NOTEBOOKS + ["halo"])
def test_two_h200s(name):
    """The committed run on two H200s: characterize's defaults, three launches of the loads step."""
    directory = DATA / "h200x2-characterize-default"
    assert len(launch_files(directory)) == 3 and len(rank_labels(results_file(directory, "clock"))) == 2
    check_run(name, directory)
