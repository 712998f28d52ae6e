#!/usr/bin/env bash
# hetprobe's Spack package (bench/install/spack) tried with the Spack at
# SPACK_ROOT: `spack dev-build` of a tarball of this checkout (git archive
# HEAD), then `spack load hetprobe`, and its hetprobe runs --version and
# `hetprobe characterize --quick` on the host backend.
#   tests/install/spack_package.sh SPACK_ROOT
# Spack works from a configuration scope and install tree of its own, in a
# scratch folder, so the given Spack keeps its own. The dependencies are
# externals: the OS's compilers, CMake, Ninja, Python, Open MPI, hwloc, CLI11,
# nlohmann-json and zlib (what bench/setup.sh installs; versions from dpkg, so
# Debian and Ubuntu only), and numpy, pandas, matplotlib, pybind11,
# scikit-build-core, pip, setuptools and wheel installed by pip into a prefix
# of their own. Spack builds hetprobe alone (and its gcc-runtime and
# python-venv). Not a CI stage: CI's machine has no Spack (docs/setup.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
usage="usage: tests/install/spack_package.sh SPACK_ROOT (a Spack checkout)"
(($# == 1)) || { echo "$usage" >&2; exit 2; }
[[ -x $1/bin/spack ]] || { echo "spack_package: no bin/spack in $1; $usage" >&2; exit 2; }
spack_root=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
logs=$root/build/spack-logs # kept: Spack's configuration, its build log and characterize's output
rm -rf "$logs" && mkdir -p "$logs"
mkdir -p "$work/config"
# shellcheck source=installed_hetprobe.sh
source "$root/tests/install/installed_hetprobe.sh"
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

# Spack's own Python, with clingo (its concretizer) from PyPI.
venv=$work/spack-python
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check clingo
export SPACK_PYTHON=$venv/bin/python SPACK_DISABLE_LOCAL_CONFIG=1
spack() { "$spack_root/bin/spack" -C "$work/config" "$@"; }

# The Python packages, as a site's pip-installed prefix. For a prefix, Spack
# looks where the external Python's own scheme puts packages: on Debian,
# local/lib/pythonX.Y/dist-packages, so that name points at pip's folder.
pyext=$work/python-packages
"$venv/bin/pip" install -q --disable-pip-version-check --ignore-installed --prefix "$pyext" \
  pip setuptools wheel numpy pandas matplotlib pybind11 scikit-build-core
pyver=python$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
mkdir -p "$pyext/local/lib/$pyver"
ln -sfn "$pyext/lib/$pyver/site-packages" "$pyext/local/lib/$pyver/dist-packages"

deb_version() { dpkg-query -W -f='${Version}' "$1" | sed -E 's/^[0-9]+://; s/[-+~].*//; s/\.dfsg.*//'; }
py_version() { "$venv/bin/pip" list --path "$pyext/lib/$pyver/site-packages" 2>/dev/null | awk -v n="$1" '$1 == n {print $2}'; }
external() { printf '  %s:\n    externals: [{spec: %s@%s, prefix: %s}]\n    buildable: false\n' "$1" "$1" "$2" "$3"; }
{
  printf 'packages:\n  mpi:\n    buildable: false\n  zlib-api:\n    require: zlib\n'
  external python "$(python3 -c 'import platform; print(platform.python_version())')" /usr
  external cmake "$(deb_version cmake)" /usr
  external ninja "$(deb_version ninja-build)" /usr
  external openmpi "$(deb_version openmpi-bin)" /usr
  external hwloc "$(deb_version libhwloc-dev)" /usr
  external cli11 "$(deb_version libcli11-dev)" /usr
  external nlohmann-json "$(deb_version nlohmann-json3-dev)" /usr
  external zlib "$(deb_version zlib1g-dev)" /usr
  for p in pip setuptools wheel numpy pandas matplotlib pybind11 scikit_build_core; do
    external "py-${p//_/-}" "$(py_version "$p")" "$pyext"
  done
} >"$work/config/packages.yaml"
printf 'config:\n  install_tree:\n    root: %s\n' "$work/install" >"$work/config/config.yaml"
printf 'repos:\n  - %s\n' "$root/bench/install/spack" >"$work/config/repos.yaml"
spack compiler find >"$logs/compilers.txt"
cp "$work/config/"*.yaml "$logs/"
echo "spack_package: Spack $(spack --version); its configuration in $logs"

mkdir -p "$work/src"
git -C "$root" archive HEAD | tar -x -C "$work/src"
started=$SECONDS
(cd "$work/src" && spack dev-build -d "$work/src" hetprobe@main ~cuda ~rocm) >"$logs/install.log" 2>&1 ||
  install_failed spack_package "$logs/install.log"
echo "spack_package: spack built and installed hetprobe in $((SECONDS - started)) s"
# shellcheck source=/dev/null
source <(spack load --sh hetprobe)
installed_hetprobe_runs spack_package "$work/install" "$work" "$logs"
