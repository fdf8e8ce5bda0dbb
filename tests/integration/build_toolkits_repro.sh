#!/usr/bin/env bash
# build_toolkits_repro.sh: the cu118 and cu124 cells of tinyraster (toolkits from Debian's
# archive, provisioned by the build itself when missing) built clean in two clones of the
# project, without ccache: the wheels are byte-identical; ninja's log shows each .cu compiled
# once per toolkit; every compile of a toolkit used the host compiler picked for it (the
# objects' .comment: gcc 11 for 11.8, the default gcc 12 for 12.4, binding included), and
# nvcc's own gcc version query (cudafe++ --gnu_version) sees the same gcc as -ccbin.
#
# Needs CUDA 11.8 and 12.4 in cuwheel's cache or deb.debian.org to provision them (else skips,
# exit 77), g++-11 for 11.8. Label: slow (about 3 min here on 2 shared cores).
source "$(dirname "$0")/common.bash"
cells=(--only 'cp312-cu118-*' --only 'cp310-abi3-cu118-*' --only 'cp312-cu124-*'
       --only 'cp310-abi3-cu124-*')
export CUWHEEL_MATRIX_CUDA="11.8 12.4" CUWHEEL_ARCHS="7.5;9.0+PTX" CCACHE_DISABLE=1
cache=$("$CUWHEEL" toolkit list --json)
have() { echo "$cache" | grep -q "\"version\": \"$1\."; }
if ! { have 11.8 && have 12.4; } && ! timeout 10 bash -c 'exec 3<>/dev/tcp/deb.debian.org/80' 2>/dev/null; then
  echo "skip: CUDA 11.8/12.4 not provisioned and deb.debian.org not reachable"; exit 77
fi
command -v g++-11 >/dev/null || { echo "skip: no g++-11 (tools/install-deps installs it)"; exit 77; }

for clone in a b; do
  copy_project "$TMP/$clone"
  (cd "$TMP/$clone" && "$CUWHEEL" build -j 2 --no-test "${cells[@]}" >"$TMP/$clone.log" 2>&1) ||
    { cat "$TMP/$clone.log"; fail "build in clone $clone"; }
done
grep -E "built|provisioning" "$TMP/a.log" | tail -3
na=$(ls "$TMP/a/dist" | wc -l)
[ "$na" = 4 ] || fail "expected 4 wheels, got $na: $(ls "$TMP/a/dist")"
for w in "$TMP"/a/dist/*.whl; do
  b="$TMP/b/dist/$(basename "$w")"
  [ -f "$b" ] || fail "clone b has no $(basename "$w")"
  cmp -s "$w" "$b" || fail "$(basename "$w") differs between the clones"
done
compgen -G "$TMP/a/dist/*+cu118-cp312-cp312-*.whl" >/dev/null &&
  compgen -G "$TMP/a/dist/*+cu124-cp310-abi3-*.whl" >/dev/null ||
  fail "wrong wheel names: $(ls "$TMP/a/dist")"
pass "4 wheels (+cu118, +cu124; cp312 and abi3) byte-identical across two clean clones"

cd "$TMP/a/build/cuwheel" || fail "no build dir"
for tk in 118 124; do
  n=$(grep -v '^#' .ninja_log | awk -F'\t' '{print $4}' | grep "^kernels/cu$tk-.*\.cu\.o$" | sort -u | wc -l)
  all=$(grep -v '^#' .ninja_log | awk -F'\t' '{print $4}' | grep -c "^kernels/cu$tk-.*\.cu\.o$")
  n_cu=$(ls "$TMP/a/kernels"/*.cu | wc -l)
  [ "$n" = "$n_cu" ] && [ "$all" = "$n_cu" ] || fail "cu$tk: $all nvcc steps for $n_cu .cu files"
done
pass "each .cu compiled once per toolkit ($n_cu x 2 nvcc steps)"

comment() { readelf -p .comment "$1" | grep -o 'GCC: .*' | sort -u; }
for o in kernels/cu118-*/obj/*/*/*.o cells/*-cu118-*/obj/*/*/*.o; do
  comment "$o" | grep -q ') 11\.' || fail "$o not compiled by gcc 11: $(comment "$o")"
done
for o in kernels/cu124-*/obj/*/*/*.o cells/*-cu124-*/obj/*/*/*.o; do
  comment "$o" | grep -q ') 12\.' || fail "$o not compiled by gcc 12: $(comment "$o")"
done
grep -q -- "-ccbin g++-11" build.ninja || fail "no -ccbin g++-11 in build.ninja"
pass "objects' .comment: gcc 11 for every 11.8 object (kernels and binding), gcc 12 for 12.4"

# The list taken before the builds lacks 11.8 when the builds provisioned it: ask again.
nvcc118=$("$CUWHEEL" toolkit list --json | grep -o '"path": "[^"]*11\.8\.[0-9]*"' | cut -d'"' -f4) ||
  fail "toolkit list names no CUDA 11.8 after the builds"
echo '__global__ void k() {}' >"$TMP/k.cu"
gv=$("$nvcc118/bin/nvcc" -ccbin g++-11 --dryrun -c "$TMP/k.cu" -o "$TMP/k.o" 2>&1 |
     grep -o -- '--gnu_version=[0-9]*' | sort -u || true)
[ "$gv" = "--gnu_version=$(g++-11 -dumpfullversion | awk -F. '{printf "%d%02d%02d", $1, $2, $3}')" ] ||
  fail "cudafe++ sees $gv, not g++-11"
pass "nvcc 11.8 with -ccbin g++-11 gives cudafe++ $gv"
