"""characterize's launches and the headline's rule: each interference step launched N times into its
own file, the launches pooled by hetprobe.load (Results.interference_ratios, through
hetprobe._core.pool_launch_ratios), merged files pooled alike, and the headline naming a slowdown only
where its 95% interval lies wholly above 1.05 (on the host run, on three launches of one H100, and on
those launches made noisy)."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess

import numpy as np
import pytest
from conftest import RUNS, jsonl_records, plain_bytes, run_on_host, write_jsonl

import hetprobe
from hetprobe import UsageError, _core, headline_table
from hetprobe.cli import main
from hetprobe.data.merge import merge
from hetprobe.report.texts import ci_text, ratio_text
from hetprobe.run.probes import binary

characterize_module = importlib.import_module("hetprobe.run.characterize")  # hetprobe.characterize is the function
ROUNDS = RUNS / "h100-rounds"  # tests/gpu/rounds.sh: the same command launched 3 times on one H100
LAUNCHED = ("interference", "interference-rate", "interference-paper", "interference-cold")

# Where these files' loads land: the headline names it (report/texts.py).
P2AB = "2 MiB past the send buffer (P2AB)"


def _files(directory, step):
    return [directory / (f"{step}.jsonl" if k == 1 else f"{step}.launch{k}.jsonl") for k in (1, 2, 3)]


def test_each_launch_is_its_own_run_into_its_own_file(host_run):
    directory, _ = host_run
    manifest = json.loads((directory / "characterize.json").read_text())
    commands = {s["file"]: s["command"] for s in manifest["steps"]}
    for step in LAUNCHED:
        headers = [jsonl_records(f)[0] for f in _files(directory, step)]
        assert len({h["config"]["seed"] for h in headers}) == 3, step  # each launch draws its own rounds' orders
        assert len({h["config"]["rounds"] for h in headers}) == 1 and headers[0]["config"]["rounds"] == 6
        for f in _files(directory, step):
            assert f"--out {f}" in commands[f.name] and commands[f.name].startswith("mpirun")
    # The node's STREAM once: the first launch of the loads' step measured it.
    assert '"record":"host_memory"' in (directory / "interference.jsonl").read_text()
    assert "--no-host-stream" in commands["interference.launch2.jsonl"]
    assert '"record":"host_memory"' not in (directory / "interference.launch2.jsonl").read_text()


def test_load_pools_the_launches_of_each_step(host_run):
    directory, _ = host_run
    results = hetprobe.load(directory)
    pooled = results.interference_ratios()
    each = results.interference_ratios(pooled=False)
    assert sorted(set(pooled["step"])) == sorted(LAUNCHED)  # one series per step, its launches pooled
    assert (pooled["launches"] == 3).all()
    assert sorted(set(each["launch"])) == [1, 2, 3]
    assert len(each) == 3 * len(pooled)
    loaded = pooled[pooled["layout"] != "SSB"]
    assert (
        len(loaded) == 10 + 2 * 2 + 3 * 2 * 3 + 10
    )  # loads; the 2 rates x OWN and P2AB; paper's 3 layouts x 2 access x 3 sizes; cold
    key = ["step", "size_bytes", "layout", "access", "load_kind", "load_gpus", "load_rate"]
    # The points of one step and size are pooled together (their launches' variance shared).
    expect = {}
    for _, side in loaded.groupby(["step", "size_bytes"]):
        launches = [list(each.set_index(key).loc[tuple(r[k] for k in key)]["ratio_to_ssb"]) for _, r in side.iterrows()]
        for (_, r), pool in zip(side.iterrows(), _core.pool_launch_points(launches)):
            expect[tuple(r[k] for k in key)] = pool
    for _, row in loaded.iterrows():
        mine = each.set_index(key).loc[tuple(row[k] for k in key)]
        ratios = list(mine["ratio_to_ssb"])
        expected = expect[tuple(row[k] for k in key)]
        side = loaded.query(f"step == '{row['step']}' and size_bytes == {row['size_bytes']}")
        assert expected.degrees_of_freedom in (2, 2 * len(side))  # its own spread, or the size's pool
        assert row["ratio_to_ssb"] == pytest.approx(expected.median)
        assert (row["ratio_to_ssb_ci95_low"], row["ratio_to_ssb_ci95_high"]) == pytest.approx(
            tuple(expected.ci95)
        )  # 3 launches: an interval
        assert row["effect"] == str(expected.effect) == str(_core.classify_ratio(*expected.ci95))
        assert (row["ratio_to_ssb_min"], row["ratio_to_ssb_max"]) == (min(ratios), max(ratios))
        assert row["median_ns"] == pytest.approx(np.median(mine["median_ns"]))
        assert sorted(row["record_ids"]) == sorted(mine["record_id"])
    ssb = pooled[pooled["layout"] == "SSB"]
    assert len(ssb) and ssb["ratio_to_ssb"].isna().all() and (ssb["median_ns"] == ssb["ssb_median_ns"]).all()


def test_two_launches_pool_without_an_interval_and_one_keeps_its_own(host_run):
    directory, _ = host_run
    two = hetprobe.load(_files(directory, "interference")[:2]).interference_ratios()
    loaded = two[two["layout"] != "SSB"]
    assert len(loaded) == 10 and (loaded["launches"] == 2).all()
    assert (
        loaded["ratio_to_ssb_ci95_low"].isna().all()
        and loaded["ratio_to_ssb_ci95_high"].isna().all()
        and loaded["effect"].isna().all()
    )
    assert (
        (loaded["ratio_to_ssb_min"] <= loaded["ratio_to_ssb"]) & (loaded["ratio_to_ssb"] <= loaded["ratio_to_ssb_max"])
    ).all()
    one = hetprobe.load(_files(directory, "interference")[0])
    table = one.interference_ratios()
    for _, row in table[table["layout"] != "SSB"].iterrows():
        (record_id,) = row["record_ids"]
        record = one.records[record_id]
        assert row["launches"] == 1 and row["ratio_to_ssb"] == record["ratio_to_ssb_median"]  # the point's own
        assert [row["ratio_to_ssb_ci95_low"], row["ratio_to_ssb_ci95_high"]] == record[
            "ratio_to_ssb_ci95"
        ]  # 6 rounds: [q(1), q(6)]
        assert row["effect"] == record["effect"]


def test_merged_launches_pool_as_the_files_do(host_run, tmp_path):
    directory, _ = host_run
    files = _files(directory, "interference")
    merged = merge(files, tmp_path / "merged.jsonl")
    apart = merged.interference_ratios(pooled=False)
    assert list(apart["launch"].drop_duplicates()) == [1, 2, 3]  # each launch a segment of the merged file
    assert apart.groupby("launch")["segment"].nunique().tolist() == [1, 1, 1]
    columns = [
        "size_bytes",
        "layout",
        "load_kind",
        "launches",
        "ratio_to_ssb",
        "ratio_to_ssb_ci95_low",
        "ratio_to_ssb_ci95_high",
        "effect",
    ]
    pooled = merged.interference_ratios()[columns]
    direct = hetprobe.load(files).interference_ratios()[columns]
    assert pooled.equals(direct)


def test_launches_must_be_a_whole_number(tmp_path, capsys):
    for value in ("0", "two", "1.5", "-3", "101"):
        assert main(["characterize", "--launches", value, str(tmp_path / "run")]) == 2
        err = capsys.readouterr().err
        assert f"--launches {value if value in ('0', '101') else repr(value)}: expected a whole number" in err, err
    for value in (0, True, 2.0):
        with pytest.raises(UsageError, match="--launches"):
            hetprobe.characterize(tmp_path / "run", launches=value)
    assert not (tmp_path / "run").exists()


def _planned(tmp_path, monkeypatch, **options) -> tuple:
    """The steps characterize runs with these options, the probes themselves not run (each step is
    marked finished), and the manifest it writes."""

    def finished(step, out, directory, progress, timeout_s):
        step.status, step.exit_code, step.wall_s = "ok", 0, 0.0

    monkeypatch.setattr(characterize_module, "run_step", finished)
    run = hetprobe.characterize(
        tmp_path / "run", device="host", skip=["notify", "clock", "bandwidth"], report=False, progress=False, **options
    )
    names = [s.name for s in run.steps]
    return [n for n in names if not n.startswith("gpus")], json.loads(
        (tmp_path / "run" / "characterize.json").read_text()
    )


def test_the_gpus_launches_spread_over_the_run(tmp_path, monkeypatch):
    """The node verdict's gpus step: 3 launches (--quick 2; --launches N: N, never under 2), the first
    before everything, the second after the per-GPU steps, the last after the interference steps."""

    def finished(step, out, directory, progress, timeout_s):
        step.status, step.exit_code, step.wall_s = "ok", 0, 0.0

    monkeypatch.setattr(characterize_module, "run_step", finished)
    for options, expected in (({}, 3), ({"quick": True}, 2), ({"launches": 1}, 2), ({"launches": 4}, 4)):
        run = hetprobe.characterize(
            tmp_path / f"run{len(list(tmp_path.iterdir()))}", device="host", report=False, progress=False, **options
        )
        names = [s.name for s in run.steps]
        gpus = [n for n in names if n.startswith("gpus")]
        assert gpus == ["gpus"] + [f"gpus.launch{k}" for k in range(2, expected + 1)], (options, names)
        assert names[0] == "gpus" and names.index("gpus.launch2") == names.index("bandwidth") + 1
        if expected >= 3:
            assert names.index("gpus.launch3") > max(i for i, n in enumerate(names) if n.startswith("interference"))


def test_the_default_launches_the_headline_step_three_times(tmp_path, monkeypatch):
    """The loads step, which the headline rests on, 3 times (after one launch of every step); the
    rate and cold steps once, the paper's only with --paper; --quick once each; --launches N every
    step N times."""
    names, manifest = _planned(tmp_path / "default", monkeypatch)
    assert names == ["interference", "interference-rate", "interference-cold"] + [
        "interference.launch2",
        "interference.launch3",
    ]
    assert manifest["launches"] == {"interference": 3, "interference-rate": 1, "interference-cold": 1}
    assert manifest["launches_asked"] is None
    assert "launch_budget_s" not in manifest and "launches_note" not in manifest
    names, manifest = _planned(tmp_path / "paper", monkeypatch, paper=True)
    assert names == [*LAUNCHED, "interference.launch2", "interference.launch3"]
    assert manifest["launches"]["interference-paper"] == 1
    names, manifest = _planned(tmp_path / "quick", monkeypatch, quick=True, paper=True)
    assert names == list(LAUNCHED) and set(manifest["launches"].values()) == {1}
    names, manifest = _planned(tmp_path / "two", monkeypatch, launches=2, paper=True)
    assert names == [*LAUNCHED, *(f"{step}.launch2" for step in LAUNCHED)]
    assert manifest["launches_asked"] == 2 and set(manifest["launches"].values()) == {2}


# --- the headline's rule on three launches of one H100 (tests/gpu/rounds.sh) ---------------------


def _run_dir(tmp_path, edit=None):
    """The three H100 launches as a characterize run's interference step (interference.jsonl,
    interference.launch2.jsonl, ...), each point's ratio edited by edit(launch, record) where given."""
    directory = tmp_path / "run"
    directory.mkdir()
    for k in (1, 2, 3):
        records = jsonl_records(ROUNDS / f"interference-{k}.jsonl.gz")
        for record in records:
            if edit and record.get("record") == "point" and record.get("ratio_to_ssb_median") is not None:
                edit(k, record)
        write_jsonl(directory / ("interference.jsonl" if k == 1 else f"interference.launch{k}.jsonl"), records)
    return directory


