#!/usr/bin/env bash
# hetprobe installed as HPC sites install tools (issue 36): EasyBuild builds
# bench/install/easybuild/hetprobe-0.1.0.eb from a tarball of this checkout
# (git archive HEAD) into a scratch install path with its module file, Lmod
# loads the module, and the module's hetprobe runs: --version, then
# `hetprobe characterize --quick` on the host backend. EasyBuild comes from
# PyPI into build/easybuild-venv, Lmod from apt, where either is missing.
#   tests/install/easybuild_module.sh
# pip compiles the tarball (minutes). It never reuses bench/setup.sh's build
# tree: CMake would point that tree at the tarball's scratch copy, and the
# developer's next build would fail once the scratch copy is gone.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
(($# == 0)) || { echo "usage: tests/install/easybuild_module.sh (no arguments)" >&2; exit 2; }
version=$(sed -n 's/^project(hetprobe VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
easyconfig=$root/bench/install/easybuild/hetprobe-$version.eb
[[ -f $easyconfig ]] || { echo "easybuild_module: no $easyconfig for version $version" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
logs=$root/build/easybuild-logs  # kept: eb's own log and characterize's output
mkdir -p "$logs"
# shellcheck source=installed_hetprobe.sh
source "$root/tests/install/installed_hetprobe.sh"
as_root=()
if [[ $(id -u) == 0 ]]; then  # CI's machine: EasyBuild refuses root unless told
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  as_root=(--allow-use-as-root-and-accept-consequences)
fi

lmod_init=/usr/share/lmod/lmod/init/bash
if [[ ! -f $lmod_init ]]; then
  # shellcheck source=/dev/null
  source "$root/bench/setup_apt.sh"
  apt_get install -y -q lmod >/dev/null
fi
venv=$root/build/easybuild-venv
if [[ ! -x $venv/bin/eb ]]; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check easybuild-framework==5.4.1 easybuild-easyblocks==5.4.1
fi
export PATH=$venv/bin:$PATH  # eb runs the first `python` on PATH: the venv's
# shellcheck source=/dev/null
source "$lmod_init"

mkdir -p "$work/sources/h/hetprobe"
git -C "$root" archive --prefix="hetprobe-$version/" -o "$work/sources/h/hetprobe/hetprobe-$version.tar.gz" HEAD
started=$SECONDS
# The host backend alone (scikit-build-core reads CMAKE_ARGS): the run below
# is on it, CI's own build compiles the GPU backends, and they would double
# this build's time. Without this, the easyconfig builds what nvcc and hipcc
# on PATH allow, as at a site.
export CMAKE_ARGS="-DHETPROBE_ENABLE_CUDA=OFF -DHETPROBE_ENABLE_HIP=OFF"
eb "$easyconfig" "${as_root[@]}" --prefix="$work/eb" --sourcepath="$work/sources" --installpath="$work/install" \
  --buildpath="$work/build" --tmpdir="$work/tmp" >"$logs/eb.log" 2>&1 || {
  find "$work/tmp" -name 'easybuild-*.log' -exec cp {} "$logs/" \; 2>/dev/null || true
  install_failed easybuild_module "$logs/eb.log"
}
echo "easybuild_module: eb built and installed hetprobe $version in $((SECONDS - started)) s"
module use "$work/install/modules/all"
module load hetprobe
installed_hetprobe_runs easybuild_module "$work/install" "$work" "$logs"
