"""The interference steps of a run as the report reads them: each step's files (PARTS), its first
launch or every launch (interference_parts), the paper's sweep alone (paper_view), and a part's
points pooled over its launches (ratio_rows, loaded, has_intervals)."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from .. import _rules
from ..data.jsonl import is_results_file
from ..data.results import Results
from ..data.run_steps import COLD, LOADS, PAPER, RATES
from ..data.steps import split_launch

# The interference steps of a characterize run: the loads (every kind from the sender's GPU and from
# all), the write load's rate curve, the paper's layout sweep and the cold sends; each step's files are
# <step>.jsonl and its further launches' <step>.launch2.jsonl, ... A lone results file is its own part.
PARTS = {"loads": LOADS, "rates": RATES, "paper": PAPER, "cold": COLD}


MARGIN = _rules.effect_margin  # an effect is claimed where the interval lies wholly beyond 1 ± this (base/effect.hpp)


def step_files(results: Results, step: str) -> list[str]:
    """The names (no folder) of a step's results files, by launch: <step>.jsonl, <step>.launch2.jsonl, ..."""
    names = {os.path.basename(f) for f in results.files if is_results_file(f)}
    return sorted((n for n in names if split_launch(n)[0] == step), key=lambda n: split_launch(n)[1])


def interference_parts(results: Results, launches: bool = False) -> dict:
    """{"loads"|"rates"|"paper"|"cold": Results} of the interference steps present: each step's first
    launch (one run, as the plots take it), or with ``launches=True`` every launch of it (as
    Results.interference_ratios pools them). A file of another name is "loads" when it has load kinds
    and "paper" when it has the paper's writer."""
    inter = results.probe("interference")
    parts = {}
    for part, step in PARTS.items():
        files = step_files(inter, step)
        one = inter.only_files(*(files if launches else files[:1]))
        if len(one.summary):
            parts[part] = one
    if not parts and len(inter.summary):
        paper = all((r.get("config") or {}).get("paper") for r in inter.records if r.get("record") == "header")
        parts["paper" if paper else "loads"] = inter
    return parts


def paper_view(results: Results) -> Results:
    """A characterize run as the paper's layout sweep: its other interference files (the loads, the
    rates, the cold sends) and the paper's further launches left out, where the run has the paper's
    (older runs and single files are returned as they are)."""
    paper = step_files(results, PARTS["paper"])
    if not paper or split_launch(paper[0]) != (PARTS["paper"], 1):
        return results
    others = [n for part in ("loads", "rates", "cold") for n in step_files(results, PARTS[part])]
    return results.without_files(*others, *paper[1:])


def ratio_rows(part: Results) -> pd.DataFrame:
    """The pooled points of one interference part (Results.interference_ratios), SSB included."""
    return part.interference_ratios()


def has_intervals(rows: pd.DataFrame) -> bool:
    """Whether these points were measured in rounds (files from before the rounds have no intervals)."""
    return bool(len(rows)) and bool(rows["rounds"].notna().any())


def loaded(rows: pd.DataFrame) -> pd.DataFrame:
    """The points with a ratio to SSB (every layout but SSB's)."""
    return rows[(rows["layout"] != "SSB") & np.isfinite(rows["ratio_to_ssb"])]
