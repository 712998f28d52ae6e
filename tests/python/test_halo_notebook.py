"""notebooks/halo.ipynb runs headless (nbclient) without a cell error on the committed H200 x2 halo run,
on a fresh host-backend halo run named by HETPROBE_NOTEBOOK_HALO (with and without the bandwidth run
beside it), and on a run directory without halo data, and shows what it claims to: the checks compare
its output with the records it read."""

from __future__ import annotations

import subprocess

import pandas as pd
from conftest import DATA, jsonl_records, run_on_host
from test_notebooks import assert_clean, cell, html, images, run as run_notebook, shows_number, text

import hetprobe
from hetprobe.data.jsonl import read_jsonl

COMMITTED = DATA / "h200x2-halo" / "paper-1.jsonl.gz"
LAUNCHES = [DATA / "h200x2-halo" / f"paper-{i}.jsonl.gz" for i in (1, 2, 3)]
MATRIX_POOL = DATA / "h200x2-halo" / "matrix-pool.csv.gz"
TAGS = [
    "setup",
    "headline",
    "pooled",
    "matrix",
    "matrix_pool",
    "vs_best",
    "rates",
    "phases",
    "timeline",
    "model",
    "payload",
]


def run(**variables) -> dict:
    """The executed halo notebook (cached per data selection)."""
    return run_notebook("halo", **variables)


def halo_records(path, rank=None) -> list[dict]:
    """The halo records of a file, older schema versions in the current form (as the notebook reads them)."""
    records = [rec for _, _, rec in read_jsonl(path)[0]]
    return [r for r in records if r["record"] == "halo" and rank in (None, r.get("rank", 0))]


def headline_setups(path) -> list[dict]:
    """Rank 0's records of the paper's configuration: isend, pinned, baseline waitall, notify channel;
    parts auto (files from before parts have none)."""
    return [
        r
        for r in halo_records(path, rank=0)
        if r["send_mode"] == "isend"
        and r["staging"] == "pinned"
        and r.get("parts", "auto") == "auto"
        and (
            (r["variant"] == "baseline" and r["receive_wait"] == "waitall")
            or (r["variant"] != "baseline" and r["signal"] == "channel")
        )
    ]


def check_headline(nb, path):
    """Every headline setup's median and speed-up (halo_table's) as the notebook prints them."""
    table = hetprobe.data.halo_table(hetprobe.load(path))
    shown, shown_table = text(nb, "headline"), html(nb, "headline")[0]
    picked = headline_setups(path)
    assert picked
    for rec in picked:
        row = table[(table["layout"] == rec["layout"]) & (table["setup"] == rec["setup"])].iloc[0]
        assert f"cube {rec['cube']}, {rec['threads_per_block']} threads per block:" in shown
        assert f"{rec['variant']} {row['median_us']:.1f} µs ({row['speedup_vs_baseline']:.3f}×)" in shown, rec["setup"]
        assert shows_number(shown_table, row["speedup_vs_baseline"], 3) and shows_number(
            shown_table, row["median_us"], 1
        )
    # The fastest of each (cube, threads) line, from the records alone.
    for cube in {r["cube"] for r in picked}:
        for threads in {r["threads_per_block"] for r in picked}:
            group = [r for r in picked if r["cube"] == cube and r["threads_per_block"] == threads]
            fastest = min(group, key=lambda r: r["iteration_ns"]["median"])["variant"]
            line = next(s for s in shown.splitlines() if s.startswith(f"- cube {cube}, {threads} threads per block:"))
            assert line.endswith(f"Fastest: **{fastest}**."), line
    assert images(nb, "headline") == 1


def check_vs_best(nb, path):
    """Per cube, the strongest baseline (the records' speed-up is against it) and each notify variant's
    fastest setup with its paired speed-up, from the records alone."""
    rank0 = halo_records(path, rank=0)
    shown = text(nb, "vs_best")
    for cube in {r["cube"] for r in rank0}:
        group = [r for r in rank0 if r["cube"] == cube]
        median = {r["setup"]: r["iteration_ns"]["median"] for r in group}
        (against,) = {r["speedup"]["against"] for r in group}
        line = next(s for s in shown.splitlines() if s.startswith(f"- cube {cube}:"))
        assert f"strongest baseline `{against}` {median[against] / 1e3:.1f} µs" in line, line
        for variant in ("notify-stream", "notify-stacked"):
            mine = [r for r in group if r["variant"] == variant]
            if mine:
                f = min(mine, key=lambda r: median[r["setup"]])
                speed = f["speedup"]["median"]
                assert f"{variant} `{f['setup']}` {median[f['setup']] / 1e3:.1f} µs ({speed:.3f}×" in line, line
    assert len(html(nb, "vs_best")) == 2  # the fastest per cube and variant, every notify setup


