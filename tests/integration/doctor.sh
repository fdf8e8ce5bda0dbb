#!/usr/bin/env bash
# doctor.sh: `cuwheel doctor` on this machine finds CUDA 13.0 and the pyenv Pythons 3.10-3.13,
# its --json parses and says the same, a warm run reuses the probe cache, and with nothing to
# find it still runs, exits 1 and says where it looked.
set -euo pipefail
: "${CUWHEEL:?set CUWHEEL to the cuwheel binary}"
PY=$(command -v python3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CUWHEEL_CACHE_DIR="$tmp/cache"
fail() { echo "doctor.sh: FAIL: $*" >&2; exit 1; }

# A directory without pyproject.toml: defaults, cache in $CUWHEEL_CACHE_DIR/probes.
mkdir -p "$tmp/proj"
"$CUWHEEL" -C "$tmp/proj" doctor >"$tmp/out.txt" 2>"$tmp/err.txt" || { cat "$tmp/out.txt" "$tmp/err.txt"; fail "doctor exited $?"; }
grep -Eq '^  13\.0\.[0-9]+ ' "$tmp/out.txt" || fail "CUDA 13.0 not listed"
for v in 3.10 3.11 3.12 3.13; do
	grep -Eq "^  ${v//./\\.}\.[0-9]+ " "$tmp/out.txt" || { cat "$tmp/out.txt"; fail "Python $v not listed"; }
done
grep -q 'sm_75' "$tmp/out.txt" || fail "no SASS target summary"
grep -q 'Looked at:' "$tmp/out.txt" || fail "no 'Looked at' section"
[ -d "$CUWHEEL_CACHE_DIR/probes" ] || fail "probe cache not written"
ls "$CUWHEEL_CACHE_DIR"/probes/probe-*.json >/dev/null || fail "no probe-*.json"

# --json: the same facts, machine-readable; the second run answers from the cache.
"$CUWHEEL" -C "$tmp/proj" doctor --json >"$tmp/out.json"
"$PY" - "$tmp/out.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["ok"] is True, d.get("ok")
for key in ("toolkits", "pythons", "tools", "looked", "cache_dir", "cuwheel"):
    assert key in d, key
tk = [t for t in d["toolkits"] if (t["major"], t["minor"]) == (13, 0)]
assert tk, "no CUDA 13.0 in --json"
t = tk[0]
assert 75 in t["sm"] and 90 in t["sm"] and t["compute"], t
assert t["cudart_static"] is True and t["nvcc"].endswith("/bin/nvcc")
keys = {p["key"]: p for p in d["pythons"]}
for v in ("3.10", "3.11", "3.12", "3.13"):
    assert v in keys, (v, sorted(keys))
    p = keys[v]
    assert p["implementation"] == "cpython" and p["platform"] == "linux_x86_64", p
    assert p["ext_suffix"].startswith(".cpython-" + v.replace(".", "")), p
    assert p["torch"] is None  # not asked for
assert any("cached probe" in l["result"] for l in d["looked"]), "warm run did not use the cache"
names = {t["name"]: t for t in d["tools"]}
assert set(names) >= {"ninja", "ccache", "cc", "c++"}, names
assert names["cc"]["path"], "no C compiler found"
PYEOF

# --torch: every Python answers about torch (present or why not).
"$CUWHEEL" -C "$tmp/proj" doctor --json --torch >"$tmp/torch.json"
"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["pythons"] and all(p["torch"] is not None for p in d["pythons"]), d["pythons"]
' "$tmp/torch.json"

# Nothing to find: no PATH, no CUDA variables, an empty HOME, an empty cache. It still runs,
# exits 1, and names what is missing and where it looked.
set +e
env -i PATH=/nonexistent CUDA_HOME= CUDA_PATH= HOME="$tmp/home" \
	CUWHEEL_CACHE_DIR="$tmp/cache2" "$CUWHEEL" -C "$tmp/proj" doctor >"$tmp/none.txt" 2>"$tmp/none.err"
rc=$?
set -e
# /usr/local/cuda is still looked at (it is not on PATH): the toolkit may be found, the
# Pythons (PATH and pyenv under HOME only) may not.
[ "$rc" = 1 ] || { cat "$tmp/none.txt" "$tmp/none.err"; fail "expected exit 1, got $rc"; }
grep -q 'no usable Python interpreter' "$tmp/none.err" || { cat "$tmp/none.err"; fail "missing Python not named"; }
grep -q 'PATH' "$tmp/none.err" || fail "where it looked not listed"
grep -q 'Looked at:' "$tmp/none.txt" || fail "no report when nothing found"
env -i PATH=/nonexistent HOME="$tmp/home" CUWHEEL_CACHE_DIR="$tmp/cache2" \
	"$CUWHEEL" -C "$tmp/proj" doctor --json >"$tmp/none.json" 2>/dev/null || true
"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is False and d["pythons"] == [], d
assert any(l["where"] == "PATH" for l in d["looked"])
' "$tmp/none.json"

# Usage errors exit 2.
set +e
"$CUWHEEL" doctor --bogus >/dev/null 2>&1
[ $? = 2 ] || fail "unknown option did not exit 2"
set -e
echo "doctor.sh: ok"
