"""hetprobe.load on the committed H200 results and on damaged copies of them."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
from conftest import RUNS, jsonl_records, skipped_mechanism, write_jsonl

from hetprobe.data import jsonl, record_types, schema, schema_rows
from hetprobe.data.load import TruncatedResultsWarning, UnknownRecordWarning, load
from hetprobe.errors import ResultsFileError, UsageError

JSONL = [p.name for p in jsonl.results_files(RUNS)]

# (record type, summary metric that every such record has exactly once)
ONE_ROW_PER_RECORD = {
    "point": None,
    "handover": "pair_ns",
    "overhead": "ns_per_op",
    "roundtrip": "roundtrip_ns",
    "mechanism": "roundtrip_ns",
    "clock_batch": "half_interval_ns",
    "clock_fit": "residual_ns",
}


def _raw_sample_count(rec: dict) -> int:
    """Samples the loader should produce for a record, counted from the JSON directly."""
    if rec["record"] == "point" and rec["probe"] == "interference":
        n = len(rec["send_time_ns"]["samples"])
        timeline = rec.get("writer_timeline")
        sender = (rec.get("writer") or {}).get("sender")
        return (
            n
            + (3 * len(timeline["start_ns"]) if timeline else 0)
            + (len(sender["passes_during_send"]) if sender else 0)
        )
    if rec["record"] == "point":
        return len(rec["gbs"])
    if rec["record"] in ("handover", "overhead", "roundtrip", "mechanism"):
        return len(rec["samples"]["values"]) if rec.get("samples") else 0
    if rec["record"] == "clock_batch":
        return len(rec["device_start"]["values"])
    if rec["record"] == "halo":
        return sum(len(rec[k]["samples"]) for k in ("iteration_ns", "slowest_rank_iteration_ns") if rec[k])
    return 0


@pytest.mark.parametrize("name", JSONL)
def test_every_committed_file_loads_completely(name):
    raw = jsonl_records(RUNS / name)
    r = load(RUNS / name)
    assert r.files == [str(RUNS / name)] and r.truncated == []
    assert len(r.records) == len(raw)
    assert len(r.headers) == sum(x["record"] == "header" for x in raw)
    for kind, metric in ONE_ROW_PER_RECORD.items():
        expected = sum(x["record"] == kind for x in raw)
        rows = r.summary[r.summary["record"] == kind]
        if metric is None:  # points: interference send_time_ns or bandwidth gbs
            rows = rows[rows["metric"].isin(["send_time_ns", "gbs"])]
        else:
            rows = rows[rows["metric"] == metric]
        assert len(rows) == expected, kind
    assert len(r.samples) == sum(_raw_sample_count(x) for x in raw)
    # record_id ties every row back to the record it came from
    for row in r.summary.itertuples():
        assert r.records[row.record_id]["record"] == row.record


def test_directory_is_every_jsonl_sorted_by_name():
    r = load(RUNS)
    assert [p.rsplit("/", 1)[-1] for p in r.files] == JSONL
    assert set(r.headers["probe"]) == {"interference", "bandwidth", "notify", "clock"}  # halo: in h200x2-halo/
    assert r.headers["segment"].tolist() == list(range(len(r.headers)))
    # the placed run's header carries the node topology
    assert r.topology is not None and r.topology["pus"] == 16


def test_topology_json_in_a_directory(tmp_path, copy_data):
    copy_data("h200-bandwidth.jsonl")
    copy_data("h200-topo.json", "topology.json")
    r = load(tmp_path)
    assert r.topology["runtime_devices"][0]["pci_bus_id"] == "0000:00:06.0"
    assert len(r.summary) == 3


def test_google_benchmark_json_is_probe_micro():
    doc = json.loads((RUNS / "h200-micro.json").read_text())
    r = load(RUNS / "h200-micro.json")
    h = r.headers.iloc[0]
    assert (h["probe"], h["host"], h["backend"], h["device"]) == ("micro", "vm", "cuda", "NVIDIA H200")
    assert len(r.summary) == len(doc["benchmarks"])
    first, row = doc["benchmarks"][0], r.summary.iloc[0]
    assert (row["metric"], row["unit"], row["n"]) == (first["name"], "ns", first["iterations"])
    assert row["median"] == pytest.approx(first["real_time"])
    assert row["record"] == "benchmark"


def _records_with_samples(r, kinds):
    for rid, rec in enumerate(r.records):
        if rec.get("record") in kinds:
            yield rid, rec


def _check_medians_from_samples(r, kinds, metric_of):
    """The median of the raw samples equals the record's stored Summary median."""
    checked = 0
    for rid, rec in _records_with_samples(r, kinds):
        metric = metric_of(rec)
        summary = rec.get(metric)
        if not summary or summary.get("median") is None:
            continue
        values = r.samples.loc[(r.samples["record_id"] == rid) & (r.samples["metric"] == metric), "value"]
        assert len(values) == summary["n"]
        assert np.median(values) == pytest.approx(summary["median"], rel=1e-12), (rec["record"], rid)
        assert np.std(values, ddof=1) == pytest.approx(summary["stddev"], rel=1e-9)
        checked += 1
    return checked


