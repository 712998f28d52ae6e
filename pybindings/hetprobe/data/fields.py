"""Checked access to the fields of a JSON record: a missing field or one of the wrong type raises
Malformed naming the field's path and what was expected, so a reader can say FILE:LINE: field 'x':
expected a number, got string, instead of a KeyError or TypeError from deep inside pandas."""

from __future__ import annotations

import numpy as np

_MISSING = object()


class Malformed(ValueError):
    """A record field that is missing or of the wrong type."""

    def __init__(self, path: str, problem: str):
        super().__init__(f"field '{path}': {problem}")
        self.path, self.problem = path, problem


def json_type(value) -> str:
    """The JSON name of a Python value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(value), type(value).__name__)


def _is(value, expect: str) -> bool:
    if expect == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expect == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, {"string": str, "boolean": bool, "object": dict, "array": list}[expect])


def is_json_type(value, name: str) -> bool:
    """Whether `value` is of JSON type `name` ("null", "number", "integer", "string", "boolean", "object", "array")."""
    return value is None if name == "null" else value is not None and _is(value, name)


def _walk(obj, path: str):
    """The value at dotted `path` in obj, or _MISSING where a step is absent or null."""
    value = obj
    done = []
    for key in path.split("."):
        if value is None or value is _MISSING:
            return _MISSING
        if not isinstance(value, dict):
            raise Malformed(".".join(done), f"expected an object, got {json_type(value)}")
        value = value.get(key, _MISSING)
        done.append(key)
    return value


def need(obj, path: str, expect: str):
    """The value at `path`, which must be present, not null, and of type `expect`
    ("number", "integer", "string", "boolean", "object", "array")."""
    value = _walk(obj, path)
    if value is _MISSING or value is None:
        raise Malformed(path, "missing" if value is _MISSING else f"expected {article(expect)}, got null")
    if not _is(value, expect):
        raise Malformed(path, f"expected {article(expect)}, got {json_type(value)}")
    return value


def opt(obj, path: str, expect: str, default=None):
    """The value at `path` if present and not null (checked as need() does), else `default`."""
    value = _walk(obj, path)
    if value is _MISSING or value is None:
        return default
    if not _is(value, expect):
        raise Malformed(path, f"expected {article(expect)}, got {json_type(value)}")
    return value


def number(obj, path: str) -> float:
    """An optional number as a float: NaN when absent or null."""
    value = opt(obj, path, "number")
    return np.nan if value is None else float(value)


def numbers(obj, path: str, required: bool = False, nulls: bool = False, dtype=np.float64) -> np.ndarray:
    """An array of numbers (nulls as NaN where `nulls`); empty when absent unless `required`."""
    values = need(obj, path, "array") if required else opt(obj, path, "array", [])
    integer = np.issubdtype(dtype, np.integer)
    allowed = {int} if integer else {int, float}
    if not {type(v) for v in values} <= (allowed | {type(None)} if nulls else allowed):  # one pass; then find it
        for i, v in enumerate(values):
            if not (_is(v, "integer" if integer else "number") or (nulls and v is None)):
                raise Malformed(
                    f"{path}[{i}]", f"expected {'an integer' if integer else 'a number'}, got {json_type(v)}"
                )
    if nulls:
        return np.asarray([np.nan if v is None else v for v in values], dtype=dtype)
    return np.asarray(values, dtype=dtype)


def strings(obj, path: str) -> list | None:
    """An optional array of strings (None when absent)."""
    values = opt(obj, path, "array")
    if values is None:
        return None
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise Malformed(f"{path}[{i}]", f"expected a string, got {json_type(v)}")
    return values


def article(expect: str) -> str:
    """ "an integer", "a number", ..., "null": a JSON type's name as a message says it."""
    if expect == "null":
        return expect
    return ("an " if expect[0] in "aeiou" else "a ") + expect
