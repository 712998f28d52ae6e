"""Validates every line of hetprobe results files against the JSON schema (jsonschema, draft 2020-12).

    validate_records.py SCHEMA FILE...

Fails (exit 1) naming FILE:LINE and the field when a line does not validate (a record type the
schema lacks included), when a record has a field the schema does not describe (the schema and
docs/results-schema.md must name every field the probes write), or when a record type the schema
defines appeared in none of the files (every one must be produced by the runs that call this).
"""

import importlib.util
import json
import sys
from pathlib import Path

# The package's JSON Lines reader (pybindings/hetprobe/data/jsonl.py, standard library only), by path.
_SOURCE = Path(__file__).resolve().parents[2] / "pybindings" / "hetprobe" / "data" / "jsonl.py"
_spec = importlib.util.spec_from_file_location("hetprobe_jsonl", _SOURCE)
jsonl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jsonl)
# The schema's reader (standard library only), by path: the package's schema with the record types
# the probes declare in their folders (bench/<probe>/records.schema.json) merged in.
_SCHEMA = Path(__file__).resolve().parents[2] / "pybindings" / "hetprobe" / "data" / "schema.py"
_spec = importlib.util.spec_from_file_location("hetprobe_schema", _SCHEMA)
schema_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(schema_module)

try:
    import jsonschema
except ImportError:
    sys.exit(f"{sys.executable}: no module jsonschema (Debian: python3-jsonschema; pip: jsonschema)")


def resolve(node, value, defs):
    """The subschemas that describe `value`: node itself, its $ref, allOf and anyOf parts, and the
    "then" of each if/then whose "if" holds."""
    if "$ref" in node:
        yield from resolve(defs[node["$ref"].rsplit("/", 1)[1]], value, defs)
    for part in node.get("allOf", []) + node.get("anyOf", []):
        yield from resolve(part, value, defs)
    if "then" in node and jsonschema.Draft202012Validator(node["if"]).is_valid(value):
        yield from resolve(node["then"], value, defs)
    yield node


def undescribed(value, node, defs, path):
    """Paths of object fields under `value` that `node` does not name (objects with additionalProperties
    as a schema describe any key, and an object schema without properties describes nothing further)."""
    parts = list(resolve(node, value, defs))
    if isinstance(value, dict):
        props, open_ended, described = {}, None, False
        for p in parts:
            for k, sub in p.get("properties", {}).items():
                props[k] = {"allOf": props[k]["allOf"] + [sub]} if k in props else {"allOf": [sub]}
            if isinstance(p.get("additionalProperties"), dict):
                open_ended = p["additionalProperties"]
            described |= "properties" in p or "additionalProperties" in p
        if not described:
            return
        for k, v in value.items():
            sub = props.get(k, open_ended)
            if sub is None:
                yield f"{path}{k}"
            else:
                yield from undescribed(v, sub, defs, f"{path}{k}.")
    elif isinstance(value, list):
        items = [p["items"] for p in parts if isinstance(p.get("items"), dict)]
        for i, v in enumerate(value):
            for it in items:
                yield from undescribed(v, it, defs, f"{path[:-1]}[{i}].")


# Record types no probe writes: made in memory from the ones they do, and validated there
# (the aggregates of C++'s aggregation stage: tests/python/test_schema.py, test_aggregates_validate).
MADE_IN_MEMORY = {("micro", "benchmark")}  # read from Google Benchmark JSON, never in a results file


def main(schema_path, files):
    with open(schema_path, encoding="utf-8") as f:
        schema = schema_module.merged(json.load(f), schema_module.declarations())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator, defs = cls(schema), schema["$defs"]
    branch = {}  # (probe, record) -> its definition
    for rule in schema["allOf"]:
        const = {k: v["const"] for k, v in rule["if"]["properties"].items()}
        branch[(const.get("probe"), const["record"])] = rule["then"]
    seen, failures = set(), []
    for path in files:
        parsed, cut = jsonl.read_jsonl(path)
        if cut:  # a finished run ends every line
            failures.append(f"{path}: its last line is cut")
        for number, _, rec in parsed:
            kind = (None if rec.get("record") == "header" else rec.get("probe"), rec.get("record"))
            where = f"{path}:{number}: {rec.get('probe')} {rec.get('record')}"
            errors = sorted(validator.iter_errors(rec), key=lambda e: list(e.absolute_path))
            for e in errors[:5]:
                e = jsonschema.exceptions.best_match([e])  # the deepest reason inside anyOf/allOf
                field = ".".join(map(str, e.absolute_path)) or "(record)"
                failures.append(f"{where}: field '{field}': {e.message[:300]}")
            if kind not in branch:
                failures.append(f"{where}: a record type the schema does not define")
                continue
            seen.add(kind)
            for field in undescribed(rec, branch[kind], defs, ""):
                failures.append(f"{where}: field '{field}' is not in the schema")
    for kind in branch:
        if kind not in seen and kind not in MADE_IN_MEMORY:
            failures.append(f"record type {kind[0] or 'any'} {kind[1]}: in the schema, but no run wrote one")
    for line in failures[:60]:
        print("FAIL:", line)
    if failures:
        print(f"{len(failures)} problem(s)")
        return 1
    print(
        f"OK: every line of {len(files)} file(s) validates; record types seen: "
        + ", ".join(f"{p or '*'}/{r}" for p, r in sorted(seen, key=str))
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
