# install_cuwheel_git.sh: cuwheel built from its repository at the pinned commit
# (C17: CMake, ninja and the libraries it links), its command on PATH.
sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
if command -v dnf >/dev/null; then
  dnf install -y -q epel-release
  dnf install -y -q git cmake ninja-build gcc pkgconf-pkg-config libzip-devel zlib-devel \
    openssl-devel elfutils-libelf-devel jansson-devel
else
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends git cmake ninja-build gcc \
    pkg-config libzip-dev zlib1g-dev libssl-dev libelf-dev libjansson-dev ca-certificates
fi
src="$RUNNER_TEMP/cuwheel-src"
git init -q "$src"
git -C "$src" fetch -q --depth 1 "$CUWHEEL_GIT" "$CUWHEEL_REV"
git -C "$src" checkout -q FETCH_HEAD
cmake -S "$src" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUWHEEL_TESTS=OFF
cmake --build "$src/build"
mkdir -p "$RUNNER_TEMP/cuwheel-bin"
ln -sf "$src/build/cuwheel" "$RUNNER_TEMP/cuwheel-bin/cuwheel"
echo "$RUNNER_TEMP/cuwheel-bin" >> "$GITHUB_PATH"
"$RUNNER_TEMP/cuwheel-bin/cuwheel" --version
