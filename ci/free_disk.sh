# free_disk.sh: deletes the hosted runner's SDKs the build never uses.
# The hosted runner's preinstalled SDKs the build never uses (about 20 GB), directly or
# through the container's mounts. Only on GitHub's own runners.
if [ "${RUNNER_ENVIRONMENT:-}" = github-hosted ]; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  for d in /usr/share/dotnet /opt/ghc /usr/local/lib/android /host/usr/share/dotnet \
           /host/opt/ghc /host/usr/local/lib/android; do
    if [ -d "$d" ]; then $sudo find "$d" -mindepth 1 -maxdepth 1 -exec rm -rf {} +; fi
  done
fi
df -h .
