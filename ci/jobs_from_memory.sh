# jobs_from_memory.sh: nvcc with several architectures takes up to 2 GiB: one job per 2 GiB
# available, at most one per CPU (hosted runners: 16 GiB, 4 CPUs).
# shellcheck disable=SC2034 # jobs is for the command that follows this
mem=$(awk '/MemAvailable/ {print int($2 / 2097152)}' /proc/meminfo)
jobs=$(( mem < 1 ? 1 : mem )); cpus=$(nproc); jobs=$(( jobs > cpus ? cpus : jobs ))
