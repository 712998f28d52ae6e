"""The Python API checks what it is given at its boundary (issue 54): a wrong type, an empty path or a NUL
in one is a UsageError naming the keyword, never a raw TypeError from inside the package, nor "" read as
the current directory."""

from __future__ import annotations

import re

import pytest
from conftest import RUNS

import hetprobe
from hetprobe.errors import UsageError

RUN = RUNS / "h100-characterize-run-as-data"


@pytest.mark.parametrize(
    "given, named",
    [
        (None, "path_or_paths: expected a path or a list of paths, got NoneType None"),
        (42, "path_or_paths: expected a path or a list of paths, got int 42"),
        ("", "path_or_paths: an empty path"),
        ([RUN, ""], "path_or_paths: an empty path"),
        ([3.5], "path_or_paths: expected a path (str or os.PathLike), got float 3.5"),
        ("run\x00x", "path_or_paths: 'run\\x00x' holds a NUL character"),
    ],
)
def test_load_names_what_it_cannot_read_as_a_path(given, named):
    with pytest.raises(UsageError, match=re.escape(named)):
        hetprobe.load(given)


def test_load_still_takes_any_iterable_of_paths():
    assert len(hetprobe.load(p for p in [RUN / "bandwidth.jsonl"]).summary) > 0


@pytest.mark.parametrize(
    "keywords, named",
    [
        ({"run": RUN, "halo": ""}, "halo: an empty path"),
        ({"run": 5}, "run: expected a path (str or os.PathLike), got int 5"),
        ({"run": "run\x00x"}, "run: 'run\\x00x' holds a NUL character"),
        ({"run": RUN, "halo": ["a"]}, "halo: expected a path (str or os.PathLike), got list"),
    ],
)
def test_model_names_the_keyword_it_cannot_use(keywords, named):
    with pytest.raises(UsageError, match=re.escape(named)):
        hetprobe.model(**keywords)


@pytest.mark.parametrize(
    "keywords, named",
    [
        ({"skip": "notify"}, "skip: expected a list of step names, got the string 'notify'"),
        (
            {"gpus_args": "--rounds 0"},
            "gpus_args: expected a list of options such as ['--rounds', '6'], got the string",
        ),
        ({"notify_args": [3]}, "notify_args: expected a list of options such as ['--rounds', '6'], got int 3 in it"),
        ({"gpus_args": ["--help"]}, "--gpus-args --help: prints the probe's help instead of measuring"),
        ({"interference_args": ["-h"]}, "--interference-args -h: prints the probe's help instead of measuring"),
        ({"notify_args": ["--out=x.jsonl"]}, "--notify-args --out=x.jsonl: characterize names each step's results"),
        ({"gpus_args": ["--phase", "remeasure"]}, "--gpus-args --phase: characterize runs the gpus re-measure itself"),
    ],
)
def test_characterize_refuses_what_would_keep_a_step_from_measuring(tmp_path, keywords, named):
    """Issue 54: a string read letter by letter, or a step told to print its help, take another phase or write
    elsewhere, once gave "complete" with the step's numbers missing. Refused before anything is written."""
    run = tmp_path / "run"
    with pytest.raises(UsageError, match=re.escape(named)):
        hetprobe.characterize(run, device="host", **keywords)
    assert not run.exists()


def test_characterize_refuses_an_empty_directory_name():
    with pytest.raises(UsageError, match="directory: an empty path"):
        hetprobe.characterize("", device="host")


@pytest.mark.parametrize(
    "keywords, named",
    [
        ({"reps": "4"}, "--reps '4': expected an integer from 1 to 1,000,000, got str"),
        ({"timeout_s": "10"}, "--timeout '10': expected a finite number of seconds above 0 and at most"),
        ({"hosts": ["a", "b"]}, "hosts: expected the pair as one string, 'a,b', got list"),
    ],
)
def test_characterize_names_a_keyword_of_the_wrong_type(tmp_path, keywords, named):
    with pytest.raises(UsageError, match=re.escape(named)):
        hetprobe.characterize(tmp_path / "run", device="host", **keywords)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "baseline, named",
    [
        (5, "baseline: expected a run directory or a list of them, got int 5"),
        ([RUN, None], "baseline: expected a path (str or os.PathLike), got NoneType None"),
        ("", "baseline: an empty path"),
    ],
)
def test_check_names_a_baseline_it_cannot_read_as_a_path(baseline, named):
    with pytest.raises(UsageError, match=re.escape(named)):
        hetprobe.check(RUN, baseline)


def test_a_step_that_exits_0_with_no_record_is_failed(tmp_path):
    """Issue 54: a step that measured nothing (exit 0, 0 records) was "ok" and characterize "complete"."""
    import io

    from hetprobe.run.launch import run_step
    from hetprobe.run.manifest import Step
    from hetprobe.run.progress import Progress

    (tmp_path / "logs").mkdir()
    step = Step("notify", ["true"])
    run_step(step, tmp_path / "notify.jsonl", tmp_path, Progress(io.StringIO(), bar=False), timeout_s=30)
    assert (step.exit_code, step.records, step.status) == (0, 0, "failed")
    assert step.error == "exit code 0 after 0 records: the step measured nothing"
