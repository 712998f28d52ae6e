"""Run analysis notebooks headless (nbclient, kernel "python3", cwd notebooks/); raise on any cell error.

    python notebooks/execute.py NOTEBOOK...              # run, check, leave the files as they are
    python notebooks/execute.py --in-place NOTEBOOK...   # run and write the outputs into the files

The data each notebook reads is chosen by HETPROBE_NOTEBOOK_RUN / HETPROBE_NOTEBOOK_COMPARE (see
notebooks/_paths.py); unset, the committed data in notebooks/data.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent
REPO = NOTEBOOKS.parent
PATH_VARIABLES = ("HETPROBE_NOTEBOOK_RUN", "HETPROBE_NOTEBOOK_COMPARE", "HETPROBE_NOTEBOOK_HALO")


def kernel_env(env: dict | None = None) -> dict:
    """The kernel's environment: `env` (default os.environ) with relative paths made absolute.

    The kernel runs in notebooks/, so a relative PYTHONPATH entry or data path given from another
    directory would point elsewhere there. When this process cannot import hetprobe at all, the
    repository's pybindings/ is added to PYTHONPATH (an installed package is used as it is).
    """
    env = dict(os.environ if env is None else env)
    parts = [str(Path(p).resolve()) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if importlib.util.find_spec("hetprobe") is None:
        parts.append(str(REPO / "pybindings"))
    if parts:
        env["PYTHONPATH"] = os.pathsep.join(parts)
    for name in PATH_VARIABLES:
        if env.get(name):
            env[name] = str(Path(env[name]).expanduser().resolve())
    return env


def execute(notebook_path, env: dict | None = None, in_place: bool = False, timeout: int = 600):
    """Runs every cell of the notebook; returns the executed NotebookNode.

    Raises nbclient.exceptions.CellExecutionError (with the cell and its traceback) on the first cell
    that fails, or CellTimeoutError when a cell runs longer than `timeout` seconds. With in_place,
    the outputs are written back to the file, only after every cell succeeded.
    """
    path = Path(notebook_path).resolve()
    nb = nbformat.read(path, as_version=4)
    # record_timing=False: no per-cell timestamps in the metadata, so committed outputs diff cleanly.
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=timeout,
        allow_errors=False,
        record_timing=False,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute(env=kernel_env(env))
    if in_place:
        nbformat.write(nb, path)
    return nb


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path, help="notebook files (.ipynb)")
    parser.add_argument("--in-place", action="store_true", help="write the outputs into the notebooks")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")
    args = parser.parse_args(argv)
    for notebook in args.notebooks:
        execute(notebook, in_place=args.in_place, timeout=args.timeout)
        print(f"{notebook}: ok" + (" (outputs written)" if args.in_place else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
