# The Python package (sourced after setup.sh): `pip install .` into a venv
# at $root/.venv with the test tools, or, on a machine with a ready Python
# environment and no network, into $HETPROBE_PYTHON's environment as it is.
# Sets $python (the interpreter) and $hetprobe_command (the hetprobe command).
python=${HETPROBE_PYTHON:-}
if [[ -z $python ]]; then
  [[ -x $root/.venv/bin/python ]] || python3 -m venv "$root/.venv"
  python=$root/.venv/bin/python
  # The build requirements first: the install below builds without isolation,
  # so a second run reuses the CMake tree in build/python.
  "$python" -m pip install -q --disable-pip-version-check "scikit-build-core>=0.8" "pybind11>=2.10"
  "$python" -m pip install -q --disable-pip-version-check --no-build-isolation "$root[test]"
else
  echo "setup: installing hetprobe into $python's environment (no downloads)" >&2
  "$python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps "$root"
fi
hetprobe_command=$(dirname "$python")/hetprobe
