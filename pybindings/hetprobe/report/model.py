"""The report's node model section: the MPI path's alpha and beta and its slowdown per GB/s of GPU
traffic, fitted in C++ (bench/model/, `hetprobe model`) from the run's interference series, shown with
their 95% intervals; the fit's document is kept beside the report as model.json, so that `hetprobe
model RUN --halo FILE` and hetprobe.model(RUN, halo=FILE) predict an exchange from the same numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from ..data.model import model
from ..data.units import size_label
from ..errors import UsageError
from . import outputs
from .render import Document, number

# The fit's units as the section shows them (the document's are s, s/B and 1/(GB/s)).
_SHOWN = {
    "alpha_s": ("alpha (latency)", "µs", 1e6),
    "beta_s_per_byte": ("beta (1 / bandwidth)", "ns/B", 1e9),
    "segment_alpha_s": ("alpha, for a message of this size", "µs", 1e6),
    "segment_beta_s_per_byte": ("beta, for a message of this size", "ns/B", 1e9),
    "gamma_per_gbs": ("gamma (slowdown per traffic)", "% per 10 GB/s", 1e3),
}


def _interval(low: float, high: float, scale: float) -> str:
    return "-" if math.isnan(low) else f"{number(low * scale)} to {number(high * scale)}"


def _message(r) -> str:
    if pd.isna(r.bytes):
        return "-"
    if pd.isna(r.to_bytes):
        return size_label(int(r.bytes))
    side = "rendezvous" if r.rendezvous else "eager"
    return f"{size_label(int(r.bytes))} to {size_label(int(r.to_bytes))} ({side})"


def fit_table(fit: pd.DataFrame) -> pd.DataFrame:
    """One row per parameter (per segment, gamma per message size), median and 95% interval in the
    shown units; a value no send can have (C++'s mark) says so beside its median."""
    rows = []
    for r in fit.itertuples():
        name, unit, scale = _SHOWN[r.parameter]
        rows.append(
            {
                "parameter": name,
                "message": _message(r),
                "median": number(r.median * scale)
                + (f" (implausible: {r.implausible})" if isinstance(r.implausible, str) else ""),
                "95% CI": _interval(r.ci95_low, r.ci95_high, scale),
                "unit": unit,
                "rounds": r.rounds,
            }
        )
    return pd.DataFrame(rows)


def model_section(doc: Document, directory: Path) -> None:
    """The fit of `directory`'s interference series, or why there is none; writes model.json."""
    doc.h2("The node model")
    try:
        fitted = model(directory)
    except UsageError as e:
        doc.para(f"No model of this node: {e}")
        return
    outputs.write_text(directory, "model.json", json.dumps(fitted.document, indent=1) + "\n")
    doc.para(
        "The MPI path's send time t(n) = alpha + beta n (Elis et al. 2024, Eq. 2; a message is predicted by the "
        "line through the two measured sizes around it on its side of the eager limit), slowed by 1 + gamma(n) T under "
        "T GB/s of GPU traffic, fitted from this run's interference series: each parameter is the median of its "
        "per-round fits, with their 95% interval (docs/metrics.md, The node model). It is kept in model.json; "
        "`hetprobe model RUN --halo FILE` predicts a halo exchange's communication time from it."
    )
    doc.table(fit_table(fitted.fit))
