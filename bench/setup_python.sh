# The Python package: `pip install .` into a venv at $root/.venv, or, on a
# machine with a ready Python environment and no network, into
# $HETPROBE_PYTHON's environment as it is (nothing downloaded).
# bench/setup.sh calls these steps in its stages: setup_python_env (the venv
# with the build tools, so the C++ build can make the Python module too),
# setup_python_package (the package, from setup.sh's build tree when
# $package_build_dir names it: nothing compiled twice) and hetprobe_path_hint.
# Sourced on its own (tests/gpu/*.sh, with $root set), it runs all three, and
# pip builds in the package's own tree (build/python).
# The package is the runtime only; tests/run_all.sh adds the test extra with
# setup_python_extra test. Installs again only when the package's sources (or
# the interpreter, or the build options) changed since the last install.
# Sets $python (the interpreter) and $hetprobe_command (the hetprobe command).

pip_install=(-m pip install -q --disable-pip-version-check)

setup_python_env() {
  python=${HETPROBE_PYTHON:-}
  if [[ -z $python ]]; then
    [[ -x $root/.venv/bin/python ]] || python3 -m venv "$root/.venv"
    python=$root/.venv/bin/python
    # The build requirements: the install builds without isolation, so that it
    # can reuse a CMake tree, and the C++ build needs pybind11 for the module.
    "$python" -c 'import scikit_build_core, pybind11' 2>/dev/null ||
      "$python" "${pip_install[@]}" "scikit-build-core>=0.8" "pybind11>=2.10" || {
      echo "setup: could not install the build tools (scikit-build-core, pybind11) into $root/.venv;" \
        "without network, set HETPROBE_PYTHON to a Python that has them and the runtime packages" >&2
      return 1
    }
  fi
  hetprobe_command=$(dirname "$python")/hetprobe
}

# What the installed package is built from: its sources (tracked or new, as they
# are now), the revision it records, the interpreter and the build options.
package_fingerprint() {
  local paths=(pyproject.toml README.md CMakeLists.txt cmake base probes bench topology pybindings)
  (
    cd "$root"
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
      git ls-files -z --cached --others --exclude-standard -- "${paths[@]}" | xargs -0 sha1sum 2>/dev/null
      git describe --always --dirty --abbrev=12 2>/dev/null
    else
      find "${paths[@]}" -type f -not -name '*.pyc' -print0 | sort -z | xargs -0 sha1sum
    fi
    "$python" -c 'import sys; print(sys.executable, sys.version)'
    echo "${SKBUILD_CMAKE_DEFINE:-} ${CMAKE_ARGS:-} ${HETPROBE_GIT_REVISION:-} ${package_build_dir:-}"
  ) | sha1sum | cut -d' ' -f1
}

setup_python_package() {
  local stamp fingerprint from_tree=()
  stamp=$root/build/python/install-$(printf '%s' "$python" | sha1sum | cut -c1-12).stamp
  fingerprint=$(package_fingerprint)
  if [[ -x $hetprobe_command && -f $stamp && $(<"$stamp") == "$fingerprint" ]] &&
     "$python" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("hetprobe") is None)' 2>/dev/null; then
    echo "setup: the hetprobe package in $python's environment is up to date" >&2
    return
  fi
  rm -f "$stamp"
  if [[ -n ${package_build_dir:-} ]]; then
    # setup.sh's tree, built a moment ago with the module: scikit-build-core
    # configures it again with the same options (tests too, as setup.sh builds
    # them), finds nothing to compile, and installs from it.
    from_tree=(--config-settings=build-dir="$package_build_dir" --config-settings=cmake.define.HETPROBE_ENABLE_TESTS=ON)
    echo "setup: pip install . from $package_build_dir (numpy, pandas and matplotlib downloaded the first time: about a minute)" >&2
  else
    echo "setup: pip install . (builds the C++ in build/python: minutes the first time, silent)" >&2
  fi
  # Checked here, not left to `set -e`: a caller that sources this file inside
  # a condition (tests/gpu/common.sh's `need`) runs it with errexit off.
  if [[ -z ${HETPROBE_PYTHON:-} ]]; then
    "$python" "${pip_install[@]}" --no-build-isolation "${from_tree[@]}" "$root" || {
      echo "setup: pip install . failed (above)" >&2
      return 1
    }
  else
    echo "setup: installing hetprobe into $python's environment (no downloads)" >&2
    "$python" "${pip_install[@]}" --no-build-isolation --no-deps "${from_tree[@]}" "$root" || {
      echo "setup: pip install . into $python's environment failed (above)" >&2
      return 1
    }
  fi
  mkdir -p "$(dirname "$stamp")"
  printf '%s' "$fingerprint" >"$stamp"
}

