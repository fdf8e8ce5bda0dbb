#!/usr/bin/env bash
# run_wheels.sh: on a machine with an NVIDIA GPU, installs each given tinyraster wheel into its
# own directory (pip --no-index, nothing else), runs the package's tests and check_gpu.py, and
# prints one line per wheel. Usage: tests/gpu/run_wheels.sh [--quick] WHEEL...
# PYTHON selects the interpreter (default python3); it needs pytest (numpy optional).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
quick=()
if [ "${1:-}" = "--quick" ]; then quick=(--quick); shift; fi
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null || true
"$py" -c 'import sys; print("python", sys.version.split()[0])'
fails=0
for whl in "$@"; do
  name=$(basename "$whl")
  site=$(mktemp -d)
  if ! "$py" -m pip install -q --no-index --no-deps --target "$site" "$whl" 2>&1; then
    echo "RESULT $name: install FAILED"; fails=$((fails+1)); continue
  fi
  (cd "$site" && PYTHONPATH="$site" "$py" -m pytest -q -p no:cacheprovider "$here/../../examples/tinyraster/python/tests" \
     > "$site/pytest.log" 2>&1); t=$?
  (cd "$site" && PYTHONPATH="$site" "$py" "$here/check_gpu.py" "${quick[@]}" > "$site/gpu.log" 2>&1); g=$?
  echo "== $name"; tail -n 3 "$site/pytest.log"; cat "$site/gpu.log"
  if [ $t -eq 0 ] && [ $g -eq 0 ]; then echo "RESULT $name: ok (pytest + GPU == CPU)"
  else echo "RESULT $name: FAILED (pytest exit $t, check_gpu exit $g)"; fails=$((fails+1)); fi
  rm -rf "$site"
done
exit $((fails > 0))
