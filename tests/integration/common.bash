# common.bash: helpers for the integration tests (sourced; not a test itself).
set -euo pipefail
: "${CUWHEEL:?set CUWHEEL to the cuwheel binary (CTest does)}"
SRC=${CUWHEEL_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cuwheel-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# copy_project DEST: a copy of tinyraster (examples/tinyraster, the demo project) at DEST.
copy_project() {
  local dest=$1
  mkdir -p "$dest"
  local tr="$SRC/examples/tinyraster"
  cp -r "$tr/pyproject.toml" "$tr/LICENSE" "$tr/kernels" "$tr/bindings" "$tr/python" "$dest/"
  find "$dest" -name __pycache__ -prune -exec rm -rf {} +
}

# nvcc_steps LOG: the kernel objects compiled by nvcc recorded in a .ninja_log.
nvcc_steps() { grep -v '^#' "$1" | awk -F'\t' '{print $4}' | grep -c '\.cu\.o$' || true; }

# tools_python: the venv with the validators (auditwheel, twine, ...), created if missing.
tools_python() {
  if [ -x "$SRC/build/venv/bin/python" ]; then echo "$SRC/build/venv/bin/python"; else "$SRC/tools/test-venv"; fi
}