def _set_ratio(record, ratio, half_width=0.03):
    """A point's ratio, its interval over the rounds and what that claims (as the probe writes them)."""
    low, high = ratio * (1 - half_width), ratio * (1 + half_width)
    record.update(ratio_to_ssb_median=ratio, ratio_to_ssb_ci95=[low, high], effect=str(_core.classify_ratio(low, high)))
    record["send_time_ns"]["median"] = ratio * record["ssb_send_time_ns_median"]


def _ratios_by_launch(size_bytes: int, load_kind: str, by_launch: dict):
    """An edit for _run_dir: the point of `size_bytes` under `load_kind` given launch k's ratio by_launch[k]."""

    def edit(k, record):
        if record["size_bytes"] == size_bytes and record["load_kind"] == load_kind:
            _set_ratio(record, by_launch[k])

    return edit


def _headline(directory) -> dict:
    table = headline_table(hetprobe.load(directory))
    return dict(zip(table["quantity"], zip(table["value"], table["how"])))


def test_the_headline_names_the_slowdown_three_h100_launches_support(tmp_path):
    # Each launch's 16 MiB write ratio (1.12, 1.15, 1.20) pools to 1.15 with an interval above 1.05.
    value, how = _headline(_run_dir(tmp_path))["MPI_Send slowdown under GPU traffic"]
    pooled = _core.pool_launch_ratios([1.1178487754513107, 1.1466921015465033, 1.2010567319846694])
    assert pooled.effect == _core.Effect.slowdown and str(pooled.effect) == "slowdown"
    low, high = pooled.ci95
    assert value == (
        f"{pooled.median:.4g}× SSB (95% CI {low:.2f}-{high:.2f}): write from 1 GPU, {P2AB}, 16 MiB: SSB 2353 µs, "
        "loaded "
        "2689 µs, 52.08 GB/s during the send"
    )  # in the units and digits of the report's tables
    assert how.startswith("P2AB, stacked access; the median of 3 launches' ratios (1.12-1.20), its 95% interval")
    assert how.endswith("claimed: the interval lies wholly above 1.05")