def test_handover_records_load_with_their_number_and_timer_cost(handover_file):
    """A host run of notify's handover part: per record a pair_ns row carrying the record's own
    pair_beyond_timer_ns, a timer_cost_ns row, and every pair as a sample."""
    r = load(handover_file)
    checked = _check_medians_from_samples(r, {"handover"}, lambda rec: "pair_ns")
    assert checked == 4  # two orders, two sides
    for rid, rec in _records_with_samples(r, {"handover"}):
        rows = r.summary[r.summary["record_id"] == rid].set_index("metric")
        assert rows.loc["pair_ns", "pair_beyond_timer_ns"] == rec["pair_beyond_timer_ns"]
        assert rows.loc["timer_cost_ns", "median"] == rec["timer_cost_ns"]["median"]
        assert rows.loc["pair_ns", "missed_writes"] == 0 and rows.loc["pair_ns", "timer"] == rec["timer"]
        assert bool(rows.loc["pair_ns", "below_timer_tick"]) == rec["below_timer_tick"]


def test_notify_medians_from_raw_samples_match_the_records():
    r = load(RUNS / "h200-notify.jsonl.gz")
    checked = _check_medians_from_samples(
        r,
        {"overhead", "roundtrip", "mechanism"},
        lambda rec: "ns_per_op" if rec["record"] == "overhead" else "roundtrip_ns",
    )
    assert checked == 24 + 12 + 12
    # the raw round-trip samples are full round trips: half of their median is the stored half
    for rid, rec in _records_with_samples(r, {"roundtrip"}):
        v = r.samples.loc[(r.samples["record_id"] == rid), "value"]
        assert np.median(v) / 2 == pytest.approx(rec["half_roundtrip_ns"]["median"], rel=1e-12)


def test_interference_clock_and_bandwidth_medians_from_raw_samples():
    r = load([RUNS / "h200-interference-sweep.jsonl.gz", RUNS / "h200-clock.jsonl"])
    assert _check_medians_from_samples(r, {"point"}, lambda rec: "send_time_ns") == 72
    assert _check_medians_from_samples(r, {"clock_batch"}, lambda rec: "half_interval_ns") == 7
    bw = load(RUNS / "h200-bandwidth.jsonl")
    for row in bw.summary.itertuples():
        assert row.median == pytest.approx(bw.records[row.record_id]["median_gbs"], rel=1e-12)
        assert row.n == 10 and row.p10 <= row.median <= row.p90


def test_interference_columns():
    r = load(RUNS / "h200-interference-timeline.jsonl.gz")
    s = r.summary[r.summary["metric"] == "send_time_ns"]
    psb = s[(s["layout"] == "PSB") & (s["size_bytes"] == 1024) & (s["access"] == "stream")].iloc[0]
    rec = r.records[psb["record_id"]]
    assert psb["ratio_to_ssb_median"] == rec["ratio_to_ssb_median"]
    assert psb["payload_check"] == "torn" and psb["torn_fraction_median"] == 1.0
    assert psb["bandwidth_during_send_gbs"] == rec["writer"]["sender"]["bandwidth_during_send_gbs"]
    assert s.loc[s["layout"] == "SSB", "ratio_to_ssb_median"].isna().all()
    assert set(r.summary["metric"]) == {"send_time_ns", "harness_empty_region_ns"}
    start = r.samples[(r.samples["record_id"] == psb["record_id"]) & (r.samples["metric"] == "writer_start_ns")]
    assert start["value"].tolist() == rec["writer_timeline"]["start_ns"]
    assert start["sample"].tolist() == list(range(10))


