"""How many records each step of characterize will write, so that progress can show done/total and
the time left: the probe says so in its header (`planned_records`), counted where it sweeps."""

from __future__ import annotations


def family(step: str) -> str:
    """The probe a step runs: "interference-rate" is the interference probe."""
    return step.split("-")[0]


def expected_records(header: dict) -> int | None:
    """Records the probe will write after this header (None when it does not say)."""
    planned = header.get("planned_records")
    return planned if isinstance(planned, int) and not isinstance(planned, bool) else None
