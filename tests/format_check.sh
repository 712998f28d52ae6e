#!/usr/bin/env bash
# The code's format: clang-format (.clang-format) over every tracked C/C++/CUDA
# source, ruff format and ruff check (pyproject.toml's [tool.ruff]) over the
# Python package, its tests and the notebooks' helpers. Fails on any difference
# and names the one command that fixes it. Both tools are the versions pinned
# in pyproject.toml's test extra, installed beside the project's Python
# (bench/setup_python.sh): another version formats differently.
#   tests/format_check.sh          check (exit 1 on a difference)
#   tests/format_check.sh --fix    reformat in place, apply ruff's safe fixes
# Python: $HETPROBE_PYTHON, else the project's venv (as bench/setup_python.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
fix=0
case ${1:-} in
  --fix) fix=1 ;;
  "") ;;
  *) echo "usage: tests/format_check.sh [--fix]" >&2; exit 2 ;;
esac

python=${HETPROBE_PYTHON:-$root/.venv/bin/python}
bin=$(dirname "$python")
# The pinned version of TOOL, from pyproject.toml: "TOOL==X.Y.Z".
pinned() { sed -n "s/.*\"$1==\([0-9.]*\)\".*/\1/p" pyproject.toml | head -n1; }
# TOOL's path beside $python, when its version is the pinned one.
tool() {
  local name=$1 want have
  want=$(pinned "$name")
  have=$("$bin/$name" --version 2>/dev/null | grep -Eo '[0-9]+\.[0-9]+\.[0-9]+' | head -n1 || true)
  if [[ -z $want || $have != "$want" ]]; then
    echo "format_check: needs $name $want in $bin (found: ${have:-none}); install the test tools:" >&2
    echo "  $python -m pip install \"clang-format==$(pinned clang-format)\" \"ruff==$(pinned ruff)\"" >&2
    exit 2
  fi
  echo "$bin/$name"
}
clang_format=$(tool clang-format)
ruff=$(tool ruff)

mapfile -d '' cxx < <(git ls-files -z -- '*.c' '*.h' '*.cc' '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.hip')
python_paths=(pybindings tests/python tests/reframe tests/gpu tests/mpi tests/multinode tests/schema notebooks)

if ((fix)); then
  status=0
  printf '%s\0' "${cxx[@]}" | xargs -0 -r "$clang_format" -i
  # What ruff cannot fix itself is listed, and left for a hand.
  "$ruff" check --fix --quiet "${python_paths[@]}" || status=1
  "$ruff" format --quiet "${python_paths[@]}"
  echo "format_check: reformatted; review with git diff" >&2
  exit $status
fi

status=0
# --dry-run --Werror: one warning per difference, exit non-zero on any.
printf '%s\0' "${cxx[@]}" | xargs -0 -r "$clang_format" --dry-run --Werror --ferror-limit=3 || status=1
"$ruff" format --check "${python_paths[@]}" || status=1
"$ruff" check "${python_paths[@]}" || status=1
if ((status)); then
  echo "format_check: the code is not formatted; fix it with: tests/format_check.sh --fix" >&2
else
  echo "format_check: ${#cxx[@]} C/C++/CUDA files and the Python files are formatted" >&2
fi
exit $status