def test_clock_residuals_match_the_fit():
    r = load(RUNS / "h200-clock.jsonl")
    fit = next(x for x in r.records if x["record"] == "clock_fit")
    cs = r.clock_samples()
    assert len(cs) == 7 * 200
    assert cs["device_start_ticks"].dtype == np.uint64
    assert int(cs["device_start_ticks"].iloc[0]) == r.records[1]["device_start"]["values"][0]  # exact, not float
    used = cs[cs["used"]]
    assert len(used) == fit["samples_used"] == 600
    assert set(used["role"]) == {"fit"}
    assert math.sqrt(np.mean(used["residual_ns"] ** 2)) == pytest.approx(fit["residual_rms_ns"], abs=1.0)
    assert np.abs(used["residual_ns"]).max() == pytest.approx(fit["residual_max_abs_ns"], abs=1.0)
    assert used["interval_ticks"].max() == fit["interval_cutoff_ticks"]
    # the check: the check batch's shortest-interval sample (first of equals), not in the fit
    check = cs[cs["role"] == "check"].sort_values("interval_ticks", kind="stable").iloc[0]
    assert check["residual_ns"] == pytest.approx(fit["check"]["error_ns"], abs=1.0)
    assert check["predicted_host_ns"] == pytest.approx(fit["check"]["predicted_host_ns"], abs=1.0)
    row = r.summary[r.summary["record"] == "clock_fit"].iloc[0]
    assert (row["drift_ppm"], row["samples_used"]) == (fit["drift_ppm"], 600)
    assert row["ns_per_tick"] == fit["mapping"]["ns_per_tick"]


def test_clock_residuals_host_backend(host_run):
    r = load(host_run[0] / "clock.jsonl")
    fit = next(x for x in r.records if x["record"] == "clock_fit")
    used = r.clock_samples().query("used")
    assert len(used) == fit["samples_used"]
    assert math.sqrt(np.mean(used["residual_ns"] ** 2)) == pytest.approx(fit["residual_rms_ns"], abs=1.0)


def test_resumed_file_has_two_segments():
    r = load(RUNS / "h200-interference-sweep.jsonl.gz")
    assert r.headers["resumed"].tolist() == [False, True]
    points = r.summary[r.summary["metric"] == "send_time_ns"]
    assert points.groupby("segment").size().to_dict() == {0: 41, 1: 31}
    assert not points.duplicated(["size_bytes", "layout", "access"]).any()
    # a record belongs to the most recent header above it
    assert [x["_segment"] for x in r.records[:43]] == [0] * 42 + [1]


def test_cut_last_line_is_ignored_with_a_warning(tmp_path, copy_data):
    path = copy_data("h200-notify.jsonl.gz")
    data = path.read_bytes()
    path.write_bytes(data[:-200])  # cut inside the last record: unterminated
    with pytest.warns(TruncatedResultsWarning, match="h200-notify.jsonl"):
        r = load(path)
    assert r.truncated == [str(path)]
    assert len(r.records) == len(load(RUNS / "h200-notify.jsonl.gz").records) - 1


def test_unterminated_tail_is_ignored_even_if_it_parses(tmp_path, copy_data):
    path = copy_data("h200-bandwidth.jsonl")
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    with pytest.warns(TruncatedResultsWarning):
        r = load(path)
    assert len(r.records) == 3 and len(r.summary) == 2


def test_terminated_bad_last_line_is_tolerated(tmp_path, copy_data):
    path = copy_data("h200-bandwidth.jsonl")
    with open(path, "ab") as f:
        f.write(b'{"record":"point","probe":"band\n\n  \n')
    with pytest.warns(TruncatedResultsWarning):
        r = load(path)
    assert len(r.records) == 4 and r.truncated == [str(path)]


def test_complete_file_gives_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load(RUNS / "h200-clock.jsonl").truncated == []


def test_corrupt_middle_line_names_file_and_line(tmp_path, copy_data):
    path = copy_data("h200-bandwidth.jsonl")
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2][:40]
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(ResultsFileError, match=r"h200-bandwidth\.jsonl:3:"):
        load(path)


