"""Names C++ owns and Python reads: the enum tables (base/enum_table.hpp) against the results
schema's enums, and the CLI's options against the keywords Python accepts. Each test fails when one
side changes without the other."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from hetprobe import _core
from hetprobe.run.probes import binary, cli_options

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "pybindings/hetprobe/results.schema.json").read_text())

# (a field's schema path under $defs, the enum table whose names it holds)
ENUM_FIELDS = [
    ("interference_point/layout", "layout"),
    ("interference_point/access", "access mode"),
    ("interference_point/send_mode", "send mode"),
    ("interference_config/send_mode", "send mode"),
    ("interference_point/writer_side", "writer side"),
    ("interference_config/writer_side", "writer side"),
    ("interference_point/effect", "effect"),
    ("notify_setup/cpu_order", "memory order"),
    ("notify_setup/gpu_order", "memory order"),
    ("notify_setup/placement", "flag placement"),
    ("notify_setup/spacing", "flag spacing"),
    ("notify_setup/host_memory", "host memory"),
    ("halo/variant", "halo variant"),
    ("halo/signal", "halo signal"),
    ("halo/staging", "halo staging"),
    ("halo/send_mode", "send mode"),
    ("halo_config/send_mode", "send mode"),
    ("halo/receive_wait", "receive wait"),
    ("halo_config/receive_wait", "receive wait"),
    ("halo_config/timeline", "timeline"),
    ("bandwidth_point/pass", "bandwidth pass"),
    ("bandwidth_point/access", "access mode"),
]


def schema_enum(path: str) -> set:
    record, field = path.split("/")
    node = SCHEMA["$defs"][record]["properties"][field]
    node = node.get("items", node)  # a config's list of them
    return {v for v in node["enum"] if v is not None}


@pytest.mark.parametrize("path,table", ENUM_FIELDS)
def test_the_schema_enums_are_the_enum_tables(path, table):
    names = _core.enum_names()[table]
    # What a user may name can be in a record; what the tool alone chooses may be too; nothing else.
    assert set(names["user"]) <= schema_enum(path) <= set(names["names"]), (path, table, names)


def test_every_enum_table_is_exported():
    tables = _core.enum_names()
    assert {"load kind", "layout", "access mode", "memory order", "effect", "halo variant"} <= set(tables)
    assert "none" in tables["load kind"]["names"] and tables["layout"]["user"] == ["SSB", "PSB", "PCB", "P2AB", "OWN"]
    # The verdicts the report's headline writes in words (report/interference_headline.py compares them).
    assert tables["headline verdict"] == {"names": ["claimed", "within_noise", "no_interval"], "user": []}


@pytest.mark.parametrize("probe", ["interference", "notify", "clock", "halo", "bandwidth"])
def test_the_keywords_are_the_options_the_cli_prints(probe):
    # Against what `hetprobe PROBE --help` prints, not the module's own list: a keyword the CLI does
    # not take, or an option without a keyword, fails here.
    shown = subprocess.run([binary(), probe, "--help"], capture_output=True, text=True, check=True).stdout
    printed = set(re.findall(r"^ {2}(?:-\w,)?--([a-z0-9-]+)", shown, flags=re.M))
    assert {"help", "out", "check-options"} <= printed and len(printed) > 5
    assert set(cli_options(probe)) == {o.replace("-", "_") for o in printed} - {"help", "check_options"}


def test_every_probe_of_the_table_is_a_subcommand():
    assert set(_core.probes()) >= {"interference", "notify", "clock", "halo", "bandwidth", "gpus"}
    assert set(_core.in_process_probes) <= set(_core.probes())
    for probe in _core.probes():  # a probe added by its table line alone is a subcommand
        done = subprocess.run([binary(), probe, "--help"], capture_output=True, text=True)
        assert done.returncode == 0 and f"Usage: hetprobe {probe} [OPTIONS]" in done.stdout, done.stdout
