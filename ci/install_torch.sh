# install_torch.sh: one venv per (Python, torch build) of TORCH_VENVS, torch pinned (PyPI's
# build for the release's default CUDA, PyTorch's per-CUDA index for the others), named to
# cuwheel through CUWHEEL_PYTHONS. A venv with torch takes about 5 GB: the disk is checked first.
# pip's downloads go to the cache steps' .pip-torch, the venvs to the job's temporary dir: from
# the runner's variables, because in a container job the expressions github.workspace and
# runner.temp are the host's paths, which the container does not have.
export PIP_CACHE_DIR="$GITHUB_WORKSPACE/.pip-torch"
venvs="$RUNNER_TEMP/torch-venvs"
need=$(( $(grep -c . <<< "$TORCH_VENVS") * 5 + 10 ))
avail=$(df -Pk . | awk 'NR == 2 {print int($4 / 1048576)}')
if [ "$avail" -lt "$need" ]; then
  echo "::error::the torch venvs and the build need about $need GB; $avail GB are free "\
    "(fewer per job: cuwheel ci github --per-cell)"
  exit 1
fi
pythons=
while read -r py torch index; do
  if [ -z "$py" ]; then continue; fi
  venv="$venvs/py$py-pt$torch-$index"
  if [ ! -x "$venv/bin/python" ]; then
    base=
    for cand in "python$py" "/opt/python/cp${py//./}-cp${py//./}/bin/python"; do
      if "$cand" -c 'import venv' >/dev/null 2>&1; then base=$cand; break; fi
    done
    if [ -z "$base" ]; then echo "::error::no Python $py on this runner"; exit 1; fi
    "$base" -m venv "$venv"
    if [ "$index" = pypi ]; then url=$PYPI_INDEX; else url=$TORCH_INDEX/$index; fi
    "$venv/bin/python" -m pip install -q --index-url "$url" "torch==$torch"
  fi
  "$venv/bin/python" -c 'import torch; print(torch.__file__, torch.__version__, torch.version.cuda)'
  pythons="$pythons$py=$venv/bin/python;"
done <<< "$TORCH_VENVS"
echo "CUWHEEL_PYTHONS=$pythons" >> "$GITHUB_ENV"
