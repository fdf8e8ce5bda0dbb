#!/usr/bin/env bash
# toolkit_debian.sh: CUDA 11.8 provisioned from Debian's archive into a temporary cache, and
# every way that can go wrong, table-driven: an unknown version, a version no source has
# (12.6), an unreachable archive (a closed local port), a .deb whose sha256 differs from the
# lock's, apt-get or dpkg-deb missing, no host compiler the toolkit accepts, an install killed
# midway. Each is a clear error and leaves no toolkit behind. Then the install itself: the
# marker records the source, package versions and sha256 of the lock; /etc/apt, dpkg's
# database and the system's apt cache are unchanged (nothing installed system-wide). (Someone
# else installing Debian packages on the machine during the test would also change them.)
#
# Needs deb.debian.org (about 860 MB for 11.8; 30-60 s here) or skips (exit 77). Label: slow.
source "$(dirname "$0")/common.bash"
export CUWHEEL_CACHE_DIR=$TMP/cache
tks=$CUWHEEL_CACHE_DIR/toolkits
lock=$SRC/toolchain/toolkits.lock.json
python=$(command -v python3)
for t in apt-get dpkg-deb tar; do
  command -v $t >/dev/null || { echo "skip: no $t (not a Debian machine)"; exit 77; }
done
if ! timeout 10 bash -c 'exec 3<>/dev/tcp/deb.debian.org/80' 2>/dev/null; then
  echo "skip: deb.debian.org is not reachable"; exit 77
fi

