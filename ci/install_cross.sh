# install_cross.sh: a cross leg's toolchain, all from cuwheel's locks, pinned by sha256: the
# x86_64 CUDA toolkit whose nvcc compiles the kernels (NVIDIA's wheels from PyPI for 13.x,
# Debian's packages for 12.x) and the cross parts the leg's cells need (CROSS_PARTS: the
# cross compiler, the target's static CUDA runtime, arm64 CPython roots, torch's aarch64 wheel).
cuwheel toolkit install "$CUDA"
read -ra parts <<< "$CROSS_PARTS"
cuwheel cross install "${parts[@]}"
