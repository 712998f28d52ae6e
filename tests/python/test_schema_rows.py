"""A record type with no converter of its own reaches `summary` and `samples` from its schema entry
(hetprobe/data/schema_rows.py): how a new probe's records are read without a line in pybindings/."""

from __future__ import annotations

import copy
import warnings

import pytest
from conftest import RUNS, jsonl_records, write_jsonl

from hetprobe.data import converters, jsonl, record_types, schema, schema_rows
from hetprobe.data.load import load

TOY = {
    "type": "object",
    "description": "A toy probe's sample: an operation timed on the host",
    "properties": {
        "record": {"const": "toy_sample"},
        "probe": {"const": "toy"},
        "rank": {"type": "integer", "unit": "index"},
        "size_bytes": {"type": "integer", "unit": "bytes", "frame": "key", "description": "What was timed"},
        "reps": {"type": "integer", "unit": "count", "frame": "extra", "description": "Operations per sample"},
        "op_ns": {"$ref": "#/$defs/summary_with_samples", "unit": "ns", "description": "One operation"},
    },
}


@pytest.fixture
def toy_schema(monkeypatch):
    """The schema with the toy probe's entry, as its branch adds it: an anyOf line, an allOf rule, a $def."""
    grown = copy.deepcopy(schema.schema())
    grown["$defs"]["toy_sample"] = TOY
    grown["anyOf"].append({"properties": {"probe": {"const": "toy"}, "record": {"const": "toy_sample"}}})
    grown["allOf"].append(
        {
            "if": {"properties": {"probe": {"const": "toy"}, "record": {"const": "toy_sample"}}},
            "then": {"$ref": "#/$defs/toy_sample"},
        }
    )
    monkeypatch.setattr(schema, "schema", lambda: grown)
    for cached in (schema_rows._summary_fields, schema_rows.schema_converter):
        cached.cache_clear()
    yield
    for cached in (schema_rows._summary_fields, schema_rows.schema_converter):
        cached.cache_clear()


def test_a_toy_probes_records_reach_summary_and_samples_from_its_schema_entry(tmp_path, toy_schema):
    header = {**jsonl_records(RUNS / "h200-bandwidth.jsonl")[0], "probe": "toy", "config": {}}
    samples = [12.0, 10.0, 11.0, 40.0]
    sample = {"record": "toy_sample", "probe": "toy", "rank": 0, "size_bytes": 64, "reps": 100}
    stats = {"n": 4, "min": 10.0, "p10": 10.3, "median": 11.5, "p90": 31.6, "p99": 39.16, "max": 40.0}
    stats |= {"mean": 18.25, "stddev": 14.55}
    path = write_jsonl(tmp_path / "toy.jsonl", [header, {**sample, "op_ns": {**stats, "samples": samples}}])
    assert schema.validator().is_valid(jsonl_records(path)[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a record the schema defines is no unknown record
        r = load(path)
    row = r.summary.iloc[0]
    assert (row["probe"], row["record"], row["metric"], row["unit"]) == ("toy", "toy_sample", "op_ns", "ns")
    assert (row["size_bytes"], row["reps"], row["median"], row["n"]) == (64, 100, 11.5, 4)
    assert r.samples["value"].tolist() == samples and set(r.samples["metric"]) == {"op_ns"}


def test_without_its_schema_entry_the_toy_record_is_unknown(tmp_path):
    assert schema_rows.schema_converter(("toy", "toy_sample")) is None
    assert record_types.unknown_type({"probe": "toy", "record": "toy_sample"})


@pytest.mark.parametrize("key", [("clock", "clock_batch"), ("clock", "clock_fit")])
def test_the_schema_made_reader_agrees_with_a_written_one(key, host_run):
    """Where a record type has a converter of its own, the schema's marks make the same key columns and the
    same metrics, in the same units, with the same statistics: the marks say what the converters read. (On a
    fresh run: files of older versions lack fields that the written converters fill in.)"""
    made = schema_rows.schema_converter(key)
    compared = 0
    for path in jsonl.results_files(host_run[0]):
        header = None
        for rec in jsonl.records(path):
            if rec["record"] == "header":
                header = rec
            elif (rec["probe"], rec["record"]) == key:
                (keys, rows, _), (made_keys, made_rows, _) = converters.CONVERTERS[key](rec, header), made(rec, header)
                assert made_keys == keys
                assert [(m, u, s) for m, u, s, _ in made_rows] == [(m, u, s) for m, u, s, _ in rows]
                compared += 1
    assert compared >= 1
