"""The small checks the GPU campaigns' steps expect (tests/gpu/common.sh's `expect NAME 0 -- python3 checks.py ...`):
each prints what it found in one line and exits 0 when the expectation holds, 1 when it does not, 2 for bad input.

    checks.py gpus DEVICES.json [--at-least N]   `hetprobe devices --json`: --device auto picks a GPU backend
                                                 (not the host's threads) of N or more devices (default 1)
    checks.py steps-ok RUN_DIR                   characterize.json: at least one step, every step "ok"
    checks.py flagged RUN_DIR GPU                characterize.json: GPU is flagged against the baseline
    checks.py node-flags RUN_DIR [--gpu N]       characterize.json's node verdict: no GPU counted as off
                                                 (confirmed on re-measure, or a link below its maximum);
                                                 with --gpu, GPU N alone, confirmed on re-measure
    checks.py records FILE.jsonl RECORD [--at-least N]
                                                 FILE holds N or more records of kind RECORD (default 1)

Standard library only: it runs where the package is not installed. The other scripts here read
results through its read_jsonl, the package's reader.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

# The package's JSON Lines reader (pybindings/hetprobe/data/jsonl.py, standard library only), by path:
# the records hetprobe.load reads, older schema versions in the current form.
_SOURCE = Path(__file__).resolve().parents[2] / "pybindings" / "hetprobe" / "data" / "jsonl.py"
_spec = importlib.util.spec_from_file_location("hetprobe_jsonl", _SOURCE)
jsonl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jsonl)
read_jsonl = jsonl.records
# results_file(DIR, NAME): NAME.jsonl, or NAME.jsonl.gz (how notebooks/data/ keeps its large ones).
results_file = jsonl.results_file


# --- What the compare_*.py scripts of a campaign's RESULTS_DIR share -----------------------------------


class BadInput(Exception):
    """A campaign's results a compare script cannot judge: it exits 2, naming the file and why."""


def present(path: Path) -> Path:
    """`path`, a regular file; BadInput naming it otherwise."""
    if not path.is_file():
        raise BadInput(f"{path}: missing")
    return path


def picked_points(path: Path, pick) -> dict:
    """{key: value} of the point records of a hetprobe results file for which pick(record) gives (key, value),
    the first of each key; BadInput for a missing file, a malformed line or a record pick cannot read."""
    out: dict = {}
    try:
        for r in read_jsonl(present(path)):
            if r.get("record") == "point" and (got := pick(r)) is not None:
                out.setdefault(*got)
    except (ValueError, KeyError, TypeError) as e:
        raise BadInput(f"{path}: malformed ({type(e).__name__}: {e})") from None
    return out


def ci_text(v: tuple) -> str:
    """A ratio with its 95% interval, (median, low, high), as the compare tables print it; a record
    without an interval (low None) says so."""
    median, low, high = v
    return f"{median:.3f} ({low:.3f}-{high:.3f})" if low is not None else f"{median:.3f} (no interval)"


def results_and_launches(argv: list[str], usage: str) -> tuple[Path, int]:
    """RESULTS_DIR LAUNCHES (a whole number from 1); for anything else, `usage` on stderr and exit 2
    (as argparse does)."""
    if len(argv) != 2 or not (argv[1].isascii() and argv[1].isdigit()) or int(argv[1]) < 1:
        print(usage, file=sys.stderr)
        raise SystemExit(2)
    return Path(argv[0]), int(argv[1])


def _manifest(run_dir) -> dict:
    return json.loads((Path(run_dir) / "characterize.json").read_text())


def gpus(devices_json: str, at_least: int) -> tuple[bool, str]:
    report = json.loads(Path(devices_json).read_text())
    chosen = report["auto"]
    count = next((b["devices"] for b in report["backends"] if b["backend"] == chosen), 0)
    ok = chosen != "host" and count >= at_least
    return ok, f"--device auto picks {chosen} with {count} device(s) (expected a GPU backend of {at_least} or more)"


def steps_ok(run_dir: str) -> tuple[bool, str]:
    steps = _manifest(run_dir)["steps"]
    bad = [f"{s['probe']} {s['status']}" for s in steps if s["status"] != "ok"]
    if not steps:
        return False, f"{run_dir}: no step ran"
    return not bad, f"{run_dir}: {len(steps) - len(bad)} of {len(steps)} steps ok" + (
        f" ({', '.join(bad)})" if bad else ""
    )


def flagged(run_dir: str, gpu: int) -> tuple[bool, str]:
    anomalies = [a for a in _manifest(run_dir)["anomalies"] if a["gpu"] == gpu and a["reference_kind"] == "baseline"]
    metrics = ", ".join(a["metric"] for a in anomalies)
    return bool(anomalies), f"{run_dir}: GPU {gpu} flagged against the baseline: {metrics or 'nothing'}"


def node_flags(run_dir: str, gpu: int | None) -> tuple[bool, str]:
    verdict = _manifest(run_dir).get("verdict") or {}
    counted = [f for f in verdict.get("flags", []) if f["status"] in ("confirmed", "link")]
    others = [f for f in verdict.get("flags", []) if f not in counted]
    found = ", ".join(f"GPU {f['gpu']} {f['metric']} ({f['status']})" for f in counted) or "none"
    seen = f"{run_dir}: counted flags: {found}; not counted: {len(others)}"
    if gpu is None:
        return not counted, seen + " (expected none)"
    ok = bool(counted) and all(f["gpu"] == gpu and f["status"] == "confirmed" for f in counted)
    return ok, seen + f" (expected GPU {gpu} alone, confirmed on re-measure)"


def records(path: str, record: str, at_least: int) -> tuple[bool, str]:
    count = sum(1 for r in read_jsonl(path) if r.get("record") == record)
    return count >= at_least, f"{path}: {count} {record} record(s) (expected {at_least} or more)"


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="check", required=True)
    g = sub.add_parser("gpus")
    g.add_argument("devices_json")
    g.add_argument("--at-least", type=int, default=1)
    s = sub.add_parser("steps-ok")
    s.add_argument("run_dir")
    f = sub.add_parser("flagged")
    f.add_argument("run_dir")
    f.add_argument("gpu", type=int)
    n = sub.add_parser("node-flags")
    n.add_argument("run_dir")
    n.add_argument("--gpu", type=int)
    r = sub.add_parser("records")
    r.add_argument("jsonl")
    r.add_argument("record")
    r.add_argument("--at-least", type=int, default=1)
    a = p.parse_args(argv)
    try:
        if a.check == "gpus":
            ok, what = gpus(a.devices_json, a.at_least)
        elif a.check == "steps-ok":
            ok, what = steps_ok(a.run_dir)
        elif a.check == "flagged":
            ok, what = flagged(a.run_dir, a.gpu)
        elif a.check == "node-flags":
            ok, what = node_flags(a.run_dir, a.gpu)
        else:
            ok, what = records(a.jsonl, a.record, a.at_least)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"checks.py {a.check}: cannot read the input: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    print(what)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
