"""A probe is its folder (docs/architecture.md, "Adding a probe"): the toy probe's records reach
hetprobe.load's frames from its declaration (records.schema.json) alone, with the numbers `show`
prints. Collected by pytest from the probe's folder (pyproject.toml's testpaths)."""

import json
import subprocess
import warnings

import hetprobe
from hetprobe.data import schema
from hetprobe.run.probes import binary


def test_the_toy_probe_is_read_from_its_declaration(tmp_path):
    out = tmp_path / "toy.jsonl"
    subprocess.run([binary(), "toy", "--device", "host", "--samples", "50", "--reads", "20", "--quiet", "--out", out],
                   check=True, capture_output=True)
    shown = subprocess.run([binary(), "show", out], check=True, capture_output=True, text=True).stdout
    record = next(json.loads(line) for line in out.read_text().splitlines() if '"timer_read"' in line)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an UnknownRecordWarning: a record type no reader knows
        r = hetprobe.load(out)
    rows = r.summary.query("probe == 'toy'")
    assert list(rows["metric"]) == ["ns_per_read"] and list(rows["unit"]) == ["ns"]
    row = rows.iloc[0]
    assert (row["clock"], row["reads_per_sample"], row["n"]) == (record["clock"], 20, 50)
    assert row["median"] == record["ns_per_read"]["median"] and f"{row['median']:.2f}" in shown
    samples = r.samples.query("probe == 'toy' and metric == 'ns_per_read'")
    assert list(samples["value"]) == record["ns_per_read"]["samples"]
    assert r.header("toy")["config"] == {"samples": 50, "reads_per_sample": 20}
    schema.validator().validate(record)  # its declaration merged into the package's schema


def test_its_declaration_is_installed_with_the_package():
    names = {p.name for p in schema.declaration_files()}
    assert "toy.schema.json" in names or "records.schema.json" in names
    assert ("toy", "timer_read") in schema.record_types()
