# system_packages.sh: the build tools the image or runner lacks.
# ccache, and in the manylinux image the gcc-toolset this nvcc accepts.
if command -v dnf >/dev/null; then
  pkgs=(ccache)
  if [ -n "$GCC_TOOLSET" ]; then pkgs+=("gcc-toolset-$GCC_TOOLSET-gcc-c++"); fi
  dnf install -y -q epel-release
  dnf install -y -q "${pkgs[@]}"
  if [ -n "$GCC_TOOLSET" ]; then
    echo "/opt/rh/gcc-toolset-$GCC_TOOLSET/root/usr/bin" >> "$GITHUB_PATH"
  fi
elif ! command -v ccache >/dev/null; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends ccache
fi
# ccache's directory, the cache steps' .ccache: from $GITHUB_WORKSPACE, because in a container
# job the expression github.workspace is the host's path, which the container does not have.
echo "CCACHE_DIR=$GITHUB_WORKSPACE/.ccache" >> "$GITHUB_ENV"
