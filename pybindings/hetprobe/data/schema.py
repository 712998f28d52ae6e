"""The JSON Schema of results files: the header and every record type with its fields' units.
hetprobe.load takes its frames' column lists from it (the fields marked "frame"), and validator()
checks records against it (needs `jsonschema`).

It is results.schema.json (shipped in this package) with the record types that probes declare in
their own folders (bench/<probe>/records.schema.json, installed as hetprobe/records/<probe>.schema.json)
merged in: such a probe's records reach the frames with no line of Python (docs/architecture.md,
"Adding a probe"). Standard library only: tests/schema/validate_records.py loads this file by path."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path

SCHEMA_PATH = Path(__file__).parents[1] / "results.schema.json"  # the package's contract, at its root
_INSTALLED_DECLARATIONS = SCHEMA_PATH.parent / "records"
_SOURCE_DECLARATIONS = SCHEMA_PATH.parents[2] / "bench"  # a source tree: pybindings/hetprobe/ -> bench/
_MAX_SCHEMA_BYTES = 4 << 20  # a schema file is the package's own; far larger is not one


def _read(path: Path) -> dict:
    if not path.is_file() or path.stat().st_size > _MAX_SCHEMA_BYTES:
        raise ValueError(f"{path}: not a schema file (a regular file of at most {_MAX_SCHEMA_BYTES} bytes)")
    return json.loads(path.read_text(encoding="utf-8"))


def declaration_files() -> list[Path]:
    """The record declarations of the probes that declare theirs in their folders: the installed
    package's, else a source tree's."""
    if _INSTALLED_DECLARATIONS.is_dir():
        return sorted(_INSTALLED_DECLARATIONS.glob("*.schema.json"))
    return sorted(_SOURCE_DECLARATIONS.glob("*/records.schema.json"))


def merged(base: dict, declarations: list[dict]) -> dict:
    """`base` with each probe's declaration merged in: {probe, description, config, records: {record:
    definition}, $defs, smoke}. Each record type gets the fields the session frame writes on every
    record ($defs/record_frame), its if/then rule and its place in the header's probe names."""
    out = copy.deepcopy(base)
    defs, header = out["$defs"], out["$defs"]["header"]
    for d in declarations:
        probe = d["probe"]
        names = header["properties"]["probe"]["enum"]
        if probe in names:
            raise ValueError(f"probe {probe!r} is declared twice")
        names.append(probe)
        defs[f"{probe}_config"] = d["config"]
        header["allOf"].append(
            {
                "if": {"properties": {"probe": {"const": probe}}},
                "then": {"properties": {"config": {"$ref": f"#/$defs/{probe}_config"}}},
            }
        )
        for record, definition in d["records"].items():
            name = f"{probe}_{record}"
            own = {
                "record": {"const": record, "description": "Record type"},
                "probe": {"const": probe, "description": "The probe that wrote the record"},
            }
            properties = {**own, **defs["record_frame"]["properties"], **definition["properties"]}
            defs[name] = {**definition, "properties": properties}
            rule = {"properties": {"probe": {"const": probe}, "record": {"const": record}}}
            out["allOf"].append({"if": rule, "then": {"$ref": f"#/$defs/{name}"}})
            out["anyOf"].append(rule)
        defs.update(d.get("$defs", {}))
    return out


def declarations() -> list[dict]:
    """The probes' own declarations (declaration_files), read."""
    return [_read(path) for path in declaration_files()]


@functools.cache
def schema() -> dict:
    """The schema as a dict (read once): the package's with the probes' own declarations merged in."""
    return merged(_read(SCHEMA_PATH), declarations())


def record_types() -> dict[tuple[str, str], str]:
    """(probe, record) -> the name of its definition in $defs, in the schema's order (header excluded)."""
    types = {}
    for rule in schema()["allOf"]:
        const = {k: v["const"] for k, v in rule["if"]["properties"].items()}
        if "probe" in const:
            types[(const["probe"], const["record"])] = rule["then"]["$ref"].rsplit("/", 1)[1]
    return types


def resolve(node: dict) -> dict:
    """A definition with its $ref (and the $refs of allOf, one level) merged in."""
    defs = schema()["$defs"]
    if "$ref" in node:
        node = {**resolve(defs[node["$ref"].rsplit("/", 1)[1]]), **{k: v for k, v in node.items() if k != "$ref"}}
    for part in node.get("allOf", []):
        if "$ref" in part:
            base = resolve(part)
            node = {**node, "properties": {**base.get("properties", {}), **node.get("properties", {})}}
    for part in node.get("anyOf", []):  # nullable: {"anyOf": [{"$ref": ...}, {"type": "null"}]}
        if "$ref" in part:
            node = {**resolve(part), **{k: v for k, v in node.items() if k != "anyOf"}}
    return node


def fields_where(node: dict, wanted, path: tuple[str, ...] = ()):
    """(field path, field node) of each field under `node` for which wanted(field node) holds, depth
    first, in order, the field's own frame_column set (its name unless it says another); "[]" in a
    path stands for an array's items."""
    node = resolve(node)
    if path and wanted(node):
        yield path, node
    for name, child in node.get("properties", {}).items():
        if isinstance(child, dict):
            yield from fields_where({**child, "frame_column": child.get("frame_column", name)}, wanted, (*path, name))
    items = node.get("items")
    if isinstance(items, dict):
        yield from fields_where(items, wanted, (*path, "[]"))


def marked_fields(node: dict, role: str):
    """(field path, frame column) of each field under `node` marked "frame": role (fields_where)."""
    for path, field in fields_where(node, lambda field: field.get("frame") == role):
        yield path, field["frame_column"]


@functools.cache
def frame_columns(role: str) -> tuple[str, ...]:
    """Columns of the fields marked "frame": role ("key", "extra" or "header"), each once, in the
    order of the record types and their fields in the schema."""
    out: list[str] = []
    roots = ["header"] if role == "header" else list(record_types().values())
    for name in roots:
        for _, column in marked_fields({"$ref": f"#/$defs/{name}"}, role):
            if column not in out:
                out.append(column)
    return tuple(out)


def summary_fields() -> list[str]:
    """The fields of a Summary object, in order: n, min, p10, median, p90, p99, max, mean, stddev."""
    return list(schema()["$defs"]["summary"]["properties"])


@functools.cache
def validator():
    """A jsonschema validator of one record (a header or any record type); raises ImportError without jsonschema."""
    import jsonschema

    cls = jsonschema.validators.validator_for(schema())
    cls.check_schema(schema())
    return cls(schema())
