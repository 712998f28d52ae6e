"""Which data the notebooks read. Each notebook's first cell calls these.

HETPROBE_NOTEBOOK_RUN: a run directory (`hetprobe characterize DIR`); when set, every notebook
reads that directory's files instead of the committed H200 data in data/.
HETPROBE_NOTEBOOK_COMPARE: compare.ipynb's second run directory or file.
HETPROBE_NOTEBOOK_HALO: halo.ipynb's halo results file (else the run directory's halo.jsonl).
"""

import os
from pathlib import Path

# results(DIR, NAME): NAME.jsonl, or NAME.jsonl.gz (how data/ keeps its large ones);
# stem(PATH): NAME of either.
from hetprobe.data.jsonl import results_file as results, results_stem as stem  # noqa: F401

DATA = Path(__file__).resolve().parent / "data"
H200_RUN = DATA / "h200x2-characterize-default"
# Where data/h200x2-characterize-default is absent: the same probes from the single-probe H200 files.
H200_FILES = ["h200-notify.jsonl.gz", "h200-clock.jsonl", "h200-interference-placed.jsonl.gz", "h200-topo.json"]


def data(name: str) -> Path:
    """A committed file of notebooks/data."""
    return DATA / name


def env_path(variable: str):
    """The path named by an environment variable, or None when it is unset or empty."""
    value = os.environ.get(variable, "").strip()
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"{variable}={value}: no such file or directory")
    return path


def run_dir():
    """HETPROBE_NOTEBOOK_RUN, or None."""
    return env_path("HETPROBE_NOTEBOOK_RUN")


def h200_run():
    """The committed H200 run directory, or its single-probe files (said so) while it is absent."""
    if H200_RUN.is_dir():
        return H200_RUN
    print(f"{H200_RUN.name} is not committed yet: using the H200 files " + ", ".join(H200_FILES))
    return [DATA / name for name in H200_FILES]


def shown(path) -> str:
    """A path (or list of paths) as text, relative to notebooks/ where it lies inside it."""
    if isinstance(path, (list, tuple)):
        return ", ".join(shown(p) for p in path)
    path = Path(path).resolve()
    try:
        return str(path.relative_to(DATA.parent))
    except ValueError:
        return str(path)
