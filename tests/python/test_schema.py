"""The JSON schema of results files (hetprobe/results.schema.json): every committed file validates
against it, every record type it defines is in some file, damaged records fail, every numeric field
has a unit, docs/results-schema.md names every field, and the frames take their columns from it."""

from __future__ import annotations

import copy
import json
import re

import pytest
from conftest import DATA, REPO, RUNS, jsonl_records

from hetprobe import _core
from hetprobe.data import frames, launches, record_rows, schema
from hetprobe.data.jsonl import read_jsonl, results_files
from hetprobe.data.load import load

jsonschema = pytest.importorskip("jsonschema")

COMMITTED = results_files(DATA, recursive=True)
UNITS = {
    "ns",
    "us",
    "s",
    "GB/s",
    "GT/s",
    "Mb/s",
    "B/s",
    "bytes",
    "Hz",
    "MHz",
    "ppm",
    "ticks",
    "ticks/ns",
    "s/byte",
    "count",
    "ratio",
    "index",
    "id",
    "field",
}
# Record types no committed file holds, and where they are made instead (tests/schema/probe_records.sh
# writes every one on the host backend).
ONLY_ELSEWHERE: dict[tuple[str, str], str] = {
    ("interference", "aggregate"): "made in memory from the point records (test_aggregates_validate)",
    ("micro", "benchmark"): "read from Google Benchmark JSON (test_load.test_google_benchmark_json_is_probe_micro)",
}
# The record types of probes declared in their folders: their own tests and probe_records.sh make them,
# whether or not a committed file holds one.
DECLARED = {(d["probe"], record) for d in schema.declarations() for record in d["records"]}


def _errors(record: dict) -> list[str]:
    """FIELD: MESSAGE of each way `record` fails the schema (a long message: its start and end)."""

    def short(text: str) -> str:
        return text if len(text) < 300 else f"{text[:150]} ... {text[-100:]}"

    return [
        f"{'.'.join(map(str, e.absolute_path)) or '(record)'}: {short(e.message)}"
        for e in schema.validator().iter_errors(record)
    ]


def _types(records) -> set[tuple[str, str]]:
    return {(r.get("probe"), r.get("record")) for r in records if r.get("record") != "header"}


def test_schema_is_valid_draft_2020_12():
    assert schema.schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema.schema())


@pytest.mark.parametrize("path", COMMITTED, ids=[str(p.relative_to(DATA)) for p in COMMITTED])
def test_committed_file_validates(path):
    records, _ = read_jsonl(path)
    assert records
    bad = [f"{path.name}:{line}: {e}" for line, _, rec in records for e in _errors(rec)]
    assert not bad, "\n".join(bad[:20])


def test_every_record_type_is_in_a_committed_file():
    seen = set()
    for path in COMMITTED:
        seen |= _types(jsonl_records(path))
    defined = set(schema.record_types())
    assert defined - seen - DECLARED == set(ONLY_ELSEWHERE), (
        f"record types in no committed file: {sorted(defined - seen)}; name where each is produced in ONLY_ELSEWHERE"
    )
    assert seen <= defined, f"record types the schema lacks: {sorted(seen - defined)}"


def test_aggregates_validate():
    # Every aggregate C++ makes of the committed interference data, as Python receives it.
    made = 0
    for path in [p for p in COMMITTED if "interference" in p.name]:
        for aggregate in launches.aggregates(load(path)):
            assert _errors(aggregate) == [], (path, aggregate["step"], aggregate["size_bytes"])
            made += 1
    assert made > 500


def test_fresh_host_run_validates(host_run):
    directory, _ = host_run
    files = sorted(directory.glob("*.jsonl"))
    assert files
    for path in files:
        records, _ = read_jsonl(path)
        bad = [f"{path.name}:{line}: {e}" for line, _, rec in records for e in _errors(rec)]
        assert not bad, "\n".join(bad[:20])


def _first(name: str, probe: str, record: str) -> dict:
    return next(r for r in jsonl_records(RUNS / name) if r["probe"] == probe and r["record"] == record)


