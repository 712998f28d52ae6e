# The Python package (sourced after setup.sh): `pip install .` into a venv
# at $root/.venv with the test tools (the test extra: pytest, and the pinned
# clang-format and ruff of tests/format_check.sh), or, on a machine with a
# ready Python environment and no network, into $HETPROBE_PYTHON's
# environment as it is (no test tools installed).
# Installs again only when the package's sources (or the interpreter, or the
# build options) changed since the last install. Then makes sure `hetprobe`
# can be found: on PATH already, a link in ~/.local/bin (/usr/local/bin as
# root) when that folder is on PATH, or else the exact `export PATH` to type.
# Sets $python (the interpreter) and $hetprobe_command (the hetprobe command).
python=${HETPROBE_PYTHON:-}
if [[ -z $python ]]; then
  [[ -x $root/.venv/bin/python ]] || python3 -m venv "$root/.venv"
  python=$root/.venv/bin/python
fi
hetprobe_command=$(dirname "$python")/hetprobe

# What the installed package is built from: its sources (tracked or new, as they
# are now), the revision it records, the interpreter and the build options.
package_fingerprint() {
  local paths=(pyproject.toml README.md CMakeLists.txt cmake probes bench topology pybindings)
  (
    cd "$root"
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
      git ls-files -z --cached --others --exclude-standard -- "${paths[@]}" | xargs -0 sha1sum 2>/dev/null
      git describe --always --dirty --abbrev=12 2>/dev/null
    else
      find "${paths[@]}" -type f -not -name '*.pyc' -print0 | sort -z | xargs -0 sha1sum
    fi
    "$python" -c 'import sys; print(sys.executable, sys.version)'
    echo "${SKBUILD_CMAKE_DEFINE:-} ${CMAKE_ARGS:-} ${HETPROBE_GIT_REVISION:-}"
  ) | sha1sum | cut -d' ' -f1
}
install_stamp=$root/build/python/install-$(printf '%s' "$python" | sha1sum | cut -c1-12).stamp
fingerprint=$(package_fingerprint)
if [[ -x $hetprobe_command && -f $install_stamp && $(<"$install_stamp") == "$fingerprint" ]] &&
   "$python" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("hetprobe") is None)' 2>/dev/null; then
  echo "setup: the hetprobe package in $python's environment is up to date" >&2
else
  rm -f "$install_stamp"
  if [[ -z ${HETPROBE_PYTHON:-} ]]; then
    # The build requirements first: the install below builds without isolation,
    # so a second run reuses the CMake tree in build/python.
    "$python" -m pip install -q --disable-pip-version-check "scikit-build-core>=0.8" "pybind11>=2.10"
    "$python" -m pip install -q --disable-pip-version-check --no-build-isolation "$root[test]"
  else
    echo "setup: installing hetprobe into $python's environment (no downloads)" >&2
    "$python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps "$root"
  fi
  mkdir -p "$(dirname "$install_stamp")"
  printf '%s' "$fingerprint" >"$install_stamp"
fi

# `hetprobe` on PATH: this one already, or a link in the user's (root: the
# system's) local bin folder when that folder is on PATH; never replaces
# another hetprobe there.
put_hetprobe_on_path() {
  local found bin_dir
  found=$(command -v hetprobe 2>/dev/null || true)
  if [[ -n $found && $(readlink -f "$found") == $(readlink -f "$hetprobe_command") ]]; then
    echo "setup: hetprobe is on PATH: $found" >&2
    return
  fi
  if [[ $(id -u) == 0 ]]; then bin_dir=/usr/local/bin; else bin_dir=${HOME:-/nonexistent}/.local/bin; fi
  # (-e is false for a link whose venv is gone: that one is replaced.)
  if [[ -z $found && :$PATH: == *:$bin_dir:* && ! -e $bin_dir/hetprobe ]] &&
     mkdir -p "$bin_dir" 2>/dev/null && ln -sfn "$hetprobe_command" "$bin_dir/hetprobe" 2>/dev/null; then
    echo "setup: hetprobe is on PATH: $bin_dir/hetprobe -> $hetprobe_command" >&2
    return
  fi
  [[ -n $found ]] && echo "setup: the hetprobe first on PATH is another one: $found" >&2
  echo "setup: hetprobe is $hetprobe_command; to run it as \`hetprobe\`:" >&2
  echo "  export PATH=\"$(dirname "$hetprobe_command"):\$PATH\"" >&2
}
put_hetprobe_on_path