def test_the_headline_numbers_are_the_records_own(tmp_path):
    """The report's numbers, from the three H100 launches' records by hand: the headline point's GPU
    traffic as a share of the host's best triad (its traffic the median over the launches), and with
    the launches read as the paper's step too, the typical ratio (each point's median over the
    launches, then the median over the points)."""
    directory = _run_dir(tmp_path)
    for path in list(directory.iterdir()):  # the paper's step: another command (--paper), the same points
        records = jsonl_records(path)
        records[0]["config"]["paper"] = True
        write_jsonl(directory / path.name.replace("interference", "interference-paper"), records)
    launches = [jsonl_records(ROUNDS / f"interference-{k}.jsonl.gz") for k in (1, 2, 3)]
    triad = next(r["best_triad_gbs"] for r in launches[0] if r["record"] == "host_memory")  # the first launch's
    points: dict = {}
    for r in (r for records in launches for r in records if r["record"] == "point" and r["layout"] != "SSB"):
        points.setdefault((r["size_bytes"], r["load_kind"]), []).append(r)
    traffic = np.median([r["load"]["traffic_during_send_gbs"] for r in points[(16 << 20, "write")]])
    typical = np.median([np.median([r["ratio_to_ssb_median"] for r in p]) for p in points.values()])
    headline = _headline(directory)
    assert headline["Host memory bandwidth (STREAM, best of the runs)"][1].endswith(
        f"; the headline point's GPU traffic is {100 * traffic / triad:.0f}% of triad"
    )
    value, _ = headline["Typical ratio to SSB, the paper's writer (median over sizes and access)"]
    assert value.startswith("P2AB ") and float(value.split()[1]) == pytest.approx(typical, rel=5e-4)


