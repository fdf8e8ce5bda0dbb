# install_cuwheel_wheel.sh: cuwheel's wheel, by URL and digest, in a venv of its own with
# only its commands on PATH (the venv's python must not be taken for a build Python).
for py in python3.12 python3 /opt/python/cp312-cp312/bin/python3; do
  if "$py" -c 'import venv' >/dev/null 2>&1; then break; fi
done
"$py" -m venv "$RUNNER_TEMP/cuwheel-venv"
printf 'cuwheel @ %s --hash=sha256:%s\n' "$CUWHEEL_WHEEL" "$CUWHEEL_SHA256" \
  > "$RUNNER_TEMP/cuwheel.txt"
"$RUNNER_TEMP/cuwheel-venv/bin/python" -m pip install -q --no-deps --require-hashes \
  -r "$RUNNER_TEMP/cuwheel.txt"
"$RUNNER_TEMP/cuwheel-venv/bin/python" -m pip install -q "ninja==$NINJA_VERSION"
mkdir -p "$RUNNER_TEMP/cuwheel-bin"
ln -sf "$RUNNER_TEMP/cuwheel-venv/bin/cuwheel" "$RUNNER_TEMP/cuwheel-venv/bin/ninja" \
  "$RUNNER_TEMP/cuwheel-bin/"
echo "$RUNNER_TEMP/cuwheel-bin" >> "$GITHUB_PATH"
"$RUNNER_TEMP/cuwheel-bin/cuwheel" --version
