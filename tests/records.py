"""A results file's records for the shell tests, read by key rather than by the text's key order.

    records.py count FILE [KEY=VALUE ...]   how many records have each KEY equal to VALUE (a JSON value,
                                           else a string: record=point rank=1)
    records.py header FILE PATH            the first record's field at a dotted PATH, as JSON ("name[]"
                                           maps the rest of the path over a list: ranks[].device.ordinal)

Exit 2 for bad usage."""

from __future__ import annotations

import json
import sys


def _value(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return text


def _records(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def count(path: str, conditions: list[str]) -> int:
    wanted = [(k, _value(v)) for k, _, v in (c.partition("=") for c in conditions)]
    return sum(all(k in r and r[k] == v for k, v in wanted) for r in _records(path))


def field(value, keys: list[str]):
    if not keys:
        return value
    key, rest = keys[0], keys[1:]
    if key.endswith("[]"):
        return [field(item, rest) for item in value[key[:-2]]]
    return field(value[key], rest)


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "count" and all("=" in c for c in argv[2:]):
        print(count(argv[1], argv[2:]))
        return 0
    if len(argv) == 3 and argv[0] == "header":
        print(json.dumps(field(_records(argv[1])[0], argv[2].split("."))))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
