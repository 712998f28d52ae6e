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
eb "$easyconfig" "${as_root[@]}" --prefix="$work/eb" --sourcepath="$work/sources" --installpath="$work/install" \
  --buildpath="$work/build" --tmpdir="$work/tmp" >"$logs/eb.log" 2>&1 || {
  tail -n 40 "$logs/eb.log" >&2
  find "$work/tmp" -name 'easybuild-*.log' -exec cp {} "$logs/" \; 2>/dev/null || true
  echo "easybuild_module: eb failed (logs: $logs)" >&2
  exit 1
}
echo "easybuild_module: eb built and installed hetprobe $version in $((SECONDS - started)) s"
module use "$work/install/modules/all"
module load hetprobe
echo "easybuild_module: module load hetprobe: $(command -v hetprobe)"
[[ $(command -v hetprobe) == "$work/install/"* ]] || { echo "easybuild_module: hetprobe is not the module's" >&2; exit 1; }
hetprobe --version
cd "$work"
hetprobe characterize --quick --device host "$work/run" >"$logs/characterize.txt" 2>&1 || {
  tail -n 30 "$logs/characterize.txt" >&2
  echo "easybuild_module: characterize --quick failed" >&2
  exit 1
}
grep -q "run directory: $work/run" "$logs/characterize.txt"
[[ -f $work/run/summary.txt && -f $work/run/report.md ]]
echo "easybuild_module: the module's hetprobe characterize --quick wrote $work/run (report and summary)"
