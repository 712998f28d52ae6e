#!/usr/bin/env bash
# no_internal_labels.sh HETPROBE: what a user reads (every command's --help,
# show's golden output, the docs, the README, the notebooks and the Python
# package) cites its sources as a reader can find them ("Elis et al. 2024,
# Table 1"), never by the project's internal labels ("paper 002", "thesis 003",
# DIGEST, a seed file's name). docs/references.md is the one page that names
# those labels: it is where a reader of the code looks them up.
set -uo pipefail
hp=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
labels='(paper|thesis) 0[0-9]{2}|DIGEST|[0-9]{3}_[0-9a-f]{16}'
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$hp" --help >"$work/help.txt" 2>&1
for c in interference notify clock halo bandwidth show devices topo; do "$hp" "$c" --help >>"$work/help.txt" 2>&1; done
shopt -s nullglob
docs=()
for f in "$root"/docs/*.md "$root"/docs/probes/*.md; do [[ $f == */docs/references.md ]] || docs+=("$f"); done
found=$(grep -EHn -- "$labels" "$work/help.txt" "$root"/tests/data/golden/* "${docs[@]}" "$root"/README.md \
  "$root"/pybindings/hetprobe/*.py "$root"/notebooks/*.ipynb | grep -v '"image/png"')
if [[ -n $found ]]; then
  echo "FAIL: internal labels in user-facing text (cite the source by author and year instead):"
  echo "$found" | cut -c1-300
  exit 1
fi
echo "OK: no internal labels in --help, show's output, the docs, the README, the notebooks or the package"