@pytest.mark.parametrize(
    "name,probe,record,damage,expect",
    [
        (
            "h200-interference-sweep.jsonl.gz",
            "interference",
            "point",
            lambda r: r.pop("send_time_ns"),
            r"'send_time_ns' is a required property",
        ),
        (
            "h200-interference-sweep.jsonl.gz",
            "interference",
            "point",
            lambda r: r["send_time_ns"].pop("median"),
            r"send_time_ns: 'median' is a required property",
        ),
        (
            "h200-interference-sweep.jsonl.gz",
            "interference",
            "point",
            lambda r: r.update(size_bytes="1KiB"),
            r"size_bytes: '1KiB' is not of type 'integer'",
        ),
        (
            "h200-notify.jsonl.gz",
            "interference",
            "header",
            lambda r: r["host_clock"].pop("source"),
            r"host_clock: 'source' is a required property",
        ),
        (
            "h200-notify.jsonl.gz",
            "notify",
            "header",
            lambda r: r["config"].update(exchanges="many"),
            r"config.exchanges: 'many' is not of type 'integer'",
        ),
        (
            "h200-notify.jsonl.gz",
            "notify",
            "roundtrip",
            lambda r: r["samples"].update(unit="seconds"),
            r"samples.unit: 'seconds' is not one of",
        ),
        (
            "h200-notify.jsonl.gz",
            "notify",
            "roundtrip",
            lambda r: r["roundtrip_ns"].update(median="2.5 us"),
            r"roundtrip_ns.median: '2.5 us' is not of type 'number', 'null'",
        ),
        (
            "h200-clock.jsonl",
            "clock",
            "clock_fit",
            lambda r: r.update(drift_ppm=None),
            r"drift_ppm: None is not of type 'number'",
        ),
        (
            "h200-bandwidth.jsonl",
            "bandwidth",
            "point",
            lambda r: r.update(gbs=["fast"]),
            r"gbs.0: 'fast' is not of type 'number'",
        ),
        (
            "h200-notify.jsonl.gz",
            "notify",
            "roundtrip",
            lambda r: r.update(record="latency"),
            r"^\(record\): .* is not valid under any of the given schemas",
        ),  # a record type it lacks
    ],
)
def test_damaged_record_fails(name, probe, record, damage, expect):
    rec = copy.deepcopy(  # as readers see it: older schema versions in the current form
        next(
            r
            for _, _, r in read_jsonl(RUNS / name)[0]
            if r["record"] == record and (record == "header" or r["probe"] == probe)
        )
    )
    assert _errors(rec) == []
    damage(rec)
    errors = _errors(rec)
    assert any(re.search(expect, e) for e in errors), errors


def _walk(node, path=""):
    """(path, subschema) of every subschema of the schema."""
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from _walk(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}/{i}")


def _numeric(node: dict) -> bool:
    types = node.get("type", [])
    types = types if isinstance(types, list) else [types]
    items = node.get("items", {})
    item_types = items.get("type", []) if isinstance(items, dict) else []
    item_types = item_types if isinstance(item_types, list) else [item_types]
    return bool({"number", "integer"} & set(types + item_types))


def test_every_numeric_field_has_a_unit_and_a_description():
    missing = []
    for path, node in _walk(schema.schema()):
        field = path.rsplit("/", 2)[-2:-1] == ["properties"] or path.endswith("/additionalProperties")
        if not field or "/if/" in path or path.startswith("/anyOf/"):
            continue  # only the schemas of fields, not the dispatch on "record" and "probe"
        if "unit" in node and node["unit"] not in UNITS:
            missing.append(f"{path}: unit {node['unit']!r} not in {sorted(UNITS)}")
        if _numeric(node) and "unit" not in node:
            missing.append(f"{path}: numeric without a unit")
        if "description" not in node and "$ref" not in node:
            missing.append(f"{path}: no description")
    assert not missing, "\n".join(missing)


def _field_names(node) -> set[str]:
    names = set()
    for _, sub in _walk(node):
        names |= set(sub.get("properties", {}))
    return names


def test_docs_name_every_field_of_the_schema():
    # The package's schema; a probe that declares its records in its folder documents them there, each
    # field by its description (test_every_numeric_field_has_a_unit_and_a_description).
    docs = (REPO / "docs" / "results-schema.md").read_text()
    package = json.loads(schema.SCHEMA_PATH.read_text())
    absent = sorted(n for n in _field_names(package) if not re.search(rf"\b{re.escape(n)}\b", docs))
    assert not absent, f"fields of results.schema.json that docs/results-schema.md does not name: {absent}"
    assert "pybindings/hetprobe/results.schema.json" in docs


def test_frames_take_their_columns_from_the_schema():
    assert frames.STATS == list(schema.schema()["$defs"]["summary"]["properties"])
    assert frames.KEYS[:3] == ["size_bytes", "layout", "access"]  # the schema's first record type: interference
    for role in ("key", "extra"):
        assert set(schema.frame_columns(role)) <= set(frames.SUMMARY_COLUMNS)
    # Every column a record's rows fill is one the schema gave (frame() would drop any other silently).
    filled = set()
    real = record_rows.convert

    def spy(rec, header, record_id):
        out = real(rec, header, record_id)
        if out is not None:
            base, rows, _ = out
            filled.update(base)
            for _metric, _unit, stats, extras in rows:
                filled.update(stats, extras)
        return out

    record_rows.convert = spy
    try:
        results = load(DATA, recursive=True)
    finally:
        record_rows.convert = real
    assert filled <= set(frames.SUMMARY_COLUMNS), sorted(filled - set(frames.SUMMARY_COLUMNS))
    header = record_rows.header_row({**results.records[0], "_file": "f", "_segment": 0})
    assert set(header) == set(frames.HEADER_COLUMNS)


