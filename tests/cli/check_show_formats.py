"""One table of `hetprobe show` in json, csv and markdown (tests/cli/show_formats.sh): as many rows as the
file has records of its kind (rank 0's), the same columns, scalar cells, no ragged CSV.

    check_show_formats.py FILE TABLE RECORD WORK_DIR   (WORK_DIR: t.json, csv/TABLE.csv, t.markdown)
"""

import csv
import gzip
import json
import sys

path, table, record, work = sys.argv[1:]
text = gzip.open(path, "rt") if path.endswith(".gz") else open(path)  # a large file is kept compressed
expected = sum(
    1
    for line in text
    if line.strip()
    and (r := json.loads(line))["record"] == record
    and r.get("rank", 0) == 0
    and r.get("iteration_ns", 0) is not None
)
doc = json.load(open(f"{work}/t.json"))
assert len(doc[table]) == expected, (table, len(doc[table]), expected)
assert all(isinstance(v, (int, float, str, bool, type(None))) for row in doc[table] for v in row.values())
block = list(csv.reader(open(f"{work}/csv/{table}.csv", newline="")))
assert len(block) - 1 == expected and block[0] == list(doc[table][0].keys()), (len(block), block[:1])
assert all(len(r) == len(block[0]) for r in block), "ragged CSV"
md = open(f"{work}/t.markdown").read()
assert "| --- |" in md or "| ---: |" in md, "no Markdown table"
assert md.count("\n|") >= expected + 2, "Markdown rows missing"
print(f"OK {path}: {table} has {expected} rows in json, csv and markdown")