def test_a_larger_median_without_the_intervals_support_is_not_the_headline(tmp_path):
    # 16 MiB read: 1.6, 1.0, 1.3 over the launches, a median of 1.3 above the write's 1.15, but its own
    # spread (which it keeps: it is wider than the size's pool) gives an interval down to below 1, and
    # it widens the pool its neighbours' intervals use: at 16 MiB nothing is claimed.
    directory = _run_dir(tmp_path, _ratios_by_launch(16 << 20, "read", {1: 1.6, 2: 1.0, 3: 1.3}))
    table = hetprobe.load(directory).interference_ratios().query("size_bytes == 16777216 and layout != 'SSB'")
    read = table.query("load_kind == 'read'").iloc[0]
    assert read["ratio_to_ssb"] == pytest.approx(1.3) and read["effect"] == "none" and read["ratio_to_ssb_ci95_low"] < 1
    assert (table["effect"] == "none").all()
    value, _ = _headline(directory)["MPI_Send slowdown under GPU traffic"]
    assert value.startswith("no slowdown beyond noise: the largest median ratio is 1.3× SSB (95% CI 0.71-2.29), read")


def test_the_headline_is_the_largest_claimed_slowdown_not_the_largest_median(tmp_path):
    # 1 MiB read: 1.6, 1.0, 1.3 over the launches, the largest median (1.3) with no claim; 16 MiB
    # write keeps its claimed 1.147, and the headline names it.
    directory = _run_dir(tmp_path, _ratios_by_launch(1 << 20, "read", {1: 1.6, 2: 1.0, 3: 1.3}))
    read = hetprobe.load(directory).interference_ratios().query("size_bytes == 1048576 and load_kind == 'read'")
    assert read["ratio_to_ssb"].iloc[0] == pytest.approx(1.3) and read["effect"].iloc[0] == "none"
    value, _ = _headline(directory)["MPI_Send slowdown under GPU traffic"]
    assert value.startswith(f"1.147× SSB (95% CI 1.05-1.26): write from 1 GPU, {P2AB}, 16 MiB")


