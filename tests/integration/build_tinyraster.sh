#!/usr/bin/env bash
# The matrix build of tinyraster (issue 4): one kernel compile per toolkit, a wheel per Python
# (3.10-3.14; 3.14 is provisioned into cuwheel's cache by the build itself where no interpreter
# is found: issue 30) plus abi3, every wheel tested; and the incremental rebuilds ninja promises. The project sits
# in a directory whose name has spaces and non-ASCII characters.
source "$(dirname "$0")/common.bash"
proj="$TMP/proj with spaces é ü"
copy_project "$proj"
export CUWHEEL_MATRIX_CUDA=13.0 CUWHEEL_ARCHS="7.5;9.0+PTX"
cd "$proj"

"$CUWHEEL" build -j "$(nproc)" > "$TMP/build1.log" 2>&1 || { cat "$TMP/build1.log"; fail "first build"; }
cat "$TMP/build1.log" | tail -12
for py in 310 311 312 313 314; do
  ls dist/tinyraster-0.1.0+cu130-cp$py-cp$py-manylinux_2_*_x86_64.whl >/dev/null ||
    fail "no cp$py wheel in dist/"
done
ls dist/tinyraster-0.1.0+cu130-cp310-abi3-manylinux_2_*_x86_64.whl >/dev/null || fail "no abi3 wheel"
[ "$(ls dist | wc -l)" = 6 ] || fail "expected 6 wheels, got: $(ls dist)"
grep -q '6 built, 0 failed' "$TMP/build1.log" || fail "summary does not say 6 built"
for id in cp310-cu130 cp311-cu130 cp312-cu130 cp313-cu130 cp314-cu130 cp310-abi3-cu130; do
  [ -s "build/cuwheel/cells/$id-linux_x86_64/tested" ] || fail "$id was not tested"
done
# The abi3 wheel was tested on every Python of the matrix.
[ "$(grep -c pass "build/cuwheel/cells/cp310-abi3-cu130-linux_x86_64/tested")" = 5 ] ||
  fail "abi3 wheel not tested on 5 Pythons"
pass "6 wheels built and tested (cp314 by $(grep -o '/[^ ]*/python3.14' build/cuwheel/cells/cp314-cu130-linux_x86_64/tested | head -1 || echo '?'))"

# auditwheel (from PyPI) agrees with the platform tag cuwheel stamped.
tpy=$(tools_python)
for w in dist/*.whl; do
  tag=$(basename "$w" .whl | awk -F- '{print $NF}')
  got=$("$tpy" -m auditwheel show "$w" 2>&1 | tr '\n' ' ')
  policy=$(echo "$tag" | sed -E 's/^(manylinux_[0-9]+_[0-9]+)_x86_64$/\1/')
  echo "$got" | grep -q "\"$policy" || fail "auditwheel disagrees on $(basename "$w") ($tag): $got"
done
pass "auditwheel confirms the manylinux tag of all 6 wheels"

log=build/cuwheel/.ninja_log
n_cu=$(ls kernels/*.cu | wc -l)
[ "$(nvcc_steps "$log")" = "$n_cu" ] || fail "nvcc ran $(nvcc_steps "$log") times for $n_cu sources"
pass "kernels compiled once: $n_cu nvcc steps for 5 Pythons + abi3"

lines() { grep -vc '^#' "$log"; }
before=$(lines)
"$CUWHEEL" build --no-test > "$TMP/build2.log" 2>&1 || { cat "$TMP/build2.log"; fail "no-op build"; }
grep -q 'no work to do' "$TMP/build2.log" || fail "second build was not a no-op"
[ "$(lines)" = "$before" ] || fail "no-op build ran steps"
pass "no-op rebuild runs nothing"

# Touch one kernel: that file recompiles once, and every cell relinks.
sleep 1; touch kernels/interpolate.cu
"$CUWHEEL" build --no-test > "$TMP/build3.log" 2>&1 || { cat "$TMP/build3.log"; fail "rebuild after touch"; }
cu=$(grep -c '] nvcc .*interpolate.cu' "$TMP/build3.log" || true)
other_cu=$(grep -E '] nvcc ' "$TMP/build3.log" | grep -vc interpolate.cu || true)
links=$(grep -c '] link ' "$TMP/build3.log" || true)
bind=$(grep -c '] cc .*bindings/tinyraster.c' "$TMP/build3.log" || true)
[ "$cu" = 1 ] && [ "$other_cu" = 0 ] || fail "touching interpolate.cu ran nvcc $cu (+$other_cu other) times"
[ "$links" = 6 ] || fail "expected 6 relinks, got $links"
[ "$bind" = 0 ] || fail "binding recompiled $bind times after a kernel edit"
pass "touching one .cu: 1 nvcc, 6 links, 0 binding compiles"

# Edit the binding stub: five per-Python objects and the abi3 one, no kernel.
sleep 1; printf '\n/* edited by the incremental test */\n' >> bindings/tinyraster.c
"$CUWHEEL" build --no-test > "$TMP/build4.log" 2>&1 || { cat "$TMP/build4.log"; fail "rebuild after edit"; }
bind=$(grep -c '] cc .*bindings/tinyraster.c' "$TMP/build4.log" || true)
nv=$(grep -c '] nvcc ' "$TMP/build4.log" || true)
[ "$bind" = 6 ] || fail "expected 6 binding compiles (5 Pythons + abi3), got $bind"
[ "$nv" = 0 ] || fail "a binding edit ran nvcc $nv times"
pass "editing the binding: 6 binding compiles, 0 nvcc"

# A header edit reaches the kernels through the depfiles.
sleep 1; printf '\n/* edited */\n' >> kernels/raster_math.h
"$CUWHEEL" build --no-test > "$TMP/build5.log" 2>&1 || { cat "$TMP/build5.log"; fail "rebuild after header edit"; }
grep -q '] nvcc .*rasterize.cu' "$TMP/build5.log" || fail "header edit did not recompile rasterize.cu"
pass "header edits rebuild the kernels that include them"