def test_a_tail_returns_each_line_once_it_is_complete(tmp_path, notify_header):
    path = tmp_path / "growing.jsonl"
    path.write_text(json.dumps(notify_header) + "\n")
    tail = jsonl.Tail(path)  # from the file's end: the header is already there
    assert tail.new() == []
    with open(path, "a") as f:
        f.write('{"record": "a"}\n{"record": "b", "x"')
    assert tail.new() == [{"record": "a"}]  # b is still being written
    with open(path, "a") as f:
        f.write(": 1}\n\n")
    assert tail.new() == [{"record": "b", "x": 1}] and tail.new() == []
    assert jsonl.Tail(tmp_path / "not-yet.jsonl").new() == []


def test_the_reader_loads_by_path_with_the_standard_library_alone(tmp_path, copy_data):
    """tests/gpu/*.py and tests/mpi/check_halo.py load data/jsonl.py by path where hetprobe is not
    installed: run so, it reads what load() reads (the cut last line left out) and names a bad line."""
    path = copy_data("h200-notify.jsonl.gz")
    path.write_bytes(path.read_bytes()[:-200])
    source = jsonl.__file__
    script = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('reader', {source!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "assert 'hetprobe' not in sys.modules and 'pandas' not in sys.modules\n"
        "print(len(m.records(sys.argv[1])))\n"
    )
    done = subprocess.run([sys.executable, "-I", "-c", script, str(path)], capture_output=True, text=True)
    with pytest.warns(TruncatedResultsWarning):
        assert done.stdout.strip() == str(len(load(path).records)), done.stderr
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([lines[0], lines[1][:40], *lines[2:]]))
    bad = subprocess.run([sys.executable, "-I", "-c", script, str(path)], capture_output=True, text=True)
    assert "ResultsFileError" in bad.stderr and "h200-notify.jsonl:2:" in bad.stderr


def test_not_an_object_or_no_header_is_corrupt(tmp_path, notify_header):
    path = tmp_path / "array.jsonl"
    path.write_text(json.dumps(notify_header) + "\n[1, 2]\n")
    with pytest.raises(ResultsFileError, match=":2: not a JSON object"):
        load(path)
    path = write_jsonl(tmp_path / "headless.jsonl", [{"record": "point", "probe": "bandwidth"}])
    with pytest.raises(ResultsFileError, match="header"):
        load(path)
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(ResultsFileError):
        load(tmp_path / "empty.jsonl")


def test_missing_paths_are_usage_errors(tmp_path):
    with pytest.raises(UsageError, match="no such"):
        load(tmp_path / "nope.jsonl")
    with pytest.raises(UsageError):
        load(tmp_path)  # a directory without results
    with pytest.raises(UsageError):
        load([])


def test_unknown_records_are_kept_but_not_in_frames(tmp_path, notify_header):
    path = write_jsonl(
        tmp_path / "x.jsonl",
        [notify_header, {"record": "mystery", "probe": "notify", "x": 1}, {"record": "point", "probe": "future-probe"}],
    )
    with pytest.warns(UnknownRecordWarning, match="1 future-probe point, 1 notify mystery"):
        r = load(path)
    assert [x["record"] for x in r.records] == ["header", "mystery", "point"]
    assert r.records[1]["_file"] == str(path) and r.records[1]["_segment"] == 0
    assert len(r.summary) == 0 and len(r.samples) == 0
    assert list(r.summary.columns)[:9] == [
        "file",
        "segment",
        "probe",
        "record",
        "host",
        "backend",
        "device",
        "rank",
        "record_id",
    ]


