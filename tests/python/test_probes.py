"""The probes run from Python: in-process (notify, clock, topology) through
hetprobe._core on the host backend, and interference through mpirun."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_on_host

import hetprobe
from hetprobe.run.probes import launch_command, options_to_args

TOPOLOGIES = Path(__file__).resolve().parents[1] / "data" / "topology"
QUICK_CLOCK = dict(device="host", span=0.5, check_after=0.2, samples=20, batches=3)


def test_options_become_cli_arguments():
    args = options_to_args(
        {
            "orders": ["volatile", "fence"],
            "exchanges": 100,
            "quiet": True,
            "resume": False,
            "gpu": None,
            "check_after": 0.5,
        }
    )
    assert args == ["--orders", "volatile,fence", "--exchanges", "100", "--quiet", "--check-after", "0.5"]


def test_topology_of_this_machine_and_of_a_saved_file():
    here = hetprobe.topology()
    # hwloc counts the CPUs this process's cgroup allows: at least those it may run on, at most those online.
    assert len(os.sched_getaffinity(0)) <= here["pus"] <= os.cpu_count()
    assert "runtime_devices" in here and here["numa"]
    saved = hetprobe.topology(TOPOLOGIES / "two-socket-gpus-nic.xml")
    assert saved["packages"] == 2
    assert len(saved["gpus"]) >= 1 and saved["runtime_devices"] == []
    with pytest.raises(hetprobe.UsageError):
        hetprobe.topology(TOPOLOGIES / "missing.xml")


def test_devices_lists_the_host_backend():
    d = hetprobe.devices()
    assert "host" in [b["backend"] for b in d["backends"]]
    assert d["auto"] in ("cuda", "hip", "host") and d["auto_reason"]


def test_clock_in_process_returns_the_fit_and_keeps_the_file(tmp_path):
    seen = []
    out = tmp_path / "clock.jsonl"
    r = hetprobe.clock(out=out, progress=seen.append, **QUICK_CLOCK)
    fit = r.summary[r.summary["record"] == "clock_fit"]
    assert len(fit) == 1 and abs(fit.iloc[0]["drift_ppm"]) < 1e4
    assert r.header()["backend"] == "host" and r.header()["probe"] == "clock"
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [x["record"] for x in lines] == [x["record"] for x in seen]  # header, 3 + 1 batches, fit
    assert [x["record"] for x in seen] == ["header"] + ["clock_batch"] * 4 + ["clock_fit"]


def test_notify_in_process_measures_what_was_asked():
    r = hetprobe.notify(device="host", parts="roundtrip", orders="volatile,fence", exchanges=200, warmup=10)
    rt = r.summary[(r.summary["record"] == "roundtrip") & (r.summary["metric"] == "roundtrip_ns")]
    assert sorted(set(rt["cpu_order"])) == ["fence", "volatile"]
    assert sorted(set(rt["direction"])) == ["cpu-gpu-cpu", "gpu-cpu-gpu"]
    assert (rt["n"] == 200).all() and (rt["median"] > 0).all()
    samples = r.samples[(r.samples["record"] == "roundtrip") & (r.samples["metric"] == "roundtrip_ns")]
    assert len(samples) == 200 * len(rt)


def test_an_in_process_run_leaves_no_mpi_plumbing_to_children(tmp_path):
    # Open MPI's singleton init writes its launcher's variables into the C environment (not os.environ);
    # a child that inherited them, an mpirun from a notebook's `!`, exited 1 without a word.
    hetprobe.notify(device="host", parts="roundtrip", exchanges=20, warmup=2, quiet=True)
    inherited = subprocess.run(["env"], capture_output=True, text=True, check=True, env=None).stdout.splitlines()
    leaked = [v.split("=")[0] for v in inherited if v.startswith(("PMIX_", "OMPI_MCA_ess=", "OMPI_MCA_orte_launch="))]
    assert not leaked
    # And an MPI run started that way works.
    out = tmp_path / "child.jsonl"
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import hetprobe; hetprobe.run_mpi('notify', out={str(out)!r}, device='host', "
            "parts='roundtrip', exchanges=20, warmup=2, quiet=True)",
        ],
        capture_output=True,
        text=True,
    )
    assert child.returncode == 0, child.stderr
    assert out.stat().st_size > 0


def test_an_explicit_binding_is_given_back_after_an_in_process_run():
    before = os.sched_getaffinity(0)
    cpu = str(min(before))  # one this process may use (not CPU 0 in every container or batch job)
    r = hetprobe.clock(bind=cpu, **QUICK_CLOCK)
    assert r.header()["ranks"][0]["placement"]["cpuset"] == cpu
    assert os.sched_getaffinity(0) == before


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(orders="bogus"), "bogus"),
        (dict(exchanges=0), "--exchanges"),
        (dict(bind="9999"), "9999"),
    ],
)
def test_bad_options_raise_usage_error(options, message):
    with pytest.raises(hetprobe.UsageError, match=message):
        hetprobe.notify(device="host", parts="roundtrip", **options)


@pytest.mark.parametrize(
    "call, keyword, close",
    [
        (lambda **kw: hetprobe.notify(device="host", **kw), "ordrs", "orders"),
        (lambda **kw: hetprobe.clock(device="host", **kw), "spam", "span"),
        (lambda **kw: hetprobe.run_mpi("interference", device="host", **kw), "size", "sizes"),
        (lambda **kw: hetprobe.run_mpi("halo", **kw), "no_such_option", None),
    ],
)
def test_a_misspelled_keyword_is_a_type_error_naming_the_valid_ones(call, keyword, close, tmp_path):
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{keyword}'") as caught:
        call(**{keyword: 1}, out=tmp_path / "x.jsonl")
    text = str(caught.value)
    assert (f"did you mean '{close}'?" in text) if close else "did you mean" not in text
    own, cli = text.split("Valid keywords: ")[1].split(", and the options of `hetprobe ")
    assert {"out", "progress"} <= set(own.split(", ")) and "timeout" in cli.split(", ")
    assert not (tmp_path / "x.jsonl").exists()  # refused before anything ran


def test_the_keywords_are_the_cli_options():
    from hetprobe.run.probes import cli_options

    assert {"orders", "overhead_samples", "mechanism_samples", "timeout", "quiet"} <= set(cli_options("notify"))
    assert {"span", "check_after", "batches"} <= set(cli_options("clock"))
    assert {"sizes", "load_rate", "no_host_stream", "resume"} <= set(cli_options("interference"))
    assert "help" not in cli_options("notify")


def test_an_existing_results_file_is_not_overwritten(tmp_path):
    out = tmp_path / "x.jsonl"
    header = '{"record": "header", "schema": "hetprobe.results", "schema_version": 3, "probe": "clock"}\n'
    out.write_text(header)
    with pytest.raises(hetprobe.UsageError, match="already has results"):
        hetprobe.clock(out=out, **QUICK_CLOCK)
    assert out.read_text() == header


def test_out_must_be_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "fifo")  # opening it to append would block forever
    for out, kind in ((tmp_path / "fifo", "a FIFO"), (tmp_path, "a directory")):
        with pytest.raises(hetprobe.UsageError, match=f"out= .* is {kind}"):
            hetprobe.clock(out=out, **QUICK_CLOCK)
    with pytest.raises(hetprobe.UsageError, match="does not exist"):
        hetprobe.run_mpi("interference", out=tmp_path / "missing" / "i.jsonl", device="host")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]


def test_help_shows_the_cli_options():
    assert "--orders" in hetprobe.help("notify")
    assert "--sizes" in hetprobe.help("interference")
    with pytest.raises(hetprobe.UsageError):
        hetprobe.help("no-such-probe")


def test_interference_runs_under_mpirun_with_the_cli_options(tmp_path):
    # After an in-process run this process is an MPI singleton; the child mpirun must not notice.
    hetprobe.clock(**QUICK_CLOCK)
    seen = []
    r = run_on_host(
        "interference",
        tmp_path / "i.jsonl",
        progress=seen.append,
        sizes="1KiB,4KiB",
        layouts="SSB,PCB",
        access="stream",
        rounds=6,
        reps=3,
    )
    points = r.summary[(r.summary["record"] == "point") & (r.summary["metric"] == "send_time_ns")]
    assert len(points) == 4 and set(points["layout"]) == {"SSB", "PCB"}
    # 6 rounds of 3 sends a visit: 18 samples a point.
    assert (points["status"] == "ok").all() and (points["n"] == 18).all()
    assert r.header()["mpi"]["ranks"] == 2
    assert [x["record"] for x in seen] == ["header", "host_memory"] + ["point"] * 4  # STREAM first, then the points


def test_a_failing_mpi_run_raises_with_its_message():
    with pytest.raises(hetprobe.UsageError, match="sizes"):
        hetprobe.run_mpi("interference", device="host", sizes="12XB")


def test_launch_command_defaults_and_explicit_prefix():
    assert launch_command(2, "mpirun -np 2 --host a,b") == ["mpirun", "-np", "2", "--host", "a,b"]
    cmd = launch_command(2, "mpirun", hosts="a,b")
    assert cmd[:5] == ["mpirun", "-np", "2", "--host", "a,b"]
    with pytest.raises(hetprobe.UsageError):
        launch_command(0)
    with pytest.raises(hetprobe.UsageError, match="not found"):
        launch_command(2, "no-such-launcher")


def test_a_failed_mpi_run_raises_its_own_recorded_error(tmp_path):
    """The kind and the message come from the run's recorded error (HETPROBE_ERROR_FILE), with the
    rank and host that reported it: not from searching the log."""
    with pytest.raises(hetprobe.UsageError) as e:
        hetprobe.run_mpi("interference", ranks=3, out=tmp_path / "i.jsonl", device="host", sizes="1KiB", reps=1)
    message = str(e.value)
    assert "uses exactly 2 MPI ranks" in message and "[rank 0 on " in message
    assert not (tmp_path / "i.jsonl").exists() or (tmp_path / "i.jsonl").stat().st_size == 0


def test_the_error_kinds_map_to_the_package_exceptions():
    kinds = hetprobe._core.error_kinds()
    assert {"usage", "unsupported", "interrupted", "timeout"} <= set(kinds)
    for kind, entry in kinds.items():
        assert issubclass(getattr(hetprobe.errors, entry["exception"]), hetprobe.errors.HetprobeError), kind
    assert kinds["usage"]["exit_code"] == 2 and kinds["interrupted"]["exit_code"] == 130
