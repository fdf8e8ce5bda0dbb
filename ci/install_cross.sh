# install_cross.sh: a cross leg's toolchain, all from cuwheel's locks, pinned by sha256: the
# x86_64 CUDA toolkit whose nvcc compiles the kernels (NVIDIA's wheels from PyPI for 13.x,
# Debian's packages for 12.x) and the cross parts the leg's cells need (CROSS_PARTS: the
# cross compiler, the target's static CUDA runtime, arm64 CPython roots, torch's aarch64 wheel).
# cuwheel's cache is the directory the cache steps restore and save (~ is $HOME there), for
# this step and the later ones, whatever XDG_CACHE_HOME says; what is installed is not fetched.
export CUWHEEL_CACHE_DIR="$HOME/.cache/cuwheel"
echo "CUWHEEL_CACHE_DIR=$CUWHEEL_CACHE_DIR" >> "$GITHUB_ENV"
cuwheel toolkit install "$CUDA"
read -ra parts <<< "$CROSS_PARTS"
cuwheel cross install "${parts[@]}"
