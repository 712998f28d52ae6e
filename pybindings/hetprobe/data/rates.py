"""Load rates compared by value, never by their spelling: "50%" is "0.5", and "100%" is the full rate
"1". The parse is C++'s (bench/load/load_options.hpp), read through hetprobe._core; nothing here
reads a rate's text itself, and a load's label (load_label) is C++'s too."""

from __future__ import annotations

import functools

import pandas as pd


@functools.lru_cache(maxsize=256)
def _value(label: str):
    """The label's _rules.LoadRate: the parse and its equality are written once, in C++."""
    from .. import _rules  # the compiled module

    return _rules.parse_load_rate(label)


def _full(label: str) -> bool:
    return _value(label).full


def _given(label) -> bool:
    return label is not None and not (isinstance(label, float) and pd.isna(label))


def is_full(label) -> bool:
    """Whether a point's load_rate is its load's full rate. None (no load, or a file from before
    rates, whose loads ran at full rate) counts as full."""
    return not _given(label) or _full(str(label))


def load_label(kind: str, gpus, rate, brief: bool = False) -> str:
    """A load as `hetprobe show` and the progress lines name it, "write x2 @0.5" (the rate left out
    where it is the full one); brief=True leaves "x1" out, as the bare programs name their loads
    ("write"). C++ writes the label (bench/load/load_options.hpp)."""
    from .. import _rules

    return _rules.load_label(str(kind), int(gpus), str(rate) if _given(rate) else None, brief)


def same_rate(labels: pd.Series, rate) -> pd.Series:
    """Which of a column's load_rate labels are the rate `rate`, of any spelling (a bad `rate` is a
    UsageError naming it)."""
    want = _value(str(rate))
    return labels.map(lambda label: _given(label) and _value(str(label)) == want).astype(bool)
