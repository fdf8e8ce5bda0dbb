#!/usr/bin/env bash
# bench/pack.sh: `cuwheel pack` vs `python -m wheel pack` on the same ~250 MB tree, side by
# side in one run; prints both times (best of N) and the ratio.
#
# The tree: demo/_C.cpython-312-x86_64-linux-gnu.so, a ~240 MB blob made by concatenating the
# real ELF shared libraries of this machine (/usr/lib/x86_64-linux-gnu, sorted by name) - it
# is real machine code, symbol and relocation tables, which is what a CUDA extension's .so with
# its fatbin (SASS + tables) mostly holds; it is NOT a loadable library. Plus 400 small .py
# files. Both tools deflate at level 6 (wheel's default) and read a warm page cache.
# usage: bench/pack.sh [CUWHEEL] [RUNS]
#   env: BENCH_MB=240, BENCH_DIR=build/bench-pack, BENCH_PYTHON (a python with wheel)
#   e.g. taskset -c 0,1 bench/pack.sh   to measure on two cores of a bigger machine
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuwheel=$(realpath "${1:-${CUWHEEL:-$root/build/pack/cuwheel}}")
runs=${2:-2}
mb=${BENCH_MB:-240}
work=${BENCH_DIR:-$root/build/bench-pack}
py=${BENCH_PYTHON:-$root/build/venv/bin/python}
command -v "$py" > /dev/null || py=$("$root/tools/test-venv")
export SOURCE_DATE_EPOCH=1700000000

mkdir -p "$work"
proj=$work/proj stage=$work/stage wstage=$work/wstage
if [ ! -f "$work/.ready-$mb" ]; then
  rm -rf "$proj" "$stage" "$wstage"
  mkdir -p "$proj/demo" "$proj/src" "$stage/demo"
  cat > "$proj/pyproject.toml" <<TOML
[project]
name = "demo-pkg"
version = "1.0"
description = "pack benchmark"
requires-python = ">=3.10"
[tool.cuwheel]
packages = ["demo"]
[tool.cuwheel.extension]
module = "demo._C"
sources = ["src/ext.c"]
TOML
  touch "$proj/demo/__init__.py" "$proj/src/ext.c"
  so=$stage/demo/_C.cpython-312-x86_64-linux-gnu.so
  : > "$so"
  limit=$((mb * 1024 * 1024))
  find /usr/lib/x86_64-linux-gnu -maxdepth 1 -type f -name '*.so*' -size +100k | LC_ALL=C sort |
  while read -r f; do
    [ "$(stat -c %s "$so")" -ge "$limit" ] && break
    head -c 4 "$f" | grep -q ELF && cat "$f" >> "$so"
  done
  truncate -s "$limit" "$so"
  for i in $(seq 1 400); do
    sed -n "1,$((i % 200 + 20))p" "$root/tests/tools/pypi_zip_check.py" > "$stage/demo/mod_$i.py"
  done
  cp -al "$stage" "$wstage"
  mkdir -p "$wstage/demo_pkg-1.0.dist-info"
  printf 'Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n' > "$wstage/demo_pkg-1.0.dist-info/METADATA"
  printf 'Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: false\nTag: cp312-cp312-linux_x86_64\n' \
    > "$wstage/demo_pkg-1.0.dist-info/WHEEL"
  touch "$work/.ready-$mb"
fi
cat "$stage"/demo/* > /dev/null # warm the page cache for both
tree_mb=$(du -sm --apparent-size "$stage" | cut -f1)

now() { date +%s.%N; }
best_c=999999 best_w=999999
for r in $(seq 1 "$runs"); do
  rm -rf "$work/out-c" "$work/out-w"; mkdir -p "$work/out-w"
  t0=$(now)
  "$cuwheel" -C "$proj" pack "$stage" --tag cp312-cp312-linux_x86_64 --compression 6 \
    -o "$work/out-c" > /dev/null
  t1=$(now)
  "$py" -m wheel pack "$wstage" -d "$work/out-w" > /dev/null
  t2=$(now)
  c=$(awk "BEGIN{print $t1 - $t0}") w=$(awk "BEGIN{print $t2 - $t1}")
  best_c=$(awk "BEGIN{print ($c < $best_c) ? $c : $best_c}")
  best_w=$(awk "BEGIN{print ($w < $best_w) ? $w : $best_w}")
  printf 'run %d: cuwheel pack %.2fs   wheel pack %.2fs\n' "$r" "$c" "$w"
done
cw=$(ls "$work"/out-c/*.whl) ww=$(ls "$work"/out-w/*.whl)
"$py" "$root/tests/tools/pypi_zip_check.py" "$cw"
printf 'tree %d MB (%d CPUs)\n' "$tree_mb" "$(nproc)"
printf 'cuwheel pack : %6.2fs  %s MB\n' "$best_c" "$(du -m "$cw" | cut -f1)"
printf 'wheel pack   : %6.2fs  %s MB  (%s)\n' "$best_w" "$(du -m "$ww" | cut -f1)" \
  "$("$py" -m wheel version 2>/dev/null || echo wheel)"
printf 'ratio (wheel / cuwheel): %.2fx\n' "$(awk "BEGIN{print $best_w / $best_c}")"
