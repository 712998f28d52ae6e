"""Pack and unpack rates of the halo probe's long messages against `hetprobe bandwidth`'s plain kernels.

Standard library only: hetprobe.halo_rates (pandas) and tests/gpu/halo_rates.py (a script run where
the package may not be installed; it loads this file by path) share it.

Per rank-0 halo record (one per layout and setup). GB/s = 1e9 B/s, ratio = rate / reference.
- Per stage, the record's busy rates (pack_busy, unpack_busy; with memcpy staging also copy_busy
  and recv_copy_busy): the long messages' bytes over the time in which any of them moved (overlaps
  counted once, waits not at all). Messages that move at the same time share the link, so each
  one's own rate is a share of it. Each stage has its reference:
  - pinned staging's pack (unpack): rank 0's plain one-pass write (plain read) kernel of the
    bandwidth file, which moves pinned host memory the same way; judged;
  - memcpy staging's copies: the link's rate in their direction, measured by the halo run itself
    (link_gbs); shown;
  - memcpy staging's pack and unpack kernels: device memory (device_gbs, measured by the halo run);
    shown (microseconds of kernel against terabytes a second).
- Per message of `min_bytes` or more (by default the probe's own threshold, which each busy rate
  records as its min_bytes: C++ owns it): its median rate (pack_gbs_median, unpack_gbs_median) against
  the plain kernels, shown. Files from before the busy rates are judged on these instead (every
  message at the minimum).
Setups of pinned staging whose parts are "auto" (the engine's split of long messages) are judged
against a minimum ratio; the others (whole messages, a fixed part size, memcpy staging) are
reported only. A stage the record marks
above its bound (above_link, above_device: faster than the link or device memory, measured by
hetprobe halo itself) is a timing error in any setup, judged or not.
Given several launches of the same setups (a process launch is the unit of replication), a judged
setup's stage ratio is the median over the launches, and the verdict is on those medians.
"""

from __future__ import annotations

import importlib
import statistics

try:
    from .jsonl import records as read_records
except ImportError:  # loaded by path (tests/gpu/halo_rates.py): the reader beside it, standard library too
    import importlib.util
    from pathlib import Path

    _spec = importlib.util.spec_from_file_location("hetprobe_jsonl", Path(__file__).resolve().with_name("jsonl.py"))
    _jsonl = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_jsonl)
    read_records = _jsonl.records

MIN_RATIO = 0.7
# direction -> (the rate field of a message, the bandwidth row it is compared with, that row's kind)
DIRECTIONS = {
    "pack": ("pack_gbs_median", "plain one-pass kernel", "write"),
    "unpack": ("unpack_gbs_median", "plain read", "read"),
}


# stage -> the record's busy rate of that stage's long messages
BUSY = {"pack": "pack_busy", "unpack": "unpack_busy", "copy": "copy_busy", "recv_copy": "recv_copy_busy"}


class RatesError(ValueError):
    """The files do not hold what the comparison needs (said in the message)."""


def _rank0(records, probe: str, record: str) -> list[dict]:
    return [r for r in records if r.get("probe") == probe and r.get("record") == record and r.get("rank", 0) == 0]


def references(bandwidth_records) -> dict[str, float]:
    """direction -> rank 0's median GB/s of the plain kernel it is compared with (the first such
    row). RatesError when a row is missing."""
    points = _rank0(bandwidth_records, "bandwidth", "point")
    out = {}
    for direction, (_, writer, kind) in DIRECTIONS.items():
        rows = [p for p in points if p.get("pass") == "plain" and p.get("kind") == kind]
        if not rows or not isinstance(rows[0].get("median_gbs"), (int, float)):
            raise RatesError(
                f"no rank-0 '{writer}' row with a median_gbs in the bandwidth results "
                f"(`hetprobe bandwidth --load write,read` measures it)"
            )
        out[direction] = float(rows[0]["median_gbs"])
    return out


def _setup_of(record: dict) -> dict:
    """The columns that name a halo record's layout and setup, shared by its rows."""
    return {
        "layout": record.get("layout"),
        "cube": record.get("cube"),
        "setup": record.get("setup", record.get("variant")),
        "variant": record.get("variant"),
        "staging": record.get("staging"),
        "parts": record.get("parts"),
        "judged": record.get("parts") == "auto" and record.get("staging", "pinned") == "pinned",
    }


def has_rates(record: dict) -> bool:
    """Whether a halo record lists per-message rates (files from before them do not)."""
    return any(field in m for direction, (field, _, _) in DIRECTIONS.items() for m in record.get(direction) or [])


def _probe_threshold() -> int | None:
    """The probe's own threshold (C++'s kHaloLongMessageBytes) where the compiled module can be
    imported; None in a bare interpreter."""
    try:
        return importlib.import_module("hetprobe._core").halo_long_message_bytes
    except ImportError:
        return None