def test_skipped_mechanism_and_unresolved_overhead(tmp_path, notify_header):
    skipped = skipped_mechanism("no launches")
    unresolved = {
        "record": "overhead",
        "probe": "notify",
        "side": "gpu",
        "contended": False,
        "ops_per_sample": 1000,
        "setup": {
            "cpu_order": "fence",
            "gpu_order": "fence",
            "placement": "pinned",
            "spacing": "line",
            "spacing_bytes": 128,
            "host_memory": "default",
        },
        "ns_per_op": {
            "n": 3,
            "min": None,
            "p10": None,
            "median": None,
            "p90": None,
            "p99": None,
            "max": None,
            "mean": None,
            "stddev": None,
            "resolution_ns": 0.032,
            "unresolved": True,
        },
        "samples": {"unit": "device_ticks", "ns_per_tick": 1.0, "values": [0, 32, 0]},
        "rank": 1,
    }
    r = load(write_jsonl(tmp_path / "n.jsonl", [notify_header, skipped, unresolved]))
    mech = r.summary[r.summary["record"] == "mechanism"]
    assert len(mech) == 1 and mech["status"].iloc[0] == "skipped" and mech["median"].isna().all()
    assert mech["skipped_reason"].iloc[0] == "no launches" and mech["n"].iloc[0] == 0
    over = r.summary[r.summary["record"] == "overhead"].iloc[0]
    assert bool(over["unresolved"]) and math.isnan(over["median"]) and over["rank"] == 1
    assert r.samples["value"].tolist() == [0.0, 0.032, 0.0]  # ticks x ns_per_tick / ops_per_sample


def test_host_backend_notify_with_skipped_mechanisms(host_run):
    r = load(host_run[0] / "notify.jsonl")
    mech = r.summary[(r.summary["record"] == "mechanism") & (r.summary["metric"] == "roundtrip_ns")]
    assert len(mech) == 12 and (mech["status"] == "skipped").sum() == 9


def test_probe_header_and_repr():
    r = load(RUNS)
    n = r.probe("notify")
    assert set(n.summary["probe"]) == {"notify"} and set(n.headers["probe"]) == {"notify"}
    assert {x["probe"] for x in n.records} == {"notify"}
    for row in n.summary.itertuples():  # record_id renumbered into the filtered records
        assert n.records[row.record_id]["record"] == row.record
    assert len(n.samples) == len(load([RUNS / "h200-notify-placement.jsonl.gz", RUNS / "h200-notify.jsonl.gz"]).samples)
    assert r.header("clock")["config"]["keep_fraction"] == 0.5
    assert "_file" not in r.header()
    with pytest.raises(UsageError):
        r.header("micro")
    text = repr(r)
    assert "h200-bandwidth.jsonl" in text and "notify" in text and len(text) < 400


def test_load_is_fast():
    load(RUNS / "h200-notify.jsonl.gz")  # warm imports
    t0 = time.perf_counter()
    r = load(RUNS / "h200-notify.jsonl.gz")
    assert time.perf_counter() - t0 < 2.0
    assert len(r.samples) > 140_000


def test_recursive_and_mixed_inputs(tmp_path, copy_data):
    nested = tmp_path / "node1" / "run"
    nested.mkdir(parents=True)
    (nested / "clock.jsonl").write_bytes((RUNS / "h200-clock.jsonl").read_bytes())
    top = copy_data("h200-bandwidth.jsonl")
    assert load(tmp_path).files == [str(top)]  # not recursive: only the top level
    r = load(tmp_path, recursive=True)
    assert sorted(r.headers["probe"]) == ["bandwidth", "clock"]
    mixed = load([RUNS / "h200-micro.json", tmp_path])
    assert mixed.headers["probe"].tolist() == ["micro", "bandwidth"]
    assert mixed.headers["segment"].tolist() == [0, 1]


NOISY = "5 runnable threads on 2 CPUs of this cpuset: other work shares these CPUs, so latencies include delays"
SPREAD = "p90 is 12.3x the median (threshold 2x): scheduler noise dominates these samples"


def test_warnings_of_the_run_and_of_each_record(tmp_path):
    records = jsonl_records(RUNS / "h200-bandwidth.jsonl")
    records[0].update(conditions={"cpus": 2, "runnable_threads": 5}, warnings=[NOISY])
    records[1]["warnings"] = [SPREAD]
    records[2]["warnings"] = []
    r = load(write_jsonl(tmp_path / "b.jsonl", records))
    found = r.summary["warnings"].tolist()
    assert found[:2] == [SPREAD, ""] and (found[2] is None or math.isnan(found[2]))  # None: from before them
    assert r.headers["warnings"].tolist() == [NOISY]
    w = r.warnings()
    assert list(w.columns) == ["file", "segment", "record_id", "probe", "record", "warning"]
    assert w[["record_id", "record", "warning"]].values.tolist() == [[0, "header", NOISY], [1, "point", SPREAD]]
    assert r.header()["conditions"]["runnable_threads"] == 5
    old = load(RUNS / "h200-bandwidth.jsonl")
    assert old.summary["warnings"].isna().all() and old.warnings().empty


