"""hetprobe._rules is where Python meets C++: the package reads every rule, choice and text form of
the compiled module through it, so that what Python takes from C++ is listed in one place."""

from __future__ import annotations

import ast
from pathlib import Path

import hetprobe
from hetprobe import _rules

PACKAGE = Path(hetprobe.__file__).parent
# Modules that load the compiled module themselves, and why: _rules is the meeting point; jsonl.py and
# halo_rates.py are loaded by path by scripts outside the package; run/probes.py runs the probes in
# process (the engine, not a rule).
OWN_CORE = {"_rules.py", "data/jsonl.py", "data/halo_rates.py", "run/probes.py"}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _imports_core(tree) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "_core" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("_core"):
            return True
        if isinstance(node, ast.Constant) and node.value == "hetprobe._core":
            return True
    return False


def test_only_the_meeting_point_and_the_by_path_readers_load_the_compiled_module():
    loading = {name for name, tree in _modules() if _imports_core(tree)}
    assert loading <= OWN_CORE, sorted(loading - OWN_CORE)
    assert "_rules.py" in loading


def test_every_rule_the_package_reads_is_named_in_rules():
    used = set()
    for _, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "_rules":
                used.add(node.attr)
    assert used, "no module reads _rules"
    missing = sorted(name for name in used if not hasattr(_rules, name))
    assert not missing, missing


def test_the_typed_values_come_from_cpp():
    headline_types = (_rules.Headline, _rules.SlowdownPick, _rules.SpeedupPick, _rules.LayoutRatio)
    assert all(t.__module__ == "hetprobe._core" for t in headline_types)
    assert str(_rules.HeadlineVerdict.within_noise) == "within_noise"
    s = _rules.summarize([3.0, 1.0, 2.0])
    assert (s.n, s.min, s.median, s.max) == (3, 1.0, 2.0, 3.0) and s.as_dict()["median"] == 2.0
    assert _rules.summarize([]) is None
    part = _rules.parse_part_size("32KiB")
    assert (part.kind, part.bytes, str(part)) == ("bytes", 32768, "32KiB")
    assert _rules.parse_part_size("whole").bytes is None and str(_rules.parse_part_size("auto")) == "auto"
    assert _rules.parse_part_size("32768") == part
