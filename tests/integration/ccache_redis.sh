#!/usr/bin/env bash
# Shared compile cache: a local Redis as ccache's remote storage. Clone A builds tinyraster
# with an empty local cache and [tool.cuwheel.cache] remote in its pyproject.toml; clone B, at
# another path with its own build dir and another empty local cache, gets the remote through
# CUWHEEL_CACHE_REMOTE. ccache's statistics for B must show every kernel compile (nvcc, .cu)
# as a remote hit and no compile run for real.
set -euo pipefail
root=$(pwd)
cw=${CUWHEEL:-$root/build/ci/cuwheel}
fail() { echo "FAIL: $*" >&2; exit 1; }

command -v ccache >/dev/null || fail "ccache is not installed (tools/install-deps)"
command -v redis-server >/dev/null || fail "redis-server is not installed (tools/install-deps)"
ccache --version | grep -q "redis-storage" ||
	fail "this ccache ($(ccache --version | head -1)) has no Redis storage backend"
nvcc_dir=""
for d in /usr/local/cuda-13.0 "${CUDA_HOME:-}"; do
	[ -n "$d" ] && [ -x "$d/bin/nvcc" ] && { nvcc_dir=$d; break; }
done
if [ -z "$nvcc_dir" ]; then
	echo "skipped: no CUDA 13.0 toolkit at /usr/local/cuda-13.0 (nothing to compile)"
	exit 77 # the skip code (tests/integration/testskip.py)
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cuwheel-ccache-redis.XXXXXX")
redis_pid=
cleanup() {
	if [ -n "$redis_pid" ]; then
		kill "$redis_pid" 2>/dev/null || true
		wait "$redis_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --dir "$tmp" \
	>"$tmp/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 50); do
	[ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ] && break
	sleep 0.1
done
[ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ] ||
	fail "redis-server did not start: $(cat "$tmp/redis.log")"
remote="redis://127.0.0.1:$port"

# Two clones at different absolute paths: only project-relative paths may reach the hash.
clone() {
	mkdir -p "$1"
	local tr="$root/examples/tinyraster"
	cp -a "$tr/pyproject.toml" "$tr/LICENSE" "$tr/kernels" "$tr/bindings" "$tr/python" "$1/"
	find "$1" -name __pycache__ -prune -exec rm -rf {} +
}
clone "$tmp/a/tinyraster"
clone "$tmp/clone-b/src/tinyraster"
printf '\n[tool.cuwheel.cache]\nremote = "%s"\n' "$remote" >>"$tmp/a/tinyraster/pyproject.toml"
mkdir -p "$tmp/ccache-a" "$tmp/ccache-b"

# Every CUWHEEL_* of the caller is dropped; the build is one toolkit, one arch, one Python.
build() { # DIR CCACHE_DIR [VAR=VALUE...]
	local dir=$1 cdir=$2
	shift 2
	env $(env | sed -n 's/^\(CUWHEEL_[A-Z_]*\)=.*/-u \1/p') \
		CCACHE_DIR="$cdir" CCACHE_LOGFILE="$cdir/log" CUWHEEL_ARCHS=7.5 \
		CUWHEEL_MATRIX_PYTHON=3.12 CUWHEEL_MATRIX_CUDA=13.0 CUWHEEL_CCACHE=on "$@" \
		"$cw" -C "$dir" build --no-test -j 4 >"$cdir/build.out" 2>&1 ||
		fail "build in $dir failed: $(tail -30 "$cdir/build.out")"
}
stat() { # CCACHE_DIR KEY
	CCACHE_DIR=$1 ccache --print-stats | awk -v k="$2" '$1 == k { print $2 }'
}

build "$tmp/a/tinyraster" "$tmp/ccache-a"
n_cu=$(ls "$root"/examples/tinyraster/kernels/*.cu | wc -l)
a_write=$(stat "$tmp/ccache-a" remote_storage_write)
a_miss=$(stat "$tmp/ccache-a" cache_miss)
keys=$(redis-cli -h 127.0.0.1 -p "$port" dbsize)
echo "clone A: cache_miss=$a_miss remote_storage_write=$a_write; redis holds $keys keys"
[ "$a_miss" -ge "$n_cu" ] || fail "clone A compiled fewer than its $n_cu .cu files ($a_miss)"
[ "$a_write" -gt 0 ] && [ "$keys" -gt 0 ] ||
	fail "clone A wrote nothing to Redis: [tool.cuwheel.cache] remote did not reach ccache"

build "$tmp/clone-b/src/tinyraster" "$tmp/ccache-b" CUWHEEL_CACHE_REMOTE="$remote"
b_hit=$(stat "$tmp/ccache-b" remote_storage_hit)
b_miss=$(stat "$tmp/ccache-b" cache_miss)
b_local=$(stat "$tmp/ccache-b" local_storage_hit)
echo "clone B: remote_storage_hit=$b_hit local_storage_hit=$b_local cache_miss=$b_miss"
# Per compile (ccache processes interleave in the log: key each line by its pid).
cu_count() { # RESULT
	awk -v want="$1" '{ pid = $2 }
		/Source file: .*\.cu$/ { cu[pid] = 1 }
		$0 ~ ("Result: " want "$") && cu[pid] { n[pid] = 1 }
		END { for (p in n) c++; print c + 0 }' "$tmp/ccache-b/log"
}
cu_hits=$(cu_count remote_storage_hit)
cu_other=$(cu_count cache_miss)
echo "clone B: .cu compiles that were remote hits: $cu_hits of $n_cu; .cu misses: $cu_other"
if [ "$b_miss" -ne 0 ] || [ "$cu_hits" -lt "$n_cu" ]; then
	grep -E "Command line|Hashing CWD|Source file|Result: (cache_miss|remote_storage_hit)" \
		"$tmp/ccache-b/log" | cut -c 1-400 | head -40 >&2
	fail "clone B's compiles were not all remote hits. Known causes: ccache 4.7 reads nvcc's" \
		"-gencode= as -g and then hashes the absolute build dir (hash_dir; --generate-code=" \
		"or CCACHE_NOHASHDIR avoids it), and -Xcompiler=-ffile-prefix-map=<absolute project>=." \
		"is hashed verbatim (ccache rewrites only the plain gcc form)"
fi
[ "$cu_other" -eq 0 ] || fail "clone B compiled $cu_other .cu files for real"
echo "ccache_redis: every kernel compile of clone B was a remote hit ($b_hit remote hits)"