@pytest.mark.parametrize(
    "edit, where",
    [
        (
            lambda r: r[1].pop("ops_per_sample"),
            r"n\.jsonl:2: field 'ops_per_sample': missing \(a notify overhead record\)",
        ),
        (lambda r: r[1]["setup"].update(cpu_order=7), r":2: field 'setup.cpu_order': expected a string, got number"),
        (lambda r: r[1].update(contended="no"), r":2: field 'contended': expected a boolean, got string"),
        (lambda r: r[1]["ns_per_op"].update(median="fast"), r":2: field 'ns_per_op.median': expected a number"),
        (lambda r: r[1]["samples"].update(values={}), r":2: field 'samples.values': expected an array, got object"),
        (lambda r: r[0].update(ranks={}), r":1: field 'ranks': expected an array, got object \(a notify header"),
    ],
)
def test_a_malformed_record_names_its_file_line_and_field(tmp_path, notify_header, edit, where):
    records = [notify_header] + [r for r in jsonl_records(RUNS / "h200-notify.jsonl.gz")[1:3]]
    edit(records)
    path = write_jsonl(tmp_path / "n.jsonl", records)
    if where is None:
        assert len(load(path).summary) == 2
        return
    with pytest.raises(ResultsFileError, match=where):
        load(path)


def test_errors_skip_leaves_unreadable_files_out_and_names_them(tmp_path, copy_data):
    copy_data("h200-bandwidth.jsonl")
    (tmp_path / "empty.jsonl").write_text("")
    records = jsonl_records(RUNS / "h200-clock.jsonl")
    records[3]["batch"] = "three"
    write_jsonl(tmp_path / "clock.jsonl", records)
    r = load(tmp_path, errors="skip")
    assert [f.rsplit("/", 1)[-1] for f in r.files] == ["h200-bandwidth.jsonl"]
    assert set(r.headers["probe"]) == {"bandwidth"} and len(r.summary) == 3 and r.headers["segment"].tolist() == [0]
    why = dict((f.rsplit("/", 1)[-1], text) for f, text in r.unreadable)
    assert why["clock.jsonl"].endswith(
        ":4: field 'batch': expected an integer, got string (a clock clock_batch record)"
    )
    assert "holds no complete record" in why["empty.jsonl"]
    with pytest.raises(ResultsFileError, match="clock.jsonl:4"):
        load(tmp_path)
    with pytest.raises(UsageError, match="errors="):
        load(tmp_path, errors="ignore")


def test_every_record_type_has_rows_or_a_named_reader():
    """A record type read by no reader drops out of `summary`: each one the schema defines makes rows (its
    schema entry's marks) or is listed in READ_ELSEWHERE with the reader that reads it, never both."""
    defined = set(schema.record_types())
    elsewhere = set(record_types.READ_ELSEWHERE)
    made = {key for key in defined if schema_rows.schema_converter(key)}  # its Summary fields, by the schema
    assert not made & elsewhere
    assert defined - elsewhere - made == set(), "record types no reader reads"
    assert elsewhere <= defined, "READ_ELSEWHERE names a type the schema lacks"


def test_a_record_type_no_reader_knows_is_named_in_a_warning(tmp_path):
    header = {"record": "header", "schema": "hetprobe.results", "schema_version": 4}
    path = tmp_path / "novel.jsonl"
    write_jsonl(path, [{**header, "probe": "notify"}, {"record": "novel", "probe": "notify", "rank": 0}])
    with pytest.warns(UnknownRecordWarning, match="1 notify novel"):
        results = load(path)
    assert [r["record"] for r in results.records] == ["header", "novel"] and results.summary.empty
    known = tmp_path / "link.jsonl"  # a type read elsewhere (per_gpu) is no surprise
    write_jsonl(known, [{**header, "probe": "bandwidth"}, {"record": "link", "probe": "bandwidth", "rank": 0}])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load(known).summary.empty
