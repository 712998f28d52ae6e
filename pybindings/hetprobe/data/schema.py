"""The JSON Schema of results files (results.schema.json, shipped in this package): the header and
every record type with its fields' units. hetprobe.load takes its frames' column lists from it
(the fields marked "frame"), and validator() checks records against it (needs `jsonschema`)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

SCHEMA_PATH = Path(__file__).parents[1] / "results.schema.json"  # the package's contract, at its root


@functools.cache
def schema() -> dict:
    """The schema as a dict (read once)."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


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


def marked_fields(node: dict, role: str, path: tuple[str, ...] = ()):
    """(field path, frame column) of each field under `node` marked "frame": role, depth first, in order;
    "[]" in a path stands for an array's items."""
    node = resolve(node)
    if node.get("frame") == role:
        yield path, node["frame_column"]
    for name, child in node.get("properties", {}).items():
        if isinstance(child, dict):
            yield from marked_fields({**child, "frame_column": child.get("frame_column", name)}, role, (*path, name))
    items = node.get("items")
    if isinstance(items, dict):
        yield from marked_fields(items, role, (*path, "[]"))


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