def check_payload(nb, path):
    records = halo_records(path)
    intact = [r for r in records if r["payload"]["check"] == "intact" and r["status"] == "ok"]
    payload = text(nb, "payload")
    assert (f"All {len(records)} halo records have payload `intact` and status `ok`" in payload) == (
        len(intact) == len(records)
    )


# --- the committed run on two H100s ------------------------------------------------------------


def test_committed_data():
    executed = run()
    assert_clean(executed)
    nb = executed["nb"]
    for tag in TAGS:
        cell(nb, tag)  # exactly one cell each
    header = jsonl_records(COMMITTED)[0]
    setup = text(nb, "setup")
    assert header["device"]["name"] in setup and header["git_revision"] in setup and "Host backend" not in setup
    cfg = header["config"]
    assert f"{header['mpi']['ranks']} ranks" in setup
    assert f"{cfg['rounds']} rounds (each visits every setup once" in setup
    assert f"{cfg['iterations']} iterations per visit" in setup and "Launches: 3" in setup

    check_headline(nb, COMMITTED)
    assert {r["cube"] for r in headline_setups(COMMITTED)} == {200, 400, 800}
    assert len(headline_setups(COMMITTED)) == 3 * 3  # cubes x variants (128 threads)

    # The pooled speed-ups are the C++ pool of the three launches, as printed.
    pooled = hetprobe.data.halo_launches(hetprobe.load(LAUNCHES))
    shown = text(nb, "pooled")
    for row in pooled[pooled["setup"] == "notify-stream isend channel pinned 128t"].itertuples():
        assert (
            f"- cube {row.cube}, `{row.setup}`: {row.speedup:.3f}× "
            f"(95% CI {row.speedup_ci95_low:.3f}-{row.speedup_ci95_high:.3f})" in shown
        ), row.cube
    assert "pooled over 3 launches" in shown and images(nb, "pooled") == 1

    # The fastest setup per cube and threads, from the records alone.
    rank0 = halo_records(COMMITTED, rank=0)
    matrix = text(nb, "matrix")
    for cube in (200, 400, 800):
        group = [r for r in rank0 if r["cube"] == cube]
        assert len(group) == 6  # 3 variants x parts auto and whole
        assert min(group, key=lambda r: r["iteration_ns"]["median"])["setup"] in matrix
    assert len(html(nb, "matrix")) == 1 + 2  # a speed-up table (one send mode), the dimension effects, the fastest

    # The thesis's matrix, pooled: the committed CSV, its fastest notify setup per cube.
    table = pd.read_csv(MATRIX_POOL)
    assert f"{len(table)} setups over 3 cubes, 3 launches each" in text(nb, "matrix_pool")
    notify = table[table["setup"].str.startswith("notify")]
    for cube, g in notify.groupby("cube"):
        best = g.loc[g["speedup"].idxmax()]
        assert f"cube {cube} `{best.setup}` {best.speedup:.3f}×" in text(nb, "matrix_pool")
    assert images(nb, "matrix_pool") == 1

    # A face's unpack: the record's critical path (the median over its timed iterations).
    base = next(r for r in rank0 if r["cube"] == 800 and r["setup"] == "baseline isend waitall pinned 128t")
    face_unpack = base["critical_path_ns"]["largest_unpack"] / 1e3
    assert "**cube 800, 128 threads**: baseline last face at" in text(nb, "phases")
    assert f"one face unpacked in {face_unpack:.1f} µs" in text(nb, "phases")

    assert images(nb, "timeline") == 3
    check_vs_best(nb, COMMITTED)
    stages = hetprobe.halo_rates(COMMITTED, DATA / "h200x2-halo" / "bandwidth.jsonl.gz", per="stage")
    judged = stages[stages["judged"]].groupby(["cube", "setup"])["ratio"].min()
    rates = text(nb, "rates")
    assert "Reference, rank 0 of `data/h200x2-halo/bandwidth.jsonl.gz`" in rates
    assert f"Setups with parts `auto`: {int((judged >= 0.7).sum())} of {len(judged)} pack and unpack" in rates
    assert "Each phase is the setup's median over its timed iterations." in text(nb, "phases")

    # Every setup with a bound, measured above it (Eq. 1 is a lower bound).
    models = [r for r in jsonl_records(COMMITTED) if r["record"] == "halo_model"]
    medians = {(r["layout"], r["setup"]): r["iteration_ns"]["median"] for r in rank0}
    above = sum(medians[(m["layout"], s)] > b for m in models for s, b in m["lower_bound_ns"].items())
    bounds = sum(len(m["lower_bound_ns"]) for m in models)
    assert bounds == 18 and f"{above} of {bounds} setups measured above their bound" in text(nb, "model")

    check_payload(nb, COMMITTED)
    assert "All 36 halo records have payload `intact`" in text(nb, "payload")


