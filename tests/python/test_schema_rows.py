"""A record type with no converter of its own reaches `summary` and `samples` from its schema entry
(hetprobe/data/schema_rows.py): how a new probe's records are read without a line in pybindings/."""

from __future__ import annotations

import copy
import warnings

import pytest
from conftest import RUNS, jsonl_records, write_jsonl

from hetprobe.data import converters, jsonl, record_types, schema, schema_rows
from hetprobe.data.load import load

SKETCH = {
    "type": "object",
    "description": "A sketched probe's sample: an operation timed on the host",
    "properties": {
        "record": {"const": "sketch_sample"},
        "probe": {"const": "sketch"},
        "rank": {"type": "integer", "unit": "index"},
        "size_bytes": {"type": "integer", "unit": "bytes", "frame": "key", "description": "What was timed"},
        "reps": {"type": "integer", "unit": "count", "frame": "extra", "description": "Operations per sample"},
        "op_ns": {"$ref": "#/$defs/summary_with_samples", "unit": "ns", "description": "One operation"},
    },
}


@pytest.fixture
def sketch_schema(monkeypatch):
    """The schema with a sketched probe's entry, as adding a probe adds it: an anyOf line, an allOf rule, a $def."""
    grown = copy.deepcopy(schema.schema())
    grown["$defs"]["sketch_sample"] = SKETCH
    grown["anyOf"].append({"properties": {"probe": {"const": "sketch"}, "record": {"const": "sketch_sample"}}})
    grown["allOf"].append(
        {
            "if": {"properties": {"probe": {"const": "sketch"}, "record": {"const": "sketch_sample"}}},
            "then": {"$ref": "#/$defs/sketch_sample"},
        }
    )
    monkeypatch.setattr(schema, "schema", lambda: grown)
    cached = (schema_rows.schema_converter, schema.validator)  # of either schema
    for function in cached:
        function.cache_clear()
    yield
    for function in cached:
        function.cache_clear()


def test_a_new_probes_records_reach_summary_and_samples_from_its_schema_entry(tmp_path, sketch_schema):
    header = {**jsonl_records(RUNS / "h200-bandwidth.jsonl")[0], "probe": "sketch", "config": {}}
    samples = [12.0, 10.0, 11.0, 40.0]
    sample = {"record": "sketch_sample", "probe": "sketch", "rank": 0, "size_bytes": 64, "reps": 100}
    stats = {"n": 4, "min": 10.0, "p10": 10.3, "median": 11.5, "p90": 31.6, "p99": 39.16, "max": 40.0}
    stats |= {"mean": 18.25, "stddev": 14.55}
    path = write_jsonl(tmp_path / "sketch.jsonl", [header, {**sample, "op_ns": {**stats, "samples": samples}}])
    assert schema.validator().is_valid(jsonl_records(path)[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a record the schema defines is no unknown record
        r = load(path)
    row = r.summary.iloc[0]
    assert (row["probe"], row["record"], row["metric"], row["unit"]) == ("sketch", "sketch_sample", "op_ns", "ns")
    assert (row["size_bytes"], row["reps"], row["median"], row["n"]) == (64, 100, 11.5, 4)
    assert r.samples["value"].tolist() == samples and set(r.samples["metric"]) == {"op_ns"}


def test_without_its_schema_entry_the_record_is_unknown(tmp_path):
    assert schema_rows.schema_converter(("sketch", "sketch_sample")) is None
    assert record_types.unknown_type({"probe": "sketch", "record": "sketch_sample"})


@pytest.mark.parametrize("key", [("clock", "clock_batch")])  # clock_fit: read by its marks alone now
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
