"""The package's layout: no module of pybindings/hetprobe over MAX_LINES lines, and no import cycle
among its modules.

The import graph is read from the sources with `ast` (nothing is imported). It counts every import
statement of a module wherever it stands: at module level, inside a function (a deferred import
postpones a cycle, it does not remove it), and in both arms of a try/except ImportError. Relative
imports are resolved against the module's package. `from M import name` is an edge to the module M;
from a package P, to the submodule P.name where there is one, else to P itself (its __init__) when
P's __init__ binds the name. A name that is neither (the compiled `_core`) is not a module of these
sources and makes no edge; nor does a package's __init__ that Python runs before the submodule
imported from it (every package would otherwise sit in a cycle with its own modules)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "pybindings" / "hetprobe"
MAX_LINES = 400


def module_files(root: Path) -> dict[str, Path]:
    """{dotted module name: its file} of every .py under `root` (a package), `root`'s name first."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _bound_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level: definitions, assignments and imports."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def import_graph(root: Path) -> dict[str, set[str]]:
    """{module: the modules of `root` it imports} (see the module's doc for what counts)."""
    files = module_files(root)
    trees = {m: ast.parse(p.read_text(encoding="utf-8"), str(p)) for m, p in files.items()}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for module, tree in trees.items():
        package = _package_of(module, files[module])
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    name = alias.name
                    while name and name not in files:  # `import a.b.c` where only a.b is ours
                        name = name.rpartition(".")[0]
                    if name:
                        graph[module].add(name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target not in files:
                    continue  # another package's, or a compiled module
                is_package = files[target].name == "__init__.py"
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in files:
                        graph[module].add(sub)
                    elif not is_package or alias.name == "*" or alias.name in _bound_names(trees[target]):
                        graph[module].add(target)
        graph[module].discard(module)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each as a path around it."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(_path_around(graph, set(group)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def _path_around(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """One cycle through the group's first module, as a list that starts and ends there."""
    start = min(group)
    paths, seen = [[start]], {start}
    while paths:
        path = paths.pop(0)
        for w in sorted(graph[path[-1]] & group):
            if w == start:
                return path + [start]
            if w not in seen:
                seen.add(w)
                paths.append(path + [w])
    return sorted(group)


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def test_no_module_is_too_long():
    lengths = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in module_files(PACKAGE).items()}
    assert len(lengths) > 20, sorted(lengths)  # the package was found
    long = {m: n for m, n in lengths.items() if n > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_no_import_cycle():
    graph = import_graph(PACKAGE)
    assert "hetprobe.data.load" in graph["hetprobe"]  # the graph was read
    found = cycles(graph)
    assert not found, "import cycles: " + "; ".join(" -> ".join(c) for c in found)


# The rooms of the package (docs/architecture.md, "The Python package") and those each may import:
# downwards only. Every room may import the package's base modules, errors, cli_args and _rules (where Python
# meets the compiled _core).
BASE = ("hetprobe.errors", "hetprobe.cli_args", "hetprobe._rules")
ROOMS = {
    "data": set(),
    "node": {"data"},
    "plots": {"data", "node"},
    "report": {"data", "node", "plots"},
    "run": {"data", "node", "report"},
}


def test_the_rooms_import_downwards():
    graph = import_graph(PACKAGE)
    rooms = {m.split(".")[1] for m in graph if m.count(".") >= 1 and (PACKAGE / m.split(".")[1]).is_dir()}
    assert rooms == set(ROOMS), rooms  # a new room is placed here first
    wrong = []
    for module, imported in graph.items():
        here = module.split(".")[1] if module.split(".")[1:2] and module.split(".")[1] in ROOMS else None
        if here is None:
            continue  # hetprobe/__init__.py, cli.py, errors.py, __main__.py
        for target in imported:
            there = target.split(".")[1] if target.split(".")[1:2] and target.split(".")[1] in ROOMS else target
            if there != here and there not in ROOMS[here] and there not in BASE:
                wrong.append(f"{module} -> {target}")
    assert not wrong, wrong


def test_the_graph_resolves_relative_imports(tmp_path):
    root = _write(
        tmp_path,
        {
            "pkg/__init__.py": "from . import a\nfrom .sub import b as _b\nfrom ._core import x\n",
            "pkg/a.py": "import pkg.sub.b\n",
            "pkg/sub/__init__.py": "VALUE = 1\n",
            "pkg/sub/b.py": "def f():\n    from .. import a\n    from . import VALUE\n    from ..sub.c import g\n",
            "pkg/sub/c.py": "import os\nfrom .. import missing\n",
        },
    )
    assert import_graph(root) == {
        "pkg": {"pkg.a", "pkg.sub.b"},
        "pkg.a": {"pkg.sub.b"},
        "pkg.sub": set(),
        "pkg.sub.b": {"pkg.a", "pkg.sub", "pkg.sub.c"},
        "pkg.sub.c": set(),
    }


def test_a_cycle_is_found_even_through_a_function_level_import(tmp_path):
    root = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from .b import f\n",
            "pkg/b.py": "from . import c\n",
            "pkg/c.py": "def g():\n    from .a import h\n",
            "pkg/d.py": "from .a import f\n",
        },
    )
    assert cycles(import_graph(root)) == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]