def test_slowdowns_within_the_largest_ones_interval_are_named_beside_it(tmp_path):
    # 16 MiB read made a claimed slowdown of 1.12-1.14 over the launches: its interval reaches the
    # write's (1.05-1.26), so which is larger is noise, and the headline names both.
    steady = _ratios_by_launch(16 << 20, "read", {1: 1.12, 2: 1.13, 3: 1.14})
    value, _ = _headline(_run_dir(tmp_path, steady))["MPI_Send slowdown under GPU traffic"]
    assert value.startswith(f"1.147× SSB (95% CI 1.05-1.26): write from 1 GPU, {P2AB}, 16 MiB")
    assert value.endswith("; as large within the noise: read x1 P2AB 16 MiB 1.13×")


def test_a_noisy_run_has_no_headline_effect(tmp_path):
    """Launch 2 reads 40% high and launch 3 20% low at every point (a noisy node): each launch's own
    interval may claim a slowdown, but their spread does not: no slowdown beyond noise."""
    scale = {1: 1.0, 2: 1.4, 3: 0.8}

    def edit(k, record):
        _set_ratio(record, record["ratio_to_ssb_median"] * scale[k])

    directory = _run_dir(tmp_path, edit)
    each = hetprobe.load(directory).interference_ratios(pooled=False)
    second = each[(each["launch"] == 2) & (each["layout"] != "SSB")]
    assert len(second) == 12 and (second["effect"] == "slowdown").all()  # one launch alone would claim them all
    pooled = hetprobe.load(directory).interference_ratios().dropna(subset=["ratio_to_ssb"])
    assert (pooled["effect"] == "none").all() and pooled["ratio_to_ssb"].max() > 1.05
    top = pooled.loc[pooled["ratio_to_ssb"].idxmax()]
    value, how = _headline(directory)["MPI_Send slowdown under GPU traffic"]
    assert value.startswith(
        f"no slowdown beyond noise: the largest median ratio is {top['ratio_to_ssb']:.4g}× SSB (95% CI "
        f"{top['ratio_to_ssb_ci95_low']:.2f}-{top['ratio_to_ssb_ci95_high']:.2f}), {top['load_kind']} from 1 GPU, "
    )
    assert how.endswith("no point's interval lies wholly above 1.05")
    assert not any("speed-up" in q for q in _headline(directory))


def test_a_speedup_is_reported_with_a_note_that_asks_why(tmp_path):
    directory = _run_dir(tmp_path, _ratios_by_launch(64 << 10, "poll", {1: 0.80, 2: 0.82, 3: 0.81}))
    headline = _headline(directory)
    value, how = headline["MPI_Send speed-up under GPU traffic (not expected)"]
    poll = hetprobe.load(directory).interference_ratios().query("size_bytes == 65536 and load_kind == 'poll'")
    low, high = poll["ratio_to_ssb_ci95_low"].iloc[0], poll["ratio_to_ssb_ci95_high"].iloc[0]
    assert high < 0.95
    # The SSB and loaded medians: the median over the launches (11.9 µs; 0.82 x launch 2's 11.89 µs).
    assert value.startswith(
        f"0.81× SSB (95% CI {low:.2f}-{high:.2f}): poll from 1 GPU, {P2AB}, 64 KiB: SSB 11.89 µs, loaded 9.75 µs"
    )
    assert "GPU traffic is not expected to make a send faster: find out why" in how
    assert headline["MPI_Send slowdown under GPU traffic"][0].startswith("1.147× SSB")  # the slowdown still stands