def test_units_of_the_frames_agree_with_the_schema():
    """The unit column the frames give a metric is the schema's unit of that field (ns, GB/s)."""
    defs = schema.schema()["$defs"]
    summary = load(RUNS / "h200-interference-sweep.jsonl.gz").summary
    units = dict(zip(summary["metric"], summary["unit"]))
    for metric in ("send_time_ns", "harness_empty_region_ns"):
        assert units[metric] == defs["interference_point"]["properties"][metric]["unit"]
    bw = load(RUNS / "h200-bandwidth.jsonl").summary
    assert set(bw["unit"]) == {defs["bandwidth_point"]["properties"]["gbs"]["unit"]}


def test_schema_file_ships_in_the_package():
    assert schema.SCHEMA_PATH.parent.name == "hetprobe" and schema.SCHEMA_PATH.is_file()
    assert json.loads(schema.SCHEMA_PATH.read_text())["$id"] == f"urn:hetprobe:results:{_core.schema_version}"


def test_fresh_files_are_of_the_version_the_readers_upgrade_to(host_run):
    directory, _ = host_run
    for path in sorted(directory.glob("*.jsonl")):
        assert jsonl_records(path)[0]["schema_version"] == _core.schema_version, path.name
    # The reference page names the version it describes (it said 3 for a release after 4 came).
    page = (REPO / "docs" / "results-schema.md").read_text().splitlines()
    assert page[0] == f"# Results files: schema `hetprobe.results`, version {_core.schema_version}", page[0]


# A header's schema and version (issue 36): the same verdict and the same words from the C++ reader
# (`hetprobe show`) and the Python one; a version above the current one, malformed or missing, and
# another schema's name are refused (exit 2), older versions are read and upgraded.
_HEADER = {"record": "header", "schema": "hetprobe.results", "probe": "bandwidth", "host": "n1"}
_SCHEMA_CASES = [
    ("current", {"schema_version": _core.schema_version}, ""),
    ("oldest", {"schema_version": 1}, ""),
    ("newer", {"schema_version": 99}, "schema_version 99: written by a newer hetprobe; this hetprobe reads versions 1"),
    ("zero", {"schema_version": 0}, "schema_version 0: this hetprobe reads versions 1 to"),
    ("negative", {"schema_version": -1}, "schema_version -1: this hetprobe reads versions"),
    ("fraction", {"schema_version": 3.5}, "schema_version 3.5: not a whole number"),
    ("text", {"schema_version": "3"}, 'schema_version "3": not a whole number'),
    ("huge", {"schema_version": 10**30}, "schema_version 1e+30: not a whole number"),
    ("boolean", {"schema_version": True}, "schema_version true: not a whole number"),
    ("missing", {}, 'a header without "schema_version"'),
    ("other schema", {"schema": "other.results", "schema_version": 3}, 'schema "other.results": not a hetprobe'),
    ("null schema", {"schema": None, "schema_version": 3}, "schema null: not a hetprobe results file"),
    ("no schema", {"schema": "<absent>", "schema_version": 3}, 'a header without "schema": not a hetprobe results'),
]


@pytest.mark.parametrize("name, change, problem", _SCHEMA_CASES, ids=[c[0] for c in _SCHEMA_CASES])
def test_both_readers_check_a_headers_schema_alike(tmp_path, name, change, problem):
    import subprocess
    import sys

    from hetprobe.errors import ResultsFileError

    header = {k: v for k, v in {**_HEADER, **change}.items() if v != "<absent>"}
    if name == "huge":
        line = json.dumps(header).replace(str(10**30), "1e30")  # as another program would write it
    else:
        line = json.dumps(header)
    path = tmp_path / "x.jsonl"
    path.write_text(line + "\n")
    shown = subprocess.run([sys.executable, "-m", "hetprobe", "show", str(path)], capture_output=True, text=True)
    if not problem:
        read_jsonl(path)
        assert shown.returncode in (0, 2) and "schema" not in shown.stderr  # a header alone has no table
        return
    with pytest.raises(ResultsFileError) as python_error:
        read_jsonl(path)
    assert str(python_error.value).startswith(f"{path}:1: {problem}")
    assert shown.returncode == 2, shown.stderr
    assert f"{path}:1: {problem}" in shown.stderr, shown.stderr
