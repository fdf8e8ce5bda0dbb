#!/usr/bin/env bash
# run_gsplat.sh: gsplat 1.5.3 from its PyPI sdist on the GPU machine (no network there: every
# input travels in DIR), built twice for the same Python, torch and arch -- by cuwheel (one
# `cuwheel build SDIST --config`) and by `pip wheel --no-build-isolation --no-deps` (gsplat's
# own setup.py, BuildExtension) -- then each wheel installed on its own beside torch and checked:
# tests/gpu/check_gsplat_gpu.py (projection, tile intersection, rasterization forward and
# backward against gsplat's pure-torch reference; outputs of the two wheels compared) and
# gsplat's own tests (tests/test_basic.py, test_2dgs.py of the v1.5.3 tag) with pytest.
#
#   tests/gpu/run_gsplat.sh build DIR OUT    # both wheels into OUT/, times in OUT/times.txt
#   tests/gpu/run_gsplat.sh test DIR OUT     # installs and checks the wheels in OUT/
#
# DIR holds gsplat-1.5.3.tar.gz, cuwheel-*.whl (tools/cuwheel-wheel), wheelhouse/ (setuptools,
# wheel, ninja, numpy, jaxtyping, rich, nerfacc, pytest 7.1.2 (gsplat's dev pin: pytest 9 refuses
# its marked fixtures) and their dependencies, for cp312) and
# gsplat-tests/{tests,assets}. PYTHON is the interpreter with torch (default
# /opt/torch/.venv/bin/python); ARCHS the arch list (default 9.0: the H100/H200); JOBS the
# parallelism of both builds (default: the cores). Both builds are cold: no ccache.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
stage=${1:?usage: run_gsplat.sh build|test DIR OUT}
dir=$(cd "${2:?DIR}" && pwd)
out=${3:?OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
py=${PYTHON:-/opt/torch/.venv/bin/python}
archs=${ARCHS:-9.0}
jobs=${JOBS:-$(nproc)}
work=${GSPLAT_WORK:-/tmp/gsplat-gpu}
mkdir -p "$work"
sdist="$dir/gsplat-1.5.3.tar.gz"
echo "== $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null)"
echo "== $("$py" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)')"
echo "== $(nproc) cores; nvcc: $(nvcc --version 2>/dev/null | tail -n 2 | head -n 1)"

# Tools beside (not inside) the torch environment: a --target dir put on PYTHONPATH.
tools="$work/tools"
if [ ! -d "$tools" ]; then
  # --no-deps: nerfacc and jaxtyping name torch, which is the interpreter's own.
  "$py" -m pip install -q --no-index --no-deps --target "$tools" "$dir"/wheelhouse/*.whl || exit 1
  # cuwheel's wheel keeps its libraries in the data scheme (lib/cuwheel beside bin/): a prefix.
  "$py" -m pip install -q --no-index --no-deps --prefix "$work/cuwheel" "$dir"/cuwheel-*.whl || exit 1
fi
cuwheel="$work/cuwheel/bin/cuwheel"
[ -x "$cuwheel" ] || { echo "no cuwheel in $work/cuwheel/bin"; exit 1; }

if [ "$stage" = build ]; then
  # The release engineer's config, with the matrix cut to the Python that has torch here.
  cfgdir="$work/cfg"
  rm -rf "$cfgdir" && mkdir -p "$cfgdir"
  sed -e 's/^python = .*/python = ["3.12"]/' "$root/examples/gsplat/gsplat.cuwheel.toml" \
    >"$cfgdir/gsplat.cuwheel.toml"
  printf '\n[tool.cuwheel.pythons]\n"3.12" = "%s"\n' "$py" >>"$cfgdir/gsplat.cuwheel.toml"
  "$cuwheel" --version
  t0=$(date +%s.%N)
  CUWHEEL_ARCHS="$archs" CUWHEEL_CCACHE=off "$cuwheel" build "$sdist" \
    --config "$cfgdir/gsplat.cuwheel.toml" -j "$jobs" --no-test >"$work/cuwheel.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  tail -n 15 "$work/cuwheel.log"
  [ $rc -eq 0 ] || { echo "cuwheel build failed ($rc)"; exit 1; }
  cp "$cfgdir"/dist/*.whl "$out/"
  n_cu=$(tar tzf "$sdist" | grep -c '^gsplat-1.5.3/gsplat/cuda/csrc/[^/]*\.cu$')
  n_nvcc=$(grep -v '^#' "$cfgdir"/build/cuwheel/.ninja_log | awk -F'\t' '{print $4}' | grep -c '\.cu\.o$')
  echo "cuwheel: $n_nvcc nvcc steps for $n_cu .cu files"

  # gsplat's own build: setup.py, torch's BuildExtension, the same arch and parallelism.
  rm -rf "$work/pip" && mkdir -p "$work/pip"
  t2=$(date +%s.%N)
  PYTHONPATH="$tools" PATH="$tools/bin:$PATH" TORCH_CUDA_ARCH_LIST="$archs" MAX_JOBS="$jobs" \
    "$py" -m pip wheel -q --no-build-isolation --no-deps --no-index -w "$work/pip" "$sdist" \
    >"$work/pip.log" 2>&1
  rc=$?
  t3=$(date +%s.%N)
  tail -n 5 "$work/pip.log"
  [ $rc -eq 0 ] || { echo "pip wheel failed ($rc)"; tail -n 40 "$work/pip.log"; exit 1; }
  for w in "$work"/pip/*.whl; do cp "$w" "$out/pip-$(basename "$w")"; done
  awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v j="$jobs" -v ar="$archs" 'BEGIN {
    printf "first wheel, cold, arch %s, -j %s: cuwheel %.0f s, pip wheel %.0f s (ratio %.2f)\n",
      ar, j, b - a, d - c, (d - c) / (b - a) }' | tee "$out/times.txt"
  ls -la "$out"
  exit 0
fi

# test: each wheel on its own --target beside torch, then the checks.
fails=0
rm -f "$work"/pytest-*.failed "$work"/*.pt
for w in "$out"/*.whl; do
  name=$(basename "$w")
  tag=cuwheel
  case $name in pip-*) tag=pip ;; esac
  site="$work/site-$tag"
  rm -rf "$site"
  # pip refuses a file name it cannot parse: the pip- prefix comes off in a copy.
  mkdir -p "$work/whl-$tag" && cp "$w" "$work/whl-$tag/${name#pip-}"
  "$py" -m pip install -q --no-index --no-deps --target "$site" "$work/whl-$tag/${name#pip-}" || {
    echo "RESULT $tag: install FAILED"; fails=$((fails + 1)); continue; }
  # Not the sdist's tree: the installed package, with its compiled gsplat/csrc.so.
  PYTHONPATH="$site:$tools" "$py" -c 'import gsplat, gsplat.csrc as c; print("imported", gsplat.__version__, c.__file__)' ||
    { fails=$((fails + 1)); continue; }
  echo "== $tag: check_gsplat_gpu.py"
  (cd "$work" && PYTHONPATH="$site:$tools" "$py" "$here/check_gsplat_gpu.py" dump "$work/$tag.pt")
  c=$?
  echo "== $tag: gsplat's tests (v1.5.3 tests/test_basic.py, tests/test_2dgs.py)"
  rm -rf "$work/t-$tag" && cp -r "$dir/gsplat-tests" "$work/t-$tag"
  (cd "$work/t-$tag" && PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONPATH="$site:$tools" timeout 420 "$py" -m pytest -q -p no:cacheprovider -p no:hypothesispytest \
     tests/test_basic.py tests/test_2dgs.py >"$work/pytest-$tag.log" 2>&1)
  t=$?
  grep -E "passed|failed|error" "$work/pytest-$tag.log" | tail -n 3
  grep -E "^FAILED|^ERROR" "$work/pytest-$tag.log" | sed 's/ - .*//' | sort >"$work/pytest-$tag.failed"
  echo "RESULT $tag: check_gsplat_gpu exit $c, pytest exit $t"
  [ $c -eq 0 ] || fails=$((fails + 1))
  # 0: all passed, 1: some failed (compared below); anything else: pytest did not run them.
  [ $t -le 1 ] || { fails=$((fails + 1)); rm -f "$work/pytest-$tag.failed"; tail -n 20 "$work/pytest-$tag.log"; }
done
if [ -f "$work/cuwheel.pt" ] && [ -f "$work/pip.pt" ]; then
  echo "== the two wheels' outputs"
  "$py" "$here/check_gsplat_gpu.py" compare "$work/pip.pt" "$work/cuwheel.pt" || fails=$((fails + 1))
fi
if [ -f "$work/pytest-cuwheel.failed" ] && [ -f "$work/pytest-pip.failed" ]; then
  if cmp -s "$work/pytest-cuwheel.failed" "$work/pytest-pip.failed"; then
    echo "gsplat's tests: the same outcome for both wheels ($(wc -l <"$work/pytest-pip.failed") failed in both)"
    cat "$work/pytest-pip.failed"
  else
    echo "gsplat's tests: outcomes differ"; diff "$work/pytest-pip.failed" "$work/pytest-cuwheel.failed"
    fails=$((fails + 1))
  fi
fi
cp "$work"/pytest-*.log "$out/" 2>/dev/null
exit $((fails > 0))
