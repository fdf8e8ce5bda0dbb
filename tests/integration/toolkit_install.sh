#!/usr/bin/env bash
# toolkit_install.sh: `cuwheel toolkit install|list|remove` provisions a real CUDA 13 toolkit
# from PyPI into a temporary cache: nvcc compiles a kernel for sm_75 and sm_90+PTX and links a
# shared object with the toolkit's own static cudart; reinstalling is a no-op; a SIGKILLed
# install leaves nothing discovery would take and a retry completes; CUDA 12.6 (on neither
# PyPI with nvcc nor Debian's archive) fails with the exact missing piece; remove deletes it.
#
# Needs PyPI (about 110 MB of wheels per toolkit) unless CUWHEEL_TOOLKIT_WHEELS names a
# directory holding the pinned wheels: CI fetches them once (e.g. with `pip download --no-deps
# --only-binary=:all: --platform manylinux2014_x86_64 ...` of the lock file's pins) or keeps
# PIP_CACHE_DIR between runs (default here: build/toolkit-pip-cache). Measured on the dev
# machine: 2-4 s per toolkit download from PyPI; the whole test takes 45-60 s.
# CUWHEEL_TEST_TOOLKIT picks the version (default 13.2).
set -euo pipefail
src=${CUWHEEL_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cw=${CUWHEEL:-$src/build/debug/cuwheel}
version=${CUWHEEL_TEST_TOOLKIT:-13.2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CUWHEEL_CACHE_DIR=$tmp/cache
export PIP_CACHE_DIR=${PIP_CACHE_DIR:-$src/build/toolkit-pip-cache}
tks=$CUWHEEL_CACHE_DIR/toolkits

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { printf '== %s\n' "$*"; t0=$(date +%s.%N); }
took() { printf '   %.1fs\n' "$(echo "$(date +%s.%N) - $t0" | bc)"; }
python=$(command -v python3)

# The full release the minor resolves to, from the lock file itself.
full=$("$cw" toolkit list --available --json | "$python" -c '
import json, sys
v = sys.argv[1]
sets = [s for s in json.load(sys.stdin) if s["minor"] == v or s["version"] == v]
print(sets[0]["version"])' "$version")
echo "CUDA $version resolves to $full"

step "versions that cannot be assembled fail and say what is missing"
# (11.8, 12.4 and 12.5 come from Debian's archive: toolkit_debian.sh.)
if "$cw" toolkit install 12.6 >"$tmp/out" 2>"$tmp/err"; then fail "12.6 installed"; fi
want="cuwheel: error: cannot provision CUDA 12.6: PyPI's CUDA 12.6 packages carry no nvcc (nvidia-cuda-nvcc-cu12 12.6.85 ships only ptxas and libnvvm, not nvcc, cicc, cudafe++, fatbinary or nvlink); Debian's archive has only CUDA 11.8, 12.4 and 12.5"
grep -qxF "$want" "$tmp/err" || { cat "$tmp/err"; fail "12.6: wrong message"; }
grep -qF "hint: install CUDA 12.6 from NVIDIA's repository and point [tool.cuwheel.toolkits] at it" "$tmp/err" ||
  fail "12.6: no hint"
if "$cw" toolkit install 11.7 2>"$tmp/err"; then fail "11.7 installed"; fi
grep -qF "ships only ptxas and libnvvm" "$tmp/err" || { cat "$tmp/err"; fail "11.7"; }
if "$cw" toolkit install 12.7 2>"$tmp/err"; then fail "12.7 installed"; fi
grep -qF "PyPI has no CUDA 12.7 packages" "$tmp/err" || { cat "$tmp/err"; fail "12.7"; }
if "$cw" toolkit install 13.99 2>"$tmp/err"; then fail "13.99 installed"; fi
grep -qF "PyPI had no CUDA 13.99 packages when the lock file was generated" "$tmp/err" ||
  { cat "$tmp/err"; fail "13.99"; }
set +e; "$cw" toolkit install 13 2>"$tmp/err"; rc=$?; set -e
[ $rc -eq 1 ] && grep -qF "'13' is not a CUDA version" "$tmp/err" || fail "'13' accepted"
[ ! -e "$tks" ] || [ -z "$(ls "$tks")" ] || fail "a failed resolve left files in $tks"
took

step "an install killed midway (SIGKILL) leaves no toolkit that discovery would take"
"$cw" toolkit install "$version" >"$tmp/kill.out" 2>&1 &
pid=$!
# Wait until the wheels are downloaded and assembly has begun (bin/ in the staging tree).
for _ in $(seq 1 3000); do
  compgen -G "$tks/.tmp-$full-*/bin" >/dev/null && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.05
done
kill -0 $pid 2>/dev/null || { cat "$tmp/kill.out"; fail "the install ended before it could be killed"; }
kill -KILL $pid
wait $pid 2>/dev/null || true
compgen -G "$tks/.tmp-$full-*" >/dev/null || fail "no staging tree: the kill was not midway"
for d in "$tks"/*/; do
  [ -d "$d" ] || continue
  fail "a visible toolkit dir after SIGKILL: $d"
done
[ "$("$cw" toolkit list --json)" = "[]" ] || fail "toolkit list shows a toolkit after SIGKILL"
took

step "a retry completes (two at once: one installs, the other waits and finds it installed)"
"$cw" toolkit install "$version" >"$tmp/out1" 2>&1 &
pid1=$!
"$cw" toolkit install "$version" >"$tmp/out2" 2>&1 &
pid2=$!
wait $pid1 || { cat "$tmp/out1"; fail "install 1"; }
wait $pid2 || { cat "$tmp/out2"; fail "install 2"; }
cat "$tmp/out1" "$tmp/out2"
[ "$(cat "$tmp/out1" "$tmp/out2" | grep -cx "installed CUDA $full in $(realpath "$tks")/$full")" = 1 ] ||
  fail "not exactly one install"
[ "$(cat "$tmp/out1" "$tmp/out2" | grep -cx "CUDA $full is already installed in $(realpath "$tks")/$full")" = 1 ] ||
  fail "the concurrent install did not find it installed"
grep -qF "waiting for another cuwheel toolkit command" "$tmp/out1" "$tmp/out2" ||
  fail "no install waited for the lock"
! compgen -G "$tks/.tmp-*" >/dev/null || fail "stale staging tree left"
root=$tks/$full
[ -f "$root/cuwheel-toolkit.json" ] || fail "no marker"
took

step "installing again is a no-op"
before=$(stat -c %Y.%i "$root" "$root/cuwheel-toolkit.json")
"$cw" toolkit install "$full" | tee "$tmp/out"
grep -qx "CUDA $full is already installed in $(realpath "$tks")/$full" "$tmp/out" || fail "no-op"
[ "$before" = "$(stat -c %Y.%i "$root" "$root/cuwheel-toolkit.json")" ] || fail "reinstall touched it"
took

step "toolkit list shows it"
"$cw" toolkit list | tee "$tmp/list"
grep -q "^$full .* $(realpath "$root")\$" "$tmp/list" || fail "list text"
"$cw" toolkit list --json | "$python" -c '
import json, sys
ts = json.load(sys.stdin)
assert len(ts) == 1, ts
t = ts[0]
assert t["version"] == sys.argv[1] and t["path"] == sys.argv[2], t
assert t["size"] > 100e6, t["size"]
names = sorted(p["name"] for p in t["packages"])
assert names == ["nvidia-cuda-cccl", "nvidia-cuda-crt", "nvidia-cuda-nvcc",
                 "nvidia-cuda-runtime", "nvidia-nvvm"], names
assert all(len(p["sha256"]) == 64 for p in t["packages"])
print("   size %.0f MB" % (t["size"] / 1e6))' "$full" "$(realpath "$root")"

step "the layout is an installer's: executables executable, lib64, nvvm"
for f in bin/nvcc bin/ptxas bin/fatbinary bin/nvlink bin/cudafe++ bin/bin2c nvvm/bin/cicc; do
  [ -x "$root/$f" ] || fail "$f is not executable"
done
for f in include/cuda_runtime.h include/crt/host_config.h include/cccl/thrust/version.h \
         lib64/libcudart_static.a lib64/libcudart.so lib64/libcudadevrt.a \
         nvvm/libdevice/libdevice.10.bc nvvm/lib64/libnvvm.so; do
  [ -e "$root/$f" ] || fail "$f missing"
done
[ "$(readlink "$root/lib")" = lib64 ] || fail "lib is not a link to lib64"

step "the provisioned nvcc compiles a kernel (sm_75, sm_90 + PTX) and links static cudart"
cat >"$tmp/k.cu" <<'EOF'
#include <cuda_runtime.h>
#include <cuda/std/cstdint>
#include <cub/warp/warp_reduce.cuh>
__global__ void axpy(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] += a * x[i];
}
extern "C" int run_axpy(float a, const float *x, float *y, int n)
{
	axpy<<<(n + 255) / 256, 256>>>(a, x, y, n);
	return (int)cudaGetLastError();
}
EOF
# No trace of the system toolkit: PATH, CUDA_HOME and LIBRARY_PATH cleared.
clean=(env -u CUDA_HOME -u CUDA_PATH -u LIBRARY_PATH -u CPATH PATH=/usr/bin:/bin)
"${clean[@]}" "$root/bin/nvcc" --version | tail -2
"${clean[@]}" "$root/bin/nvcc" -c "$tmp/k.cu" -o "$tmp/k.o" -Xcompiler=-fPIC \
  -gencode arch=compute_75,code=sm_75 -gencode "arch=compute_90,code=[sm_90,compute_90]" \
  -v 2>"$tmp/nvcc.log" || { cat "$tmp/nvcc.log"; fail "nvcc -c"; }
grep -qxF "#\$ CICC_PATH=$root/bin/../nvvm/bin" "$tmp/nvcc.log" ||
  { grep CICC_PATH "$tmp/nvcc.log"; fail "nvcc does not take cicc from the toolkit's nvvm/bin"; }
if grep -q /usr/local/cuda "$tmp/nvcc.log"; then fail "nvcc used the system toolkit"; fi
"${clean[@]}" "$root/bin/nvcc" -shared -cudart static -o "$tmp/libk.so" "$tmp/k.o" \
  -Xlinker --trace >"$tmp/link.log" 2>&1 || { cat "$tmp/link.log"; fail "nvcc -shared"; }
linked=$(grep -m1 'libcudart_static\.a$' "$tmp/link.log") ||
  { cat "$tmp/link.log"; fail "the link did not use libcudart_static.a"; }
[ "$(realpath "$linked")" = "$(realpath "$root/lib64/libcudart_static.a")" ] ||
  fail "linked $linked, not the toolkit's libcudart_static.a"
if readelf -d "$tmp/libk.so" | grep NEEDED | grep -q cudart; then fail "links cudart shared"; fi
nm -D --defined-only "$tmp/libk.so" | grep -q " T run_axpy$" || fail "run_axpy not exported"
"$python" -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1]).run_axpy' "$tmp/libk.so" ||
  fail "the shared object does not load"
# What went into the fatbin, as nvcc -v shows it: SASS for sm_75 and sm_90, PTX for compute_90.
fatbin=$(grep '^#\$ fatbinary ' "$tmp/nvcc.log")
for img in "kind=elf,sm=75" "kind=elf,sm=90" "kind=ptx,sm=90"; do
  grep -qF -- "$img" <<<"$fatbin" || { echo "$fatbin"; fail "the fatbin lacks $img"; }
done
took

if "$cw" doctor --json >"$tmp/doctor.json" 2>/dev/null; then
  step "discovery finds it"
  "$python" -c '
import json, sys
d = json.load(open(sys.argv[1]))
tks = d.get("toolkits", [])
assert any(t.get("version") == sys.argv[2] and t.get("found_by") == "cache" for t in tks), tks
' "$tmp/doctor.json" "$full" || fail "cuwheel doctor does not list $full from the cache"
fi

step "toolkit remove"
"$cw" toolkit remove "$version" | tee "$tmp/out"
grep -qx "removed $(realpath "$tks")/$full" "$tmp/out" || fail "remove output"
[ ! -e "$root" ] || fail "$root still there"
! compgen -G "$tks/.trash-*" >/dev/null || fail "trash left"
[ "$("$cw" toolkit list --json)" = "[]" ] || fail "list after remove"
if "$cw" toolkit remove "$full" 2>"$tmp/err"; then fail "removed twice"; fi
grep -qF "CUDA $full is not installed" "$tmp/err" || fail "remove twice: message"
took
echo "ok"
