# install_cuda.sh: the leg's CUDA toolkit, from NVIDIA's rpm or apt repository (pinned
# packages) or from PyPI (cuwheel toolkit install, pinned by digest).
case "$CUDA_TOOLKIT" in
rpm)
  # NVIDIA's RHEL 8 network repository: nvcc and the runtime, full versions.
  dnf config-manager --add-repo \
    "https://developer.download.nvidia.com/compute/cuda/repos/rhel8/$CUDA_ARCH/cuda-rhel8.repo"
  read -ra pkgs <<< "$CUDA_PACKAGES"
  dnf install -y -q --setopt=obsoletes=0 "${pkgs[@]}"
  echo "/usr/local/cuda-$CUDA/bin" >> "$GITHUB_PATH"
  ;;
apt)
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  repo="https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/$CUDA_ARCH"
  curl -fsSLO "$repo/cuda-keyring_1.1-1_all.deb"
  $sudo dpkg -i cuda-keyring_1.1-1_all.deb
  $sudo apt-get update -q
  read -ra pkgs <<< "$CUDA_PACKAGES"
  $sudo apt-get install -y -q --no-install-recommends "${pkgs[@]}"
  echo "/usr/local/cuda-$CUDA/bin" >> "$GITHUB_PATH"
  ;;
pypi)
  # NVIDIA's wheels from PyPI, pinned with their hashes in cuwheel's lock file, into cuwheel's
  # cache where the cache steps restore and save it (~ is $HOME there), for this step and the
  # later ones, whatever XDG_CACHE_HOME says; a toolkit installed is not fetched.
  export CUWHEEL_CACHE_DIR="$HOME/.cache/cuwheel"
  echo "CUWHEEL_CACHE_DIR=$CUWHEEL_CACHE_DIR" >> "$GITHUB_ENV"
  cuwheel toolkit install "$CUDA"
  ;;
esac