def test_of_several_speedups_the_fastest_is_named_and_all_are_counted(tmp_path):
    # 64 KiB read 0.88-0.90 and poll 0.80-0.82 over the launches: both intervals lie below 0.95. The
    # headline names the poll's, the smaller ratio, though the read's point comes first.
    poll = _ratios_by_launch(64 << 10, "poll", {1: 0.80, 2: 0.82, 3: 0.81})
    read = _ratios_by_launch(64 << 10, "read", {1: 0.88, 2: 0.89, 3: 0.90})
    directory = _run_dir(tmp_path, lambda k, record: (poll(k, record), read(k, record)))
    value, _ = _headline(directory)["MPI_Send speed-up under GPU traffic (not expected)"]
    assert value.startswith(f"0.81× SSB (95% CI 0.79-0.84): poll from 1 GPU, {P2AB}, 64 KiB")
    assert value.endswith("; 2 points in all")


def test_the_headline_rests_on_the_step_with_the_most_launches(tmp_path):
    """The default's rate step has one launch: its interval over rounds misses the noise between
    launches, so a large claimed ratio there does not outrank the loads step's three launches."""
    directory = _run_dir(tmp_path)
    records = jsonl_records(ROUNDS / "interference-1.jsonl.gz")
    records[0]["config"]["load_rates"] = ["0.5", "1"]  # the rate step: another command than the loads'
    for record in records:
        if record.get("record") == "point" and record["size_bytes"] == 64 << 10 and record["load_kind"] == "read":
            _set_ratio(record, 1.5, half_width=0.01)
    write_jsonl(directory / "interference-rate.jsonl", records)
    value, _ = _headline(directory)["MPI_Send slowdown under GPU traffic"]
    assert value.startswith(f"1.147× SSB (95% CI 1.05-1.26): write from 1 GPU, {P2AB}, 16 MiB")
    # Launched as often as the loads, the rate step's 1.5 would be the headline.
    for k in (2, 3):
        write_jsonl(directory / f"interference-rate.launch{k}.jsonl", records)
    value, _ = _headline(directory)["MPI_Send slowdown under GPU traffic"]
    assert value.startswith("1.5× SSB") and f"read from 1 GPU, {P2AB}, 64 KiB" in value


def test_one_launch_is_judged_by_its_own_interval(tmp_path):
    directory = tmp_path / "one"
    directory.mkdir()
    (directory / "interference.jsonl").write_bytes(plain_bytes(ROUNDS / "interference-2.jsonl.gz"))
    value, how = _headline(directory)["MPI_Send slowdown under GPU traffic"]
    # Launch 2's own 10 rounds: 16 MiB write 1.15 with [q(2), q(9)] = 1.07-1.23, wholly above 1.05.
    assert value.startswith(f"1.147× SSB (95% CI 1.07-1.23): write from 1 GPU, {P2AB}, 16 MiB: SSB 2125 µs")
    assert "the median over 10 rounds of each round's median ÷ the same round's SSB median (8 sends" in how


def test_the_report_shows_each_ratio_with_its_interval_and_the_cold_sends(host_run):
    directory, _ = host_run
    md = (directory / "report.md").read_text()
    loads = md[md.index("## Interference") : md.index("## Cold sends")]
    assert "| kind | GPUs | size | µs | SSB µs | ratio_to_ssb | ci95 | effect | launches | GB/s |" in loads
    assert "Pooled over 3 launches (each a separate mpirun)" in loads
    assert (
        "| kind | GPUs | rate | layout | size | µs | SSB µs | ratio_to_ssb | ci95 | effect | launches | GB/s |" in loads
    )
    cold = md[md.index("## Cold sends") : md.index("## The paper's layouts")]
    assert "| size | access | cold µs | warm µs | cold ÷ warm | 95% CI |" in cold
    assert "Under each load, the sends cold (OWN, stacked):" in cold
    paper = md[md.index("## The paper's layouts") : md.index("## Notifications")]
    assert (
        "| kind | GPUs | layout | access | size | µs | SSB µs | ratio_to_ssb | ci95 | effect | launches | GB/s |"
        in paper
    )
    # Each pooled point of the loads' step is a row: its median ratio, interval, effect and the launches' range.
    table = hetprobe.load(directory).interference_ratios()
    for _, row in table[(table["step"] == "interference") & (table["layout"] != "SSB")].iterrows():
        size = "1 KiB" if row["size_bytes"] == 1024 else "64 KiB"
        interval = ci_text(row["ratio_to_ssb_ci95_low"], row["ratio_to_ssb_ci95_high"])
        assert interval and f"| {row['load_kind']} | 1 | {size} | " in loads
        spread = f"{row['ratio_to_ssb_min']:.2f}-{row['ratio_to_ssb_max']:.2f}"
        cells = f"| {row['ratio_to_ssb']:.4g} | {interval} | {row['effect']} | {spread} |"
        assert cells in loads, cells


