#!/usr/bin/env bash
# A real multi-toolkit matrix on one machine (issue 5): the system CUDA 13.0 plus CUDA 13.1-13.3
# provisioned from PyPI by the build itself, x Python 3.10-3.13, plus an abi3 wheel per toolkit:
# 20 wheels from one `cuwheel build`, each toolkit's kernels compiled once, every wheel tested
# (abi3 ones on all four Pythons). One arch keeps the compile short; the default build of the
# README uses the full list and every 13.x PyPI offers.
source "$(dirname "$0")/common.bash"
proj="$TMP/proj"
copy_project "$proj"
# Python 3.10-3.13 only: this test is about toolkits; cp314 (a provisioned interpreter) is
# build_tinyraster.sh's.
export CUWHEEL_MATRIX_CUDA="13.0 13.1 13.2 13.3" CUWHEEL_ARCHS="7.5"
export CUWHEEL_MATRIX_PYTHON="3.10 3.11 3.12 3.13"
cd "$proj"

"$CUWHEEL" plan > "$TMP/plan.log" 2>&1 || { cat "$TMP/plan.log"; fail "plan"; }
cells=$(grep -cE '^cp3[0-9]+-' "$TMP/plan.log")
[ "$cells" = 20 ] || fail "plan has $cells cells, expected 20"

"$CUWHEEL" build -k > "$TMP/build.log" 2>&1 || { tail -60 "$TMP/build.log"; fail "multi-toolkit build"; }
tail -26 "$TMP/build.log"
n=$(ls dist/*.whl | wc -l)
[ "$n" = 20 ] || fail "expected 20 wheels, got $n"
for cu in 130 131 132 133; do
  [ "$(ls dist/*+cu$cu-*.whl | wc -l)" = 5 ] || fail "expected 5 +cu$cu wheels"
  ls dist/tinyraster-0.1.0+cu$cu-cp310-abi3-manylinux_2_*_x86_64.whl >/dev/null || fail "no cu$cu abi3 wheel"
done
grep -q '20 built, 0 failed' "$TMP/build.log" || fail "summary does not say 20 built"
pass "20 wheels from one build over 4 toolkits"

tested=0
for stamp in build/cuwheel/cells/*/tested; do
  tested=$((tested + $(grep -c ' pass ' "$stamp")))
done
# 16 per-Python wheels on their own Python + 4 abi3 wheels on 4 Pythons each.
[ "$tested" = 32 ] || fail "expected 32 passing (wheel, Python) test runs, got $tested"
pass "every wheel tested: $tested (wheel, Python) runs passed"

# Each toolkit's kernels were compiled once: 3 .cu files per toolkit, 4 toolkits.
log=build/cuwheel/.ninja_log
for dir in build/cuwheel/kernels/cu13*; do
  key=$(basename "$dir")
  k=$(grep -v '^#' "$log" | awk -F'\t' '{print $4}' | grep "^kernels/$key/" | grep -c '\.cu\.o$' || true)
  [ "$k" = 3 ] || fail "toolkit archive $key: $k nvcc steps, expected 3"
done
[ "$(nvcc_steps "$log")" = 12 ] || fail "expected 12 nvcc steps in all, got $(nvcc_steps "$log")"
pass "each toolkit's kernels compiled once (12 nvcc steps for 20 wheels)"

# The provisioned toolkits were found like any other, with their real versions.
"$CUWHEEL" doctor --json > "$TMP/doctor.json"
for v in 13.1 13.2 13.3; do
  grep -q "\"version\": \"$v\." "$TMP/doctor.json" || fail "doctor does not list CUDA $v"
done
pass "provisioned toolkits 13.1-13.3 discovered with their versions"