# --- a fresh host-backend run, named by HETPROBE_NOTEBOOK_HALO ---------------------------------


def test_host_run_named_by_halo_variable(tmp_path):
    path = tmp_path / "halo.jsonl"
    run_on_host("halo", path, cube=40, rounds=6, iterations=1)
    empty = tmp_path / "run"
    empty.mkdir()
    # HETPROBE_NOTEBOOK_HALO wins over a run directory (this one has no halo.jsonl).
    executed = run(HETPROBE_NOTEBOOK_HALO=path, HETPROBE_NOTEBOOK_RUN=empty)
    assert_clean(executed)
    nb = executed["nb"]
    assert "No halo data" not in text(nb, "setup") and "Host backend" in text(nb, "setup")
    assert "cube 40, 128 threads per block:" in text(nb, "headline")
    check_headline(nb, path)
    assert images(nb, "timeline") == 3
    check_payload(nb, path)
    check_vs_best(nb, path)
    assert "No `hetprobe bandwidth` results beside" in text(nb, "rates")  # this run has none
    assert "median over its timed iterations" in text(nb, "phases")


# --- stand-ins for the GPU run's two files, on the host backend -------------------------------


def test_rates_of_a_run_with_its_bandwidth_beside(tmp_path):
    """The names the committed GPU run will have (h200x2-halo.jsonl and h200x2-halo-bandwidth.jsonl),
    here in a temporary directory with host-backend stand-ins: faces of 240000 B, parts auto and whole."""
    path, bandwidth = tmp_path / "h200x2-halo.jsonl", tmp_path / "h200x2-halo-bandwidth.jsonl"
    run_on_host("halo", path, cube=400, rounds=2, iterations=1, parts="auto,whole", variants="baseline,notify-stream")
    subprocess.run(
        [
            hetprobe.binary(),
            "bandwidth",
            "--device",
            "host",
            "--size",
            "1MiB",
            "--reps",
            "2",
            "--duration",
            "0.01",
            "--load",
            "write,read",
            "--quiet",
            "--out",
            str(bandwidth),
        ],
        check=True,
        capture_output=True,
    )
    executed = run(HETPROBE_NOTEBOOK_HALO=path)
    assert_clean(executed)
    nb = executed["nb"]
    assert "Rate reference: `" in text(nb, "setup") and "h200x2-halo-bandwidth.jsonl" in text(nb, "setup")
    assert "parts auto, whole: 4 setups in all" in text(nb, "setup")
    check_headline(nb, path)
    check_vs_best(nb, path)

    rates = hetprobe.halo_rates(path, bandwidth)
    shown = text(nb, "rates")
    plain = {r["writer"]: r["median_gbs"] for r in jsonl_records(bandwidth) if r["record"] == "point"}
    assert f"plain write kernel {plain['plain one-pass kernel']:.2f} GB/s" in shown
    assert f"plain read kernel {plain['plain read']:.2f} GB/s" in shown
    table = html(nb, "rates")[0]
    for (setup, direction), lowest in rates.groupby(["setup", "direction"])["ratio"].min().items():
        assert setup in table and shows_number(table, lowest, 3), (setup, direction)
    # Judged on the stages' busy rates, which the table shows beside the slowest message.
    stages = hetprobe.halo_rates(path, bandwidth, per="stage")
    assert len(stages) == 2 * 2 * 2  # variants x parts x directions
    for row in stages.itertuples():
        assert shows_number(table, row.ratio, 3), (row.setup, row.direction)
    judged = stages[stages["judged"]].groupby("setup")["ratio"].min()
    passed = int((judged >= 0.7).sum())
    assert f"Setups with parts `auto`: {passed} of {len(judged)} pack and unpack their long messages" in shown
    assert "Not judged (parts not `auto`): 2 setups" in shown


# --- a run directory without halo data --------------------------------------------------------


def test_run_directory_without_halo_data(tmp_path):
    assert not (tmp_path / "halo.jsonl").exists()
    executed = run(HETPROBE_NOTEBOOK_RUN=tmp_path)
    assert_clean(executed)
    nb = executed["nb"]
    assert "No halo data" in text(nb, "setup") and "has no halo.jsonl" in text(nb, "setup")
    assert "the sections below stay empty" in text(nb, "setup")
    for tag in TAGS[1:]:  # said once, above: every other cell is silent
        assert text(nb, tag).strip() == "" and images(nb, tag) == 0, tag
