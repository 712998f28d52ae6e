"""The hetprobe command of the package (python -m hetprobe): its own
subcommands, and the executable's, run in its place."""

import json
import subprocess
import sys


def hetprobe(*args, **kw):
    return subprocess.run([sys.executable, "-m", "hetprobe", *args], capture_output=True, text=True, **kw)


def test_help_lists_the_probes_and_the_python_subcommands():
    done = hetprobe("--help")
    assert done.returncode == 0
    for name in ("interference", "notify", "clock", "topo", "characterize", "report", "merge"):
        assert name in done.stdout


def test_no_subcommand_is_a_usage_error():
    done = hetprobe()
    assert done.returncode == 2 and "characterize" in done.stdout


def test_probe_subcommands_run_the_executable():
    done = hetprobe("devices", "--json")
    assert done.returncode == 0
    assert "host" in [b["backend"] for b in json.loads(done.stdout)["backends"]]


def test_bad_input_exits_2_with_a_message(tmp_path):
    done = hetprobe("notify", "--orders", "bogus", "--out", str(tmp_path / "n.jsonl"))
    assert done.returncode == 2 and "bogus" in done.stderr
    assert not (tmp_path / "n.jsonl").exists() or (tmp_path / "n.jsonl").stat().st_size == 0
    done = hetprobe("characterize", "--skip", "bogus", str(tmp_path / "run"))
    assert done.returncode == 2 and "bogus" in done.stderr
    done = hetprobe("report", str(tmp_path / "no-such-dir"))
    assert done.returncode == 2 and "not a run directory" in done.stderr
    done = hetprobe("characterize", "--reps", "many")
    assert done.returncode == 2 and "--reps" in done.stderr


def test_characterize_refuses_a_directory_that_has_files(tmp_path):
    (tmp_path / "old.txt").write_text("x")
    done = hetprobe("characterize", "--quick", str(tmp_path))
    assert done.returncode == 2 and "not empty" in done.stderr


def test_the_version_is_written_once_and_every_part_reports_it():
    """CMakeLists.txt's project() holds the version; the package metadata and the executable take it from there."""
    import re
    from pathlib import Path

    import hetprobe as package

    cmake = (Path(__file__).parents[2] / "CMakeLists.txt").read_text()
    written = re.search(r"project\(hetprobe VERSION ([0-9.]+)", cmake).group(1)
    assert package.__version__ == written
    done = hetprobe("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:2] == ["hetprobe", written]


def test_default_output_names_have_no_colons(tmp_path):
    """Default names carry the UTC time in ISO 8601's basic form (20261125T104931Z): a colon breaks
    on some file systems, in scp and in make."""
    import re

    from hetprobe.run.characterize import default_directory

    done = hetprobe(
        "notify", "--device", "host", "--parts", "overhead", "--overhead-ops", "10", "--quiet", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    names = [p.name for p in tmp_path.iterdir()]
    assert len(names) == 1 and re.fullmatch(r"hetprobe-notify-\d{8}T\d{6}Z\.jsonl", names[0]), names
    assert re.fullmatch(r"characterize-.+-\d{8}T\d{6}Z", default_directory().name), default_directory()
    assert ":" not in str(default_directory())


def test_the_executable_names_the_package_commands_it_does_not_run():
    import hetprobe

    listed = subprocess.run([hetprobe.binary(), "--help"], capture_output=True, text=True).stdout
    for name in ("characterize", "report", "merge", "check"):
        assert f"\n  {name} " in listed
        done = subprocess.run([hetprobe.binary(), name, "--quick", "x"], capture_output=True, text=True)
        assert done.returncode == 2 and f"python -m hetprobe {name}" in done.stderr, done.stderr
