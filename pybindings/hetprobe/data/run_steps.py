"""Which interference step of a run a table or plot reads. characterize writes one file per step and
launch: the loads (interference.jsonl, interference.launch2.jsonl, ...), the write load's rates
(interference-rate), the cold sends (interference-cold) and the paper's layouts (interference-paper).
A reader takes every launch of the step it names, pooled by C++ (Results.interference_ratios: each
aggregate names its step), by default the step the report shows for it, and says which.

    >>> step_rows("RUN_DIR")                          # the loads, every launch pooled
    >>> step_rows(results, step="interference-cold")  # another step
"""

from __future__ import annotations

import os

import pandas as pd

from ..errors import UsageError

LOADS, RATES, COLD, PAPER = "interference", "interference-rate", "interference-cold", "interference-paper"


def as_results(results):
    """`results` as a Results: itself, or hetprobe.load of a run directory, a file or a list of them."""
    from .load import load
    from .results import Results

    if isinstance(results, Results):
        return results
    if isinstance(results, (str, os.PathLike, list, tuple)):
        return load(results)
    raise UsageError(f"expected a Results, a run directory or results files, got {type(results).__name__}")


def steps_in(rows: pd.DataFrame) -> list[str]:
    """The steps of pooled rows (Results.interference_ratios), in the order read."""
    return list(dict.fromkeys(rows["step"]))


def pick_steps(rows: pd.DataFrame, step=None, default: tuple = (LOADS,)) -> pd.DataFrame:
    """The pooled rows of `step` (a step's name, or a list of them); unnamed, of the `default` steps that
    the rows have, else of the one step they have (a lone results file is its own step). A UsageError
    names the steps there are when a named step is missing, or when there are several and no default."""
    have = steps_in(rows)
    if not have:
        raise UsageError("no interference points in these results")
    if step is not None:
        wanted = [step] if isinstance(step, str) else list(step)
        missing = [s for s in wanted if s not in have]
        if missing:
            raise UsageError(f"step {missing[0]!r} is not in these results; their steps: {', '.join(have)}")
    else:
        wanted = [s for s in default if s in have] or (have if len(have) == 1 else [])
        if not wanted:
            raise UsageError(
                f"interference points of several steps ({', '.join(have)}) and none of {', '.join(default)}: "
                "pass step= to choose"
            )
    return rows[rows["step"].isin(wanted)]


def step_rows(results, step=None, default: tuple = (LOADS,)) -> pd.DataFrame:
    """pick_steps of the pooled rows of `results` (a Results, a run directory or results files)."""
    return pick_steps(as_results(results).interference_ratios(), step, default)


def steps_text(rows: pd.DataFrame) -> str:
    """Which steps and launches rows are from, for a title: "step interference, 3 launches"."""
    parts = []
    for step in steps_in(rows):
        n = int(rows.loc[rows["step"] == step, "launches"].max())
        parts.append(f"step {step}, {n} launch{'es' if n != 1 else ''}")
    return "; ".join(parts)
