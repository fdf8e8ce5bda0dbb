"""torch_wheelhouse: the local stand-in for the index a torch workflow installs torch from.

The workflow's torch step runs `pip install --index-url URL torch==V` (URL: PyPI for the torch
release's default CUDA build, PyTorch's per-CUDA index for the others), so the stand-in must
serve torch and every dependency pip resolves for it. wheelhouse() fills
build/ci-wheelhouse/torch-V/ with `pip download torch==V` run by each Python the test names
(from PyPI, through pip's cache build/pip-cache, as examples/torchext/setup-pythons does), so a
fresh CI machine gets the real wheels itself and later runs download nothing; simple_index()
then lays them out as a PEP 503 page per project. No stand-in for torch is ever made."""
import fcntl
import os
import re
import shutil
import subprocess

import testskip

# The repository root, from this file's place in it (not the cwd, not a path of one machine):
# build/ci-wheelhouse and build/pip-cache are under it.
ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def wheelhouse(version, pythons):
    """build/ci-wheelhouse/torch-VERSION holding torch==VERSION and its dependencies for each
    interpreter in pythons ({"3.12": path}); on a download failure: a skip here, a failure
    with CUWHEEL_CI_NO_SKIP=1 (CI reaches PyPI)."""
    dest = os.path.join(ROOT, "build", "ci-wheelhouse", f"torch-{version}")
    os.makedirs(dest, exist_ok=True)
    # One download at a time into dest (two tests filling it at once would see half a wheel).
    lock = open(os.path.join(dest, ".lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.setdefault("PIP_CACHE_DIR", os.path.join(ROOT, "build", "pip-cache"))
    for minor, py in sorted(pythons.items()):
        tag = "cp" + minor.replace(".", "")
        if any(re.match(rf"torch-{re.escape(version)}-{tag}-{tag}-", f) for f in os.listdir(dest)):
            continue  # pip download skips what dest holds, but still asks the index: not even that
        p = subprocess.run([py, "-m", "pip", "download", "-q", "--only-binary", ":all:",
                            "-d", dest, f"torch=={version}"], env=env, capture_output=True,
                           text=True)
        if p.returncode != 0:
            print(p.stdout + p.stderr)
            testskip.skip(f"pip download torch=={version} for Python {minor} failed (no network "
                          f"to PyPI?)", ci_installs=f"torch=={version} from PyPI")
    lock.close()
    return dest


def simple_index(root, files):
    """A PEP 503 index under root of files ({file name: path}), copied (hard-linked where it
    can be: a torch wheel is 900 MB)."""
    for fname, path in files.items():
        proj = re.sub(r"[-_.]+", "-", fname.split("-")[0]).lower()
        d = os.path.join(root, proj)
        os.makedirs(d, exist_ok=True)
        try:
            os.link(path, os.path.join(d, fname))
        except OSError:
            shutil.copy(path, os.path.join(d, fname))
    for proj in os.listdir(root):
        d = os.path.join(root, proj)
        links = "".join(f'<a href="{f}">{f}</a>\n' for f in sorted(os.listdir(d))
                        if f != "index.html")
        with open(os.path.join(d, "index.html"), "w") as f:
            f.write(f"<html><body>\n{links}</body></html>\n")


def index_of(root, wheel_dir):
    """simple_index of every file in wheel_dir."""
    simple_index(root, {f: os.path.join(wheel_dir, f) for f in os.listdir(wheel_dir)
                        if f.endswith(".whl")})
    return root
