"""The C++ tree's layout (docs/architecture.md): the layers include downwards, and a probe's folder
includes no other probe's folder; what two probes share lives in a room (bench/core, load,
protocols, model). Includes are read from the sources as text, every `#include "..."` line."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
SOURCES = ("*.hpp", "*.cpp", "*.cu", "*.h")


def includes(folder: Path) -> dict[Path, list[str]]:
    """{source file: the project paths it includes} of every C++ or CUDA source under `folder`."""
    out = {}
    for pattern in SOURCES:
        for path in sorted(folder.rglob(pattern)):
            out[path] = INCLUDE.findall(path.read_text(encoding="utf-8"))
    return out


def probe_folders(bench: Path) -> set[str]:
    """The folders of bench/ that hold a probe: those defining make_<folder>_probe (the probe table's
    entries, bench/cli/probe_table.cpp)."""
    return {
        d.name
        for d in bench.iterdir()
        if d.is_dir()
        and any(f"make_{d.name}_probe()" in p.read_text(encoding="utf-8") for p in d.glob("*_command.cpp"))
    }


def crossings(bench: Path) -> list[str]:
    """Every include of one probe's folder from another's: "file -> include"."""
    probes = probe_folders(bench)
    wrong = []
    for probe in sorted(probes):
        for path, included in includes(bench / probe).items():
            for inc in included:
                parts = inc.split("/")
                if len(parts) > 2 and parts[0] == "bench" and parts[1] in probes and parts[1] != probe:
                    wrong.append(f"{path.relative_to(bench.parent)} -> {inc}")
    return wrong


def test_the_probe_table_names_the_folders():
    # Derived from the code, so the test below cannot pass by finding no probe at all; a new probe's folder
    # joins them by its make_<probe>_probe alone.
    assert probe_folders(REPO / "bench") >= {"interference", "notify", "clock", "halo", "bandwidth", "gpus"}


def test_no_probe_folder_includes_another_probes():
    assert not crossings(REPO / "bench")


def test_a_crossing_is_found(tmp_path):
    for probe in ("alpha", "beta"):
        (tmp_path / "bench" / probe).mkdir(parents=True)
        (tmp_path / "bench" / probe / f"{probe}_command.cpp").write_text(f"void* make_{probe}_probe();\n")
    (tmp_path / "bench" / "core").mkdir()
    (tmp_path / "bench" / "alpha" / "alpha.cpp").write_text(
        '#include "bench/core/results.hpp"\n  #  include "bench/beta/beta.hpp"\n'
    )
    assert crossings(tmp_path / "bench") == ["bench/alpha/alpha.cpp -> bench/beta/beta.hpp"]


def test_the_lower_layers_include_no_bench():
    wrong = [
        f"{path.relative_to(REPO)} -> {inc}"
        for layer in ("probes", "topology", "base")
        for path, included in includes(REPO / layer).items()
        for inc in included
        if inc.startswith("bench/") or (layer == "base" and inc.split("/")[0] in ("probes", "topology"))
    ]
    assert not wrong


def virtual_methods(header: Path, cls: str) -> list[str]:
    """The virtual methods declared in class `cls` of `header`, its destructor left out."""
    text = header.read_text(encoding="utf-8")
    body = text[text.index(f"class {cls} {{") :]
    body = body[: body.index("\n};")]
    return re.findall(r"virtual\s+(?!~)[^;{(]*?\b(\w+)\s*\(", body)


def test_the_probe_interface_stays_narrow():
    # Issue 37: ten virtual methods or fewer; the optional parts live behind hooks() (RunHooks).
    methods = virtual_methods(REPO / "bench" / "cli" / "probe.hpp", "Probe")
    assert "measure" in methods and "hooks" in methods, methods
    assert len(methods) <= 10, methods
