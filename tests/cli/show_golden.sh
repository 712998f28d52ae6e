#!/usr/bin/env bash
# Golden output of `hetprobe show`: the tables it prints from the committed
# results (notebooks/data), byte for byte, against tests/data/golden/. Every
# results file, and a characterize run directory (its frozen copy in
# tests/data/runs, whose files stay as written, uncompressed) as a table; one file of each
# probe in every other --format (CSV: one file per table, as show --out writes).
#   show_golden.sh HETPROBE            compare (ctest cli.show_golden)
#   show_golden.sh --update HETPROBE   write the golden files again
# After a deliberate change to show's output: tests/cli/update_golden.sh,
# then review the change with git diff tests/data/golden.
set -euo pipefail
update=0
if [[ ${1:-} == --update ]]; then update=1; shift; fi
hp=$(realpath "$1")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
golden=$root/tests/data/golden
# Paths relative to the repository root, as run from there: headings name them.
cd "$root"
data=notebooks/data
frozen_run=tests/data/runs/h200x2-characterize

# PATH FORMAT: one `hetprobe show PATH --format FORMAT`.
cases=()
for f in "$data"/*.jsonl* "$data"/h200x2-load/*.jsonl* "$data"/h200x2-halo/paper-1.jsonl.gz "$frozen_run"; do cases+=("$f table"); done
# Across hosts: a pair with the TCP stall warned of, and a merged file of 6 pairs.
cases+=("$data/testbed-tcp/bound-core.jsonl table" "$data/testbed-tcp/pairs-merged.jsonl table")
for f in h200-interference-sweep.jsonl.gz h200-notify.jsonl.gz h200-clock.jsonl h200x2-halo/paper-1.jsonl.gz h200-bandwidth.jsonl; do
  for format in csv json markdown; do cases+=("$data/$f $format"); done
done
cases+=("$frozen_run json")

# The golden file of PATH FORMAT: PATH under notebooks/data (or tests/data/runs) less .jsonl(.gz), / as __,
# the format's extension.
# CSV holds one table: each table is its own file (show --out), NAME.TABLE.csv.
golden_name() {
  local name=${1#"$data"/} ext
  name=${name#tests/data/runs/}
  name=${name%.gz}
  name=${name%.jsonl}
  case $2 in table) ext=txt ;; markdown) ext=md ;; *) ext=$2 ;; esac
  echo "${name//\//__}.$ext"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/out"
failed=()
for c in "${cases[@]}"; do
  read -r path format <<<"$c"
  name=$(golden_name "$path" "$format")
  if [[ $format == csv ]]; then
    rm -rf "$work/csv"
    "$hp" show "$path" --out "$work/csv" 2>/dev/null || { failed+=("$name (show --out exited $?)"); continue; }
    for f in "$work/csv"/*.csv; do cp "$f" "$work/out/${name%.csv}.$(basename "$f")"; done
  else
    "$hp" show "$path" --format "$format" >"$work/out/$name" || failed+=("$name (show exited $?)")
  fi
done
if ((update)); then
  mkdir -p "$golden"
  rm -f "$golden"/*
  cp "$work/out"/* "$golden/"
  echo "wrote $(ls "$work/out" | wc -l) golden files of ${#cases[@]} cases in $golden"
  exit 0
fi
for out in "$work/out"/*; do
  name=$(basename "$out")
  if [[ ! -f $golden/$name ]]; then
    failed+=("$name (no golden file: tests/data/golden/$name)")
  elif ! diff -u "$golden/$name" "$out" >"$work/$name.diff"; then
    echo "FAIL: hetprobe show's output differs from tests/data/golden/$name:"
    head -n 40 "$work/$name.diff"
    failed+=("$name")
  fi
done
# A golden file no case writes is a stale one.
for g in "$golden"/*; do
  [[ -e $work/out/$(basename "$g") ]] || failed+=("$(basename "$g") (no case writes it: remove it)")
done
if ((${#failed[@]})); then
  printf 'FAIL: %s\n' "${failed[@]}"
  echo "If the change is meant: tests/cli/update_golden.sh, then review git diff tests/data/golden"
  exit 1
fi
echo "OK: $(ls "$work/out" | wc -l) outputs of show (${#cases[@]} cases) match tests/data/golden"
