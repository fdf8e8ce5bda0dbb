#!/usr/bin/env bash
# run_toolkits.sh: the GPU proof of issue 15. Runs run_wheels.sh (each wheel installed alone,
# its pytest suite, then check_gpu.py in full: GPU == CPU reference for 1, 1,000 and 100,000
# triangles at 512x512 and 2048x2048) on tinyraster's cp312 and abi3 wheels of CUDA 11.8 and
# 12.4 (toolkits from Debian's archive) and 13.0, from DIST (default dist/).
# Usage: tests/gpu/run_toolkits.sh [DIST]
# The log goes to stdout and, when $OUT is set (the device tool), to
# $OUT/tinyraster-cu118-cu124-cu130.log, to be committed as docs/gpu/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dist=${1:-dist}
wheels=()
for cu in cu118 cu124 cu130; do
  for tag in cp312-cp312 cp310-abi3; do
    w=$(ls "$dist"/tinyraster-*+"$cu"-"$tag"-*.whl 2>/dev/null | head -1)
    [ -n "$w" ] || { echo "run_toolkits: no $cu $tag wheel in $dist" >&2; exit 2; }
    wheels+=("$w")
  done
done
log=${OUT:+$OUT/tinyraster-cu118-cu124-cu130.log}
if [ -n "$log" ]; then
  "$here/run_wheels.sh" "${wheels[@]}" 2>&1 | tee "$log"
else
  "$here/run_wheels.sh" "${wheels[@]}"
fi