# A copy of the lock with one change (python expression on the 11.8 toolkit t / the lock l).
lock_with() {
  "$python" - "$lock" "$1" "$2" <<'EOF'
import json, sys
l = json.load(open(sys.argv[1]))
t = next(t for t in l["debian"]["toolkits"] if t["version"].startswith("11.8."))
exec(sys.argv[3])
json.dump(l, open(sys.argv[2], "w"), indent=1)
EOF
}
lock_with "$TMP/unreachable.json" 'l["debian"]["uri"] = "http://127.0.0.1:9/debian"'
lock_with "$TMP/badsha.json" '
p = min(t["packages"], key=lambda p: p["size"])
p["sha256"] = "0" * 64'
small=$("$python" -c '
import json, sys
l = json.load(open(sys.argv[1]))
t = next(t for t in l["debian"]["toolkits"] if t["version"].startswith("11.8."))
print(min(t["packages"], key=lambda p: p["size"])["name"])' "$lock")
mkdir -p "$TMP/noapt" "$TMP/nodpkg"
for t in tar dpkg-deb; do ln -s "$(command -v $t)" "$TMP/noapt/$t"; done
for t in tar apt-get; do ln -s "$(command -v $t)" "$TMP/nodpkg/$t"; done

# name | environment (VAR=VALUE ...) | arguments | message the error must contain
cases=(
  "not a version||11|'11' is not a CUDA version"
  "unknown minor||11.99|cannot provision CUDA 11.99"
  "no source has 12.6||12.6|PyPI's CUDA 12.6 packages carry no nvcc"
  "no source has 12.6 (debian named)||12.6|Debian's archive has only CUDA 11.8, 12.4 and 12.5"
  "unreachable archive|CUWHEEL_TOOLKIT_LOCK=$TMP/unreachable.json|11.8|reading Debian bookworm's package indexes from http://127.0.0.1:9/debian failed"
  "sha256 mismatch|CUWHEEL_TOOLKIT_LOCK=$TMP/badsha.json|11.8|sha256 mismatch: $small"
  "no apt-get|PATH=$TMP/noapt|11.8|apt-get is not on PATH (Debian's apt package)"
  "no dpkg-deb|PATH=$TMP/nodpkg|11.8|dpkg-deb is not on PATH (Debian's dpkg package)"
)
for c in "${cases[@]}"; do
  IFS='|' read -r name envs arg want <<<"$c"
  set +e
  env $envs "$CUWHEEL" toolkit install "$arg" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  [ $rc -eq 1 ] || { cat "$TMP/err"; fail "$name: exit $rc, expected 1"; }
  grep -qF -- "$want" "$TMP/err" || { cat "$TMP/err"; fail "$name: no '$want'"; }
  for d in "$tks"/*/ "$tks"/.tmp-*; do
    [ -e "$d" ] && fail "$name: left $d behind"
  done
  pass "$name: $(grep -m1 'error:' "$TMP/err" | cut -c1-150)"
done
# The bad .deb is not kept: the next install fetches it again.
[ -z "$(ls "$CUWHEEL_CACHE_DIR/debian/debs" 2>/dev/null)" ] || fail "a rejected .deb was kept"

# The system's package state, to compare after the real install.
sys_state() {
  { find /etc/apt -type f -print0 | sort -z | xargs -0 sha256sum
    dpkg -l | sha256sum
    find /var/cache/apt/archives -maxdepth 1 -name '*.deb' 2>/dev/null | sort | sha256sum
  } | sha256sum
}
before=$(sys_state)

# Interrupted: SIGKILL to the process group (as a cancelled CI job or a closed terminal would)
# once extraction has begun; nothing visible is left, a retry completes.
setsid "$CUWHEEL" toolkit install 11.8 >"$TMP/kill.out" 2>&1 &
pid=$!
for _ in $(seq 1 6000); do
  compgen -G "$tks/.tmp-11.8.*/.extract" >/dev/null && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.05
done
kill -0 $pid 2>/dev/null || { cat "$TMP/kill.out"; fail "the install ended before it could be killed"; }
kill -KILL -- -$pid
wait $pid 2>/dev/null || true
compgen -G "$tks/.tmp-11.8.*" >/dev/null || fail "no staging tree: the kill was not midway"
for d in "$tks"/*/; do [ -d "$d" ] && fail "a visible toolkit after SIGKILL: $d"; done
[ "$("$CUWHEEL" toolkit list --json)" = "[]" ] || fail "toolkit list shows a toolkit after SIGKILL"
pass "an install killed during extraction leaves no toolkit"

t0=$(date +%s)
"$CUWHEEL" toolkit install 11.8 >"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "install 11.8"; }
echo "   install took $(( $(date +%s) - t0 ))s"
compgen -G "$tks/.tmp-*" >/dev/null && fail "the retry left the killed staging tree"
[ -z "$(ls "$CUWHEEL_CACHE_DIR/debian/debs")" ] || fail ".debs kept after a complete install"
root=$(ls -d "$tks"/11.8.*)
"$root/bin/nvcc" --version | grep -q "V11.8.89" || fail "nvcc does not run"
pass "retry installed $(basename "$root") ($(du -sm "$root" | cut -f1) MB)"

# Provenance: the marker and `toolkit list --json` name the lock's packages and sha256.
"$CUWHEEL" toolkit list --json >"$TMP/list.json"
"$python" - "$lock" "$root/cuwheel-toolkit.json" "$TMP/list.json" <<'EOF' || fail "provenance"
import json, sys
l = json.load(open(sys.argv[1]))
t = next(t for t in l["debian"]["toolkits"] if t["version"].startswith("11.8."))
m = json.load(open(sys.argv[2]))
listed = json.load(open(sys.argv[3]))[0]
want = [(p["name"], p["version"], p["sha256"]) for p in t["packages"]]
for got in (m["packages"], listed["packages"]):
    assert [(p["name"], p["version"], p["sha256"]) for p in got] == want, got
assert m["source"] == "debian bookworm" and listed["source"] == "debian bookworm", m["source"]
assert m["version"] == t["version"], m["version"]
print("   marker:", ", ".join(f"{n} {v} sha256 {s[:12]}" for n, v, s in want))
EOF
pass "the marker records source, package versions and sha256"
[ "$(sys_state)" = "$before" ] || fail "/etc/apt, dpkg's database or the system's apt cache changed"
pass "/etc/apt, dpkg -l and /var/cache/apt unchanged"

# No host compiler: with g++-11 hidden, plan and build name the package to install.
mkdir -p "$TMP/nogxx11"
for t in cc c++ gcc g++ ar ranlib ld as ninja ccache python3 apt-get dpkg-deb tar; do
  p=$(command -v $t) && ln -s "$p" "$TMP/nogxx11/$t"
done
proj=$TMP/proj
copy_project "$proj"
cd "$proj"
set +e
PATH=$TMP/nogxx11 CUWHEEL_MATRIX_CUDA=11.8 "$CUWHEEL" build --no-provision >"$TMP/out" 2>&1
rc=$?
set -e
[ $rc -ne 0 ] || fail "built without a host compiler for 11.8"
grep -qF "install Debian's g++-11 (apt-get install g++-11)" "$TMP/out" ||
  { cat "$TMP/out"; fail "no host compiler: the message does not name g++-11"; }
PATH=$TMP/nogxx11 CUWHEEL_MATRIX_CUDA=11.8 "$CUWHEEL" plan >"$TMP/plan" 2>&1 || true
grep -qF "host compiler: none: no host compiler for CUDA 11.8" "$TMP/plan" ||
  { cat "$TMP/plan"; fail "plan does not say the host compiler is missing"; }
[ ! -e dist ] || [ -z "$(ls dist)" ] || fail "dist/ changed"
pass "no g++-11: plan and build say 'install Debian's g++-11', exit $rc"
if command -v g++-11 >/dev/null; then
  CUWHEEL_MATRIX_CUDA=11.8 "$CUWHEEL" plan >"$TMP/plan" 2>&1 || true
  grep -qF "host compiler: g++-11 (gcc 11" "$TMP/plan" || { cat "$TMP/plan"; fail "g++-11 not picked"; }
  pass "with g++-11 installed, plan picks it for CUDA 11.8"
fi