# setup_python_extra EXTRA: the requirements of one of the package's extras
# (pyproject.toml's optional-dependencies), read from the installed package's
# metadata, so the package itself is not built or installed again.
setup_python_extra() {
  local requirements
  if [[ -n ${HETPROBE_PYTHON:-} ]]; then
    echo "setup: the $1 extra is not installed into $python's environment (no downloads)" >&2
    return
  fi
  mapfile -t requirements < <("$python" - "$1" <<'PY'
import sys
from importlib.metadata import requires

for requirement in requires("hetprobe") or []:
    name, _, marker = requirement.partition(";")
    if marker.replace(" ", "").replace("'", '"') == f'extra=="{sys.argv[1]}"':
        print(name.strip())
PY
  )
  if ((${#requirements[@]} == 0)); then
    echo "setup: the hetprobe package has no extra named $1" >&2
    return 1
  fi
  "$python" "${pip_install[@]}" "${requirements[@]}"
}

# Says how to run `hetprobe`. Set-up links nothing into a shared bin folder: a
# link there would tie every shell to one clone, point a second clone's user
# at the first clone's build, and dangle once that clone is deleted. A dangling
# link an earlier set-up made (in one of old_link_dirs) is removed; one into
# another clone is named.
old_link_dirs=(/usr/local/bin "${HOME:-/nonexistent}/.local/bin")
hetprobe_path_hint() {
  local found bin_dir link target venv_bin
  venv_bin=$(dirname "$hetprobe_command")
  for bin_dir in "${old_link_dirs[@]}"; do
    link=$bin_dir/hetprobe
    [[ -L $link && ! -e $link ]] || continue
    target=$(readlink "$link")
    if [[ $target == */.venv/bin/hetprobe ]] && rm -f "$link" 2>/dev/null; then
      echo "setup: removed $link, a link an earlier set-up made into a clone that is gone ($target)" >&2
    fi
  done
  found=$(command -v hetprobe 2>/dev/null || true)
  if [[ -n $found && $(readlink -f "$found") == $(readlink -f "$hetprobe_command") ]]; then
    echo "setup: hetprobe is on PATH: $found" >&2
    return
  fi
  if [[ -n $found ]]; then
    target=$(readlink -f "$found")
    echo "setup: the hetprobe on PATH is another one: $found${target:+ -> $target}; this clone's is $hetprobe_command" >&2
    if [[ -L $found && $target == */.venv/bin/hetprobe ]]; then
      echo "  ($found is a link an earlier set-up made; \`rm $found\` unties PATH from that clone)" >&2
    fi
  fi
  echo "setup: to run this clone's hetprobe as \`hetprobe\` in a shell:" >&2
  if [[ -f $venv_bin/activate ]]; then
    echo "  source $venv_bin/activate        # or: export PATH=\"$venv_bin:\$PATH\"" >&2
  else
    echo "  export PATH=\"$venv_bin:\$PATH\"" >&2
  fi
}

if [[ -z ${setup_stages:-} ]]; then
  # Chained: sourced inside a condition, errexit is off and a failed step
  # would otherwise end with the hint's status, 0.
  setup_python_env && setup_python_package && hetprobe_path_hint
fi