def test_a_failed_launch_is_named_in_its_section(host_run, tmp_path):
    """A launch that failed (here: marked so in characterize.json) is named with its launch number in
    the section of its step, and the report of the others is written."""
    directory = tmp_path / "run"
    shutil.copytree(host_run[0], directory)
    manifest = json.loads((directory / "characterize.json").read_text())
    step = next(s for s in manifest["steps"] if s["file"] == "interference-cold.launch2.jsonl")
    step.update(status="failed", exit_code=1, error="hetprobe interference: timeout error: the receiver did not answer")
    (directory / "characterize.json").write_text(json.dumps(manifest))
    assert main(["report", str(directory)]) == 1
    md = (directory / "report.md").read_text()
    cold = md[md.index("## Cold sends") : md.index("## The paper's layouts")]
    assert (
        f"interference-cold (launch 2) failed (exit code 1) after {step['records']} record(s): hetprobe interference: "
        "timeout error: the receiver did not answer. Only its finished records are shown."
    ) in cold
    assert "| kind | GPUs | size | µs | SSB µs | ratio_to_ssb | ci95 | effect | launches | GB/s |" in cold
    summary = (directory / "summary.txt").read_text()
    assert "INCOMPLETE: interference-cold (launch 2) failed" in summary


def test_python_and_show_pool_group_launches_by_one_rule(tmp_path):
    # The rule is C++'s (launch_identity): a new seed is another launch of one command; other sizes are
    # another command, a series of its own here and a refusal naming the setting in `show --pool`.
    files = [ROUNDS / f"interference-{k}.jsonl.gz" for k in (1, 2)]
    first, second = (jsonl_records(f) for f in files)
    second[0]["config"]["seed"] = first[0]["config"]["seed"] + 1
    same = write_jsonl(tmp_path / "same.jsonl", second)
    other = [dict(r) for r in second]
    other[0] = dict(other[0], config=dict(other[0]["config"], sizes_bytes=[*other[0]["config"]["sizes_bytes"], 1]))
    changed = write_jsonl(tmp_path / "other.jsonl", other)
    assert len(set(hetprobe.load([files[0], same]).interference_ratios(pooled=False)["series"])) == 1
    assert len(set(hetprobe.load([files[0], changed]).interference_ratios(pooled=False)["series"])) == 2
    hp = binary()
    ok = subprocess.run([hp, "show", "--pool", str(files[0]), str(same)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    refused = subprocess.run([hp, "show", "--pool", str(files[0]), str(changed)], capture_output=True, text=True)
    assert refused.returncode == 2 and "has sizes_bytes = " in refused.stderr, refused.stderr
    assert "not launches of one command" in refused.stderr


def _rebind(header):
    for rank in header["ranks"]:
        rank["placement"]["bind"] = "none"


# A header edit, and whether the edited file is still a launch of the first's command: each part of
# launch_identity (bench/core/launches.cpp) once, and the parts it leaves out.
_LAUNCH_EDITS = {
    "bind": (_rebind, False),  # a part Python's own rule once left out
    "device": (lambda h: h["device"].update(name="NVIDIA H200"), False),
    "backend": (lambda h: h.update(backend="hip"), False),
    "config.rounds": (lambda h: h["config"].update(rounds=h["config"]["rounds"] + 1), False),
    "config.host_stream": (lambda h: h["config"].update(host_stream=not h["config"]["host_stream"]), True),
    "the device's other fields": (lambda h: h["device"].update(pci_bus_id="0000:00:07.0"), True),
}


@pytest.mark.parametrize("part", _LAUNCH_EDITS)
def test_python_and_show_pool_agree_on_each_part_of_a_launch(tmp_path, part):
    edit, same = _LAUNCH_EDITS[part]
    first = ROUNDS / "interference-1.jsonl.gz"
    records = jsonl_records(ROUNDS / "interference-2.jsonl.gz")
    edit(records[0])
    edited = write_jsonl(tmp_path / "edited.jsonl", records)
    series = set(hetprobe.load([first, edited]).interference_ratios(pooled=False)["series"])
    pooled = subprocess.run([binary(), "show", "--pool", str(first), str(edited)], capture_output=True, text=True)
    assert (len(series), pooled.returncode) == ((1, 0) if same else (2, 2)), pooled.stderr
    assert same or "not launches of one command" in pooled.stderr


def test_cold_over_warm_is_read_from_the_records(tmp_path):
    """Cold ÷ warm is the probe's (interference_record.cpp: paired round by round, with its interval):
    the rows and the headline's idle row read it from each record and never compute it from the medians."""
    path = tmp_path / "run" / "interference-cold.jsonl"
    path.parent.mkdir()
    run_on_host("interference", path, gap="1ms", sizes="1KiB", load="none", rounds=6, reps=1, warmup=0)
    records = [r for r in jsonl_records(path) if r["record"] == "point"]
    rows = hetprobe.load(path).interference_ratios()
    assert len(rows) == len(records) > 0
    value, _ = _headline(path.parent)["Cold MPI_Send, the GPU idle (1ms of spinning before each send)"]
    for rec, (_, row) in zip(records, rows.iterrows()):
        ratio, (low, high) = rec["cold_over_warm_median"], rec["cold_over_warm_ci95"]
        assert (row["cold_ratio"], row["cold_ratio_ci95_low"], row["cold_ratio_ci95_high"]) == (ratio, low, high)
        assert f"{ratio_text(ratio)}× (95% CI {ci_text(low, high)})" in value


def test_a_gap_is_read_from_its_kind_and_bytes_not_its_label(tmp_path):
    """A sweep gap's rows carry the record's kind and bytes, and the report's text says them; a file
    from before --gap is back to back (kind "none")."""
    from hetprobe.report.texts import how_text

    swept = tmp_path / "swept.jsonl"
    run_on_host("interference", swept, gap="sweep:64KiB", sizes="1KiB", load="write", rounds=6, reps=1, warmup=0)
    row = hetprobe.load(swept).interference_ratios().query("layout != 'SSB'").iloc[0]
    assert (row["gap"], row["gap_kind"], row["gap_bytes"]) == ("sweep:64 KiB", "sweep", 65536)
    assert ", a 64 KiB buffer swept before each send;" in how_text(row)
    row = (
        hetprobe.load(RUNS / "h200-interference-sweep.jsonl.gz").interference_ratios().query("layout != 'SSB'").iloc[0]
    )
    assert (row["gap"], row["gap_kind"]) == ("0", "none") and np.isnan(row["gap_bytes"])
    assert "swept" not in how_text(row) and "spinning" not in how_text(row)


def test_the_judgement_is_typed():
    """_core's judgement as Python types (issue 52): an Effect whose str() is the tables' name, an Interval
    that unpacks as (low, high), and a PooledRatio whose effect C++ judges."""
    pooled = _core.pool_launch_ratios([1.10, 1.12, 1.11])
    assert isinstance(pooled, _core.PooledRatio) and isinstance(pooled.ci95, _core.Interval)
    low, high = pooled.ci95
    assert low < pooled.median < high and pooled.launches == 3 and pooled.degrees_of_freedom == 2
    assert (
        pooled.effect == _core.classify_ratio(low, high) == _core.Effect.slowdown and str(pooled.effect) == "slowdown"
    )
    two = _core.pool_launch_ratios([1.0, 1.1])  # 2 launches: no interval, so no effect
    assert two.ci95 is None and two.effect is None and (two.min, two.max) == (1.0, 1.1)
    assert str(_core.classify_ratio(0.9, 1.1)) == "none" and str(_core.classify_ratio(0.8, 0.9)) == "speedup"
    with pytest.raises(ValueError):
        _core.pool_launch_ratios([])


def test_a_load_rate_is_typed_and_equal_by_value():
    """_core.LoadRate: C++'s one parse of a rate, equal by value ("50%" is "0.5"), hashable, its label kept."""
    half, percent = _core.parse_load_rate("0.5"), _core.parse_load_rate("50%")
    assert half == percent and hash(half) == hash(percent) and str(percent) == "50%"
    assert (half.fraction, half.gbs, half.full) == (0.5, 0.0, False) and _core.parse_load_rate("100%").full
    gbs = _core.parse_load_rate("12GB/s")
    assert (gbs.fraction, gbs.gbs) == (0.0, 12.0) and gbs != half
    with pytest.raises(hetprobe.UsageError):
        _core.parse_load_rate("fast")
