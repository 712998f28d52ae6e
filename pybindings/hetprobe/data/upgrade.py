"""Records of an older schema_version in the current form: the one place in Python that knows what
changed between versions (docs/results-schema.md, "Versions"), so that every reader of a results
file (hetprobe.load, the halo rates) reads one form. C++'s counterpart, which makes the same steps:
bench/core/record_upgrade.cpp.

Headers keep their schema_version (it says what a file was written as); their config is upgraded as
the records are. Each step changes only what
is still in the old form, so a record upgraded twice is the same as one upgraded once."""

from __future__ import annotations

CURRENT = 4  # bench/core/run_header.hpp kSchemaVersion
SCHEMA = "hetprobe.results"  # every header's "schema" (kSchemaName)


def schema_problem(header: dict) -> str:
    """What is wrong with a header's schema, or "": "schema" is SCHEMA and "schema_version" a whole number
    from 1 to CURRENT (a newer hetprobe's file, a hand-made one or another tool's is refused, not misread).
    C++'s counterpart, whose words these are: bench/core/record_upgrade.cpp schema_problem."""
    if "schema" not in header:
        return 'a header without "schema": not a hetprobe results file'
    if header["schema"] != SCHEMA:
        return f'schema {_json(header["schema"])}: not a hetprobe results file ("{SCHEMA}")'
    versions = f"this hetprobe reads versions 1 to {CURRENT}"
    if "schema_version" not in header:
        return f'a header without "schema_version" ({versions})'
    v = header["schema_version"]
    if isinstance(v, bool) or not isinstance(v, int):
        return f"schema_version {_json(v)}: not a whole number ({versions})"
    if v < 1 or v >= 2**63:  # C++ reads it as a signed 64-bit integer
        return f"schema_version {_json(v)}: {versions}"
    if v > CURRENT:
        return f"schema_version {_json(v)}: written by a newer hetprobe; {versions}"
    return ""


def _json(value) -> str:
    """A value as C++'s nlohmann::json dump() writes it (compact), for the same words in both languages."""
    import json

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _launch_parts_v1(launch) -> None:
    """Version 1 wrote a launch's part size as part_bytes, 0 for one block per message; version 2
    writes the part size's JSON form ("whole" or bytes)."""
    if not isinstance(launch, dict) or "part_bytes" not in launch:
        return
    part_bytes = launch.pop("part_bytes")
    launch.setdefault("parts", "whole" if part_bytes == 0 and not isinstance(part_bytes, bool) else part_bytes)


def _rename(obj: dict, old: str, new: str) -> None:
    if old in obj and new not in obj:
        obj[new] = obj.pop(old)


def _bandwidth_keys_v1(rec: dict) -> None:
    """Version 1 keyed a bandwidth row by its display name alone (`writer`); version 2 adds its keys,
    pass, kind and access, read back from the names version 1 wrote ("plain one-pass kernel", "plain
    read", "stream (persistent)", "load read stacked", "load copy-d2h"). A name of none of these forms
    is left without keys."""
    name = rec.get("writer")
    if not isinstance(name, str) or "pass" in rec:
        return
    access = None
    if name == "plain one-pass kernel":
        pass_, kind = "plain", "write"
    elif name.startswith("plain "):
        pass_, kind = "plain", name[len("plain ") :]
    elif name.endswith(" (persistent)") and len(name) > len(" (persistent)"):
        pass_, kind, access = "persistent", "write", name[: -len(" (persistent)")]
    elif name.startswith("load "):
        pass_, kind = "load", name[len("load ") :]
        if " " in kind:
            kind, access = kind.split(" ", 1)
    else:
        return
    rec["pass"] = pass_
    if rec.get("kind") is None:
        rec["kind"] = kind
    rec["access"] = access


def _bandwidth_summary_v1(rec: dict) -> None:
    """Version 1 kept a bandwidth row's samples (gbs) without their summary; version 2 writes it
    (gbs_summary), computed as the probe computes it: by the compiled module, the statistics' one owner."""
    gbs = rec.get("gbs")
    if "gbs_summary" in rec or not isinstance(gbs, list):
        return
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in gbs):
        return  # a reader says the record is malformed
    try:
        from .. import _core
    except ImportError:  # loaded on its own (tests/gpu/halo_rates.py, stdlib only), whose readers need no summary
        return
    rec["gbs_summary"] = _core.summarize([float(v) for v in gbs])


def _record_v1(rec: dict) -> None:
    if rec.get("probe") == "halo" and rec.get("record") == "halo":
        for key in ("launch", "unpack_launch"):
            _launch_parts_v1(rec.get(key))
        _rename(rec, "send", "send_mode")  # one SendMode, one field name, as interference's
    if rec.get("probe") == "bandwidth" and rec.get("record") == "point":
        _bandwidth_keys_v1(rec)
        _bandwidth_summary_v1(rec)


def _record_v2(rec: dict) -> None:
    """Version 2 did not say how MPI carried an interference point's message; version 3 writes
    mpi_path, null in a file from before it."""
    if rec.get("probe") == "interference" and rec.get("record") == "point":
        rec.setdefault("mpi_path", None)


def _header_v1(header: dict) -> None:
    if header.get("probe") == "halo" and isinstance(header.get("config"), dict):
        _rename(header["config"], "send", "send_mode")


def _header_v3(header: dict) -> None:
    """Version 3 wrote interference's load buffers as load_bytes, bytes or the text "message size", and
    the same value again as secondary_bytes (version 1's paper runs wrote secondary_bytes alone);
    version 4 writes load_bytes (bytes, or None) and load_bytes_per_message (True: each message's size)."""
    config = header.get("config")
    if header.get("probe") != "interference" or not isinstance(config, dict):
        return
    if "load_bytes" not in config and "secondary_bytes" in config:
        config["load_bytes"] = config["secondary_bytes"]
    config.pop("secondary_bytes", None)
    if "load_bytes" not in config or "load_bytes_per_message" in config:
        return
    per_message = config["load_bytes"] == "message size"
    if per_message:
        config["load_bytes"] = None
    config["load_bytes_per_message"] = per_message


def upgrade_records(records) -> None:
    """Upgrades one file's records (in order: a header gives the version of the records after it) in place."""
    version = CURRENT
    for rec in records:
        if rec.get("record") == "header":
            v = rec.get("schema_version")
            version = v if isinstance(v, int) and not isinstance(v, bool) else 1
            if version < 2:
                _header_v1(rec)
            if version < 4:
                _header_v3(rec)
            continue
        if version < 2:
            _record_v1(rec)
        if version < 3:
            _record_v2(rec)