def long_message_bytes(record: dict, min_bytes: int | None = None) -> int | None:
    """The bytes from which a record's messages are long: `min_bytes` where given, else the threshold
    the probe's stages took (its pack and unpack busy rates' min_bytes; None where both are null: the
    probe found no long message), else, in a file from before the busy rates, the probe's threshold
    from the compiled module. RatesError where none of these is at hand."""
    if min_bytes is not None:
        return min_bytes
    stages = [record[field] for field in (BUSY["pack"], BUSY["unpack"]) if field in record]
    for busy in stages:
        if isinstance(busy, dict) and isinstance(busy.get("min_bytes"), int):
            return busy["min_bytes"]
    if stages:
        return None
    threshold = _probe_threshold()
    if threshold is None:
        raise RatesError(
            f"the halo record of {record.get('layout')} | {record.get('setup', record.get('variant'))} does not say "
            "which messages are long (a file from before the busy rates), and hetprobe is not installed to say "
            "it: give --min-bytes"
        )
    return threshold


def rate_rows(halo_records, bandwidth_records, min_bytes: int | None = None) -> list[dict]:
    """One dict per rank-0 halo record with rates and message of `min_bytes` or more (default: the
    record's own threshold, long_message_bytes), in file order:
    layout, cube, setup, variant, staging, parts, judged (parts "auto"), direction, tag, kind,
    bytes, ns_median, gbs_median, reference ("write" or "read"), reference_gbs, ratio (None without a rate).
    RatesError when no halo record has per-message rates, or a reference is missing."""
    halo = _rank0(halo_records, "halo", "halo")
    with_rates = [r for r in halo if has_rates(r)]
    if not halo:
        raise RatesError("no rank-0 halo records in the halo results")
    if not with_rates:
        raise RatesError(
            f"the {len(halo)} rank-0 halo records have no per-message rates "
            "(pack_gbs_median, unpack_gbs_median: files written before them)"
        )
    ref = references(bandwidth_records)
    rows = []
    for rec in with_rates:
        long_bytes = long_message_bytes(rec, min_bytes)
        for direction, (field, _, kind) in DIRECTIONS.items():
            for m in rec.get(direction) or []:
                if long_bytes is None or m.get("bytes", 0) < long_bytes:
                    continue
                gbs = m.get(field)
                rows.append(
                    {
                        **_setup_of(rec),
                        "direction": direction,
                        "tag": m.get("tag"),
                        "kind": m.get("kind"),
                        "bytes": m["bytes"],
                        "ns_median": m.get(f"{direction}_ns_median"),
                        "gbs_median": gbs,
                        "reference": kind,
                        "reference_gbs": ref[direction],
                        "ratio": gbs / ref[direction] if isinstance(gbs, (int, float)) else None,
                    }
                )
    return rows


def _stage_reference(direction: str, busy: dict, ref: dict[str, float]) -> tuple[str, float | None, bool]:
    """(reference name, its GB/s, judged) of a stage: the plain kernels for pinned pack and unpack
    (judged), the link for memcpy's copies and device memory for memcpy's kernels (shown)."""
    if direction in ("copy", "recv_copy"):
        return "link", busy.get("link_gbs"), False
    if busy.get("device_gbs") is not None:
        return "device memory", busy["device_gbs"], False
    return DIRECTIONS[direction][2], ref[direction], True


def busy_rows(halo_records, bandwidth_records) -> list[dict]:
    """One dict per rank-0 halo record and stage with a busy rate (files from before them have
    none), in file order: layout, cube, setup, variant, staging, parts, judged (the setup),
    direction (pack, unpack, copy, recv_copy), messages, bytes, busy_ns_median, gbs_median,
    reference (write, read, link or device memory), reference_gbs, ratio (None without a rate),
    stage_judged (whether the stage counts in the verdict), bound_gbs (link_gbs or device_gbs),
    above_bound (a timing error). RatesError when a reference is missing."""
    halo = [r for r in _rank0(halo_records, "halo", "halo") if any(r.get(f) for f in BUSY.values())]
    if not halo:
        return []
    ref = references(bandwidth_records)
    rows = []
    for rec in halo:
        for direction, field in BUSY.items():
            busy = rec.get(field)
            if not busy:
                continue
            gbs = busy.get("gbs_median")
            reference, reference_gbs, stage_judged = _stage_reference(direction, busy, ref)
            number = isinstance(gbs, (int, float)) and isinstance(reference_gbs, (int, float))
            rows.append(
                {
                    **_setup_of(rec),
                    "direction": direction,
                    "messages": busy["messages"],
                    "bytes": busy["bytes"],
                    "busy_ns_median": busy["busy_ns_median"],
                    "gbs_median": gbs,
                    "reference": reference,
                    "reference_gbs": reference_gbs,
                    "ratio": gbs / reference_gbs if number and reference_gbs > 0 else None,
                    "stage_judged": stage_judged,
                    "bound_gbs": busy["device_gbs"] if busy.get("device_gbs") is not None else busy.get("link_gbs"),
                    "above_bound": busy.get("above_link") is True or busy.get("above_device") is True,
                }
            )
    return rows


