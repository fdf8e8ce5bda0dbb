#!/usr/bin/env bash
# Build stages (issue 8): kernels exported from one clone and imported into another give wheels
# byte-identical to a one-shot build in a third; an import whose sources differ is refused.
source "$(dirname "$0")/common.bash"
export CUWHEEL_MATRIX_CUDA=13.0 CUWHEEL_ARCHS="7.5" CUWHEEL_MATRIX_PYTHON="3.11 3.12" CUWHEEL_CCACHE=off
for c in one kernels wheels; do copy_project "$TMP/$c"; done

(cd "$TMP/one" && "$CUWHEEL" build --no-test > "$TMP/one.log" 2>&1) || { cat "$TMP/one.log"; fail "one-shot build"; }
(cd "$TMP/kernels" && "$CUWHEEL" build --stage kernels --export "$TMP/exported" > "$TMP/k.log" 2>&1) ||
  { cat "$TMP/k.log"; fail "kernels stage"; }
[ -f "$TMP/exported/manifest.json" ] || fail "no manifest"
ls "$TMP"/kernels/dist/*.whl >/dev/null 2>&1 && fail "the kernels stage made wheels"
grep -q '"sha256"' "$TMP/exported/manifest.json" || fail "manifest without hashes"
(cd "$TMP/wheels" && "$CUWHEEL" build --stage wheels --import "$TMP/exported" --no-test > "$TMP/w.log" 2>&1) ||
  { cat "$TMP/w.log"; fail "wheels stage"; }
grep -q '] nvcc ' "$TMP/w.log" && fail "the wheels stage compiled kernels"
n=0
for w in "$TMP"/one/dist/*.whl; do
  b="$TMP/wheels/dist/$(basename "$w")"
  [ -f "$b" ] || fail "wheels stage lacks $(basename "$w")"
  cmp -s "$w" "$b" || { python3 "$SRC/tests/integration/wheeldiff.py" "$w" "$b" || true
    fail "$(basename "$w") differs between the one-shot and the staged build"; }
  n=$((n+1))
done
[ "$n" = 3 ] || fail "expected 3 wheels (cp311, cp312, abi3), got $n"
pass "$n staged wheels byte-identical to the one-shot build"

# A kernel source that differs from the exported one is refused, and dist/ is untouched.
copy_project "$TMP/tampered"
echo '/* changed */' >> "$TMP/tampered/kernels/rasterize.cu"
if (cd "$TMP/tampered" && "$CUWHEEL" build --stage wheels --import "$TMP/exported" --no-test > "$TMP/t.log" 2>&1); then
  fail "import with a changed kernel source succeeded"
fi
grep -q 'kernels/rasterize.cu differs' "$TMP/t.log" || { cat "$TMP/t.log"; fail "message does not name the source"; }
[ ! -d "$TMP/tampered/dist" ] || [ -z "$(ls "$TMP/tampered/dist")" ] || fail "dist/ written after a refused import"
pass "a changed kernel source is refused by name"

# Other archs: refused with the reason.
if (cd "$TMP/wheels" && CUWHEEL_ARCHS="8.0" "$CUWHEEL" build --stage wheels --import "$TMP/exported" --no-test > "$TMP/a.log" 2>&1); then
  fail "import with other archs succeeded"
fi
grep -q 'built with other settings' "$TMP/a.log" || { cat "$TMP/a.log"; fail "arch mismatch message"; }
pass "an archive built for other archs is refused"
