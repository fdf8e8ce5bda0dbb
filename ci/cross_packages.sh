# cross_packages.sh: what a cross leg needs on the x86_64 runner: ccache; qemu-user (the tests
# run the arm64 CPython under qemu-aarch64-static); patchelf and Debian's archive keyring (cuwheel
# fetches the cross compiler, arm64 CPython and Debian's toolkits with apt-get, checking the
# indexes with that keyring); the libraries Debian's cross compiler loads.
pkgs=()
for p in ccache qemu-user-static patchelf debian-archive-keyring libisl23 libmpc3 libmpfr6 \
         libjansson4 libzstd1; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || pkgs+=("$p")
done
if [ "${#pkgs[@]}" -gt 0 ]; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${pkgs[@]}"
fi
qemu-aarch64-static --version | head -n 1
# ccache's directory, the cache steps' .ccache (as system_packages.sh).
echo "CCACHE_DIR=$GITHUB_WORKSPACE/.ccache" >> "$GITHUB_ENV"