def _lowest(ratios):
    return None if not ratios or None in ratios else min(ratios)


def summaries(rows, min_ratio: float = MIN_RATIO, stages=()) -> list[dict]:
    """Per (layout, setup), in order: messages, the lowest per-message ratio (None when a message
    has no rate), the stages' ratios {direction: ratio} from `stages` (busy_rows; empty for files
    from before them), judged, above_bound (the stages the record says moved faster than their
    bound: a timing error), and ok (None when not judged): every judged stage's ratio at or above
    min_ratio, or without judged stages every message's, and no stage above its bound."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["layout"], r["setup"]), []).append(r)
    by_setup: dict[tuple, dict] = {}
    above: dict[tuple, list] = {}
    judged_stages: dict[tuple, list] = {}
    for r in stages:
        by_setup.setdefault((r["layout"], r["setup"]), {})[r["direction"]] = r["ratio"]
        if r["stage_judged"]:
            judged_stages.setdefault((r["layout"], r["setup"]), []).append(r["ratio"])
        if r.get("above_bound"):
            above.setdefault((r["layout"], r["setup"]), []).append(r["direction"])
    out = []
    for (layout, setup), g in groups.items():
        lowest = _lowest([r["ratio"] for r in g])
        stage = by_setup.get((layout, setup), {})
        on_stages = judged_stages.get((layout, setup))
        judged_on = _lowest(on_stages) if on_stages else lowest
        judged = g[0]["judged"]
        timing_error = above.get((layout, setup), [])
        out.append(
            {
                "layout": layout,
                "cube": g[0]["cube"],
                "setup": setup,
                "parts": g[0]["parts"],
                "messages": len(g),
                "min_ratio": lowest,
                "stage_ratios": stage,
                "judged": judged,
                "above_bound": timing_error,
                "ok": (judged_on is not None and judged_on >= min_ratio and not timing_error) if judged else None,
            }
        )
    return out


def launch_summaries(halo_launches, bandwidth_records, min_ratio: float = MIN_RATIO) -> list[dict]:
    """Per judged setup (pinned, parts auto) of the first launch, in its order, over the launches
    (lists of records of the same command run again): layout, setup, ratios {direction: [a judged
    stage's ratio per launch, None where that launch lacks it]}, medians {direction: median, None
    unless every launch has a ratio}, above_bound (launch numbers, from 1, with a stage above its
    bound), medians_ok (every median at or above min_ratio), ok (that, and no stage above its bound)."""
    rows = [busy_rows(h, bandwidth_records) for h in halo_launches]
    order: list[tuple] = []
    ratios: dict[tuple, dict[str, list]] = {}
    above: dict[tuple, list[int]] = {}
    for k, launch in enumerate(rows):
        for r in launch:
            key = (r["layout"], r["setup"])
            if r.get("above_bound"):
                above.setdefault(key, []).append(k + 1)
            if not (r["judged"] and r["stage_judged"]):
                continue
            if k == 0 and key not in ratios:
                order.append(key)
            if key in ratios or k == 0:
                ratios.setdefault(key, {}).setdefault(r["direction"], [None] * len(rows))[k] = r["ratio"]
    out = []
    for key in order:
        medians = {d: None if None in v else statistics.median(v) for d, v in ratios[key].items()}
        bad = sorted(set(above.get(key, [])))
        medians_ok = all(m is not None and m >= min_ratio for m in medians.values())
        out.append(
            {
                "layout": key[0],
                "setup": key[1],
                "ratios": ratios[key],
                "medians": medians,
                "medians_ok": medians_ok,
                "above_bound": bad,
                "ok": medians_ok and not bad,
            }
        )
    return out


def launches_report(halo_launches, bandwidth_records, min_ratio: float = MIN_RATIO):
    """(lines to print, whether every judged setup's medians pass) over several launches."""
    sums = launch_summaries(halo_launches, bandwidth_records, min_ratio)
    n = len(halo_launches)
    lines = [f"over {n} launches: each judged stage's ratio per launch, and their median (the verdict's)"]
    for s in sums:
        shown = "; ".join(
            f"{d} {_number(s['medians'][d], 3)} ({', '.join(_number(x, 3) for x in v)})" for d, v in s["ratios"].items()
        )
        verdict = ("ok" if s["medians_ok"] else "UNDER") + f" (minimum {min_ratio:g})"
        if s["above_bound"]:
            verdict = f"TIMING ERROR in launch {', '.join(map(str, s['above_bound']))}; " + verdict
        lines.append(f"{s['layout']} | {s['setup']}: {shown}: {verdict}")
    under = [s for s in sums if not s["ok"]]
    lines.append(
        f"{len(sums)} setups judged (pinned, parts auto) over {n} launches, {len(under)} under {min_ratio:g} "
        f"by their medians or above a bound"
    )
    return lines, bool(sums) and not under


def _number(value, decimals: int) -> str:
    return "-" if value is None else f"{value:.{decimals}f}"


def report(halo_records, bandwidth_records, min_ratio: float = MIN_RATIO, min_bytes: int | None = None):
    """(lines to print, whether every judged setup passed). RatesError as rate_rows."""
    rows = rate_rows(halo_records, bandwidth_records, min_bytes)
    ref = references(bandwidth_records)
    taken = {long_message_bytes(r, min_bytes) for r in _rank0(halo_records, "halo", "halo") if has_rates(r)} - {None}
    whose = "given" if min_bytes is not None else "the probe's threshold"
    long_text = (
        f"messages of {' or '.join(map(str, sorted(taken)))} B or more ({whose})" if taken else "no long messages"
    )
    lines = [
        f"reference: rank 0's plain write kernel {ref['pack']:.2f} GB/s (pack), plain read kernel "
        f"{ref['unpack']:.2f} GB/s (unpack); {long_text}; rank 0's halo records"
    ]
    stages = busy_rows(halo_records, bandwidth_records)
    sums = summaries(rows, min_ratio, stages)
    for s in sums:
        lines.append("")
        lines.append(f"{s['layout']} | {s['setup']} | parts {s['parts']}")
        mine = [r for r in stages if (r["layout"], r["setup"]) == (s["layout"], s["setup"])]
        if mine:
            lines.append(
                f"  {'stage':<9} {'messages':>8} {'bytes':>10} {'busy us':>9} {'GB/s':>8} {'reference':<13} "
                f"{'ref GB/s':>9} {'ratio':>6} {'bound GB/s':>10}"
            )
            for r in mine:
                busy_us = r["busy_ns_median"] / 1e3
                shown = "" if r["stage_judged"] else " (shown, not judged)"
                lines.append(
                    f"  {r['direction']:<9} {r['messages']:>8} {r['bytes']:>10} {busy_us:>9.1f} "
                    f"{_number(r['gbs_median'], 2):>8} {r['reference']:<13} {_number(r['reference_gbs'], 2):>9} "
                    f"{_number(r['ratio'], 3):>6} {_number(r['bound_gbs'], 2):>10}"
                    + (" above its bound" if r["above_bound"] else "")
                    + shown
                )
            lines.append("  each message's own rate (messages that move at the same time share the link):")
        lines.append(
            f"  {'direction':<9} {'tag':>4} {'kind':<7} {'bytes':>10} {'GB/s':>8} {'ref GB/s':>9} {'ratio':>6}"
        )
        for r in rows:
            if (r["layout"], r["setup"]) == (s["layout"], s["setup"]):
                gbs, ratio = _number(r["gbs_median"], 2), _number(r["ratio"], 3)
                lines.append(
                    f"  {r['direction']:<9} {r['tag']:>4} {r['kind']:<7} {r['bytes']:>10} {gbs:>8} "
                    f"{r['reference_gbs']:>9.2f} {ratio:>6}"
                )
        verdict = (
            ("ok" if s["ok"] else "UNDER") + f" (minimum {min_ratio:g})"
            if s["judged"]
            else "reported, not judged (parts not auto, or memcpy staging)"
        )
        if s["above_bound"]:
            verdict = f"TIMING ERROR: {' and '.join(s['above_bound'])} above its bound; " + verdict
        if s["stage_ratios"]:
            shown = ", ".join(f"{d} {_number(x, 3)}" for d, x in s["stage_ratios"].items())
            lines.append(f"  stage ratios {shown} (lowest message {_number(s['min_ratio'], 3)}): {verdict}")
        else:
            lines.append(f"  min ratio {_number(s['min_ratio'], 3)} over {s['messages']} messages: {verdict}")
    judged = [s for s in sums if s["judged"]]
    under = [s for s in judged if not s["ok"]]
    errors = [s for s in sums if s["above_bound"]]
    lines.append("")
    lines.append(
        f"{len(judged)} setups judged (pinned, parts auto), {len(under)} under {min_ratio:g} or above a bound; "
        f"{len(sums) - len(judged)} reported only; {len(errors)} with a stage above its bound (a timing error)"
    )
    return lines, not under and not errors
