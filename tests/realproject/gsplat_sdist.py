"""gsplat 1.5.3 from its PyPI sdist, unmodified, built by cuwheel with examples/gsplat's config
and compared with `pip wheel --no-build-isolation --no-deps` of the same sdist.

1. Downloads gsplat-1.5.3.tar.gz from PyPI (sha256 pinned; cached under the cache dir). Exits
   77 (CTest's skip) when it is not cached and PyPI cannot be reached.
2. Makes a torch 2.11 venv per Python with examples/torchext/setup-pythons (cached).
3. ONE `cuwheel build gsplat-1.5.3.tar.gz --config <examples/gsplat/gsplat.cuwheel.toml plus a
   [tool.cuwheel.pythons] table naming those venvs>` for every Python (CUWHEEL_ARCHS picks the
   archs); every .cu of the sdist compiled exactly once (.ninja_log), one kernel archive.
4. For the reference Pythons, `pip wheel --no-build-isolation --no-deps` of the same sdist with
   the same torch, TORCH_CUDA_ARCH_LIST and toolkit; each cuwheel wheel against it: the same
   files outside .dist-info, the same METADATA headers and body apart from Version's local
   label and the one Requires-Dist cuwheel adds (torch>=2.11,<2.12), gsplat/csrc.so exporting
   PyInit_csrc in both.
5. Each cuwheel wheel installed (pip, with its dependencies) into a fresh venv that sees the
   torch venv's site-packages through a .pth file, and `import gsplat.csrc` run there from an
   empty directory.

Environment: GSPLAT_PYTHONS (default "3.10 3.11 3.12 3.13"), GSPLAT_PIP_PYTHONS (the Pythons
pip wheel is run for; default: all of GSPLAT_PYTHONS), GSPLAT_ARCHS (default "8.0"),
GSPLAT_JOBS (default: the CPUs), GSPLAT_CACHE (default build/realproject-cache),
GSPLAT_PIP_CONCURRENT=1 (run pip wheel beside cuwheel build rather than after it),
GSPLAT_PIP_NO_CUDA=1 (the cheap reference: pip wheel with setup.py's BUILD_NO_CUDA=1, whose
wheel is gsplat's minus csrc.so: files and METADATA compared, PyInit_csrc only in cuwheel's). Run from the
repository root with $CUWHEEL set (CTest does both). Prints every check and the timings."""
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "integration"))
from checks import check, run, failures  # noqa: E402

SDIST = "gsplat-1.5.3.tar.gz"
SHA256 = "343f080c470e891ba3c697c03bdf0952cb982d1d535fdc24adb23c2cb4fba906"
ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
CONFIG = os.path.join(ROOT, "examples", "gsplat", "gsplat.cuwheel.toml")
PYTHONS = os.environ.get("GSPLAT_PYTHONS", "3.10 3.11 3.12 3.13").split()
PIP_PYTHONS = os.environ.get("GSPLAT_PIP_PYTHONS", " ".join(PYTHONS)).split()
ARCHS = os.environ.get("GSPLAT_ARCHS", "8.0")
JOBS = os.environ.get("GSPLAT_JOBS", str(os.cpu_count() or 1))
CONCURRENT = os.environ.get("GSPLAT_PIP_CONCURRENT") == "1"
# The cheap reference: setup.py's own BUILD_NO_CUDA=1 (no kernels compiled; the same files but
# gsplat/csrc.so, the same METADATA). For machines without the CPU for a second kernel build.
NO_CUDA_REF = os.environ.get("GSPLAT_PIP_NO_CUDA") == "1"
CACHE = os.path.abspath(os.environ.get("GSPLAT_CACHE", os.path.join("build", "realproject-cache")))
SKIP = 77


def fetch_sdist():
    path = os.path.join(CACHE, SDIST)
    if os.path.exists(path) and hashlib.sha256(open(path, "rb").read()).hexdigest() == SHA256:
        return path
    try:
        with urllib.request.urlopen("https://pypi.org/pypi/gsplat/json", timeout=30) as r:
            info = json.load(r)
        url = [u["url"] for u in info["releases"]["1.5.3"] if u["filename"] == SDIST][0]
        with urllib.request.urlopen(url, timeout=120) as r:
            data = r.read()
    except Exception as e:  # no network, PyPI down, a proxy refusing
        print("skip: PyPI cannot be reached (%s: %s) and %s is not cached" %
              (type(e).__name__, e, SDIST))
        sys.exit(SKIP)
    if not check(hashlib.sha256(data).hexdigest() == SHA256, "%s has the pinned sha256" % SDIST):
        sys.exit(1)
    os.makedirs(CACHE, exist_ok=True)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path


def base_python(v):
    cands = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/%s.*/bin/python3" % v)))
    if cands:
        return cands[-1]
    return shutil.which("python" + v)


def torch_venvs():
    bases = {v: base_python(v) for v in PYTHONS}
    missing = [v for v, p in bases.items() if not p]
    if missing:
        print("skip: no Python %s on this machine" % " ".join(missing))
        sys.exit(SKIP)
    env = dict(os.environ, PIP_CACHE_DIR=os.path.join(CACHE, "pip"))
    rc, out = run(["sh", os.path.join(ROOT, "examples", "torchext", "setup-pythons"), "--dir",
                   os.path.join(CACHE, "pythons")] + [bases[v] for v in PYTHONS], env=env)
    print(out.strip())
    venvs = {v: os.path.join(CACHE, "pythons", "py" + v, "bin", "python") for v in PYTHONS}
    if not check(rc == 0 and all(os.path.exists(p) for p in venvs.values()),
                 "setup-pythons made a torch 2.11 venv for %s" % " ".join(PYTHONS)):
        sys.exit(1)
    return bases, venvs


def headers(text):
    """METADATA text -> (sorted header lines, body)."""
    head, _, body = text.partition("\n\n")
    lines, cur = [], None
    for l in head.splitlines():
        if l[:1] in (" ", "\t") and lines:
            lines[-1] += "\n" + l
        else:
            lines.append(l)
    return lines, body


def wheel_view(path):
    z = zipfile.ZipFile(path)
    names = z.namelist()
    di = [n for n in names if n.split("/")[0].endswith(".dist-info")][0].split("/")[0]
    files = sorted(n for n in names if not n.startswith(di + "/"))
    meta = z.read(di + "/METADATA").decode()
    return z, files, meta


def exports(so_bytes, tmp):
    p = os.path.join(tmp, "mod.so")
    with open(p, "wb") as f:
        f.write(so_bytes)
    rc, out = run(["nm", "-D", "--defined-only", p])
    return {l.split()[-1] for l in out.splitlines() if l.strip()}


def step_build(sdist, venvs, tmp):
    cfg = os.path.join(tmp, "gsplat.cuwheel.toml")
    text = open(CONFIG).read() + "\n[tool.cuwheel.pythons]\n" + "".join(
        '"%s" = "%s"\n' % (v, p) for v, p in venvs.items())
    with open(cfg, "w") as f:
        f.write(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    env.update(CUWHEEL_ARCHS=ARCHS, CUWHEEL_MATRIX_PYTHON=",".join(PYTHONS), NO_COLOR="1")
    t0 = time.time()
    rc, out = run([CUWHEEL, "build", sdist, "--config", cfg, "-j", JOBS, "--no-test",
                   "--progress", "plain"], cwd=tmp, env=env)
    secs = time.time() - t0
    print(out[-4000:])
    check(rc == 0, "one cuwheel build %s --config ... made the wheels (%.0f s)" % (SDIST, secs))
    dist = os.path.join(tmp, "dist")
    wheels = {}
    for v in PYTHONS:
        tag = "cp" + v.replace(".", "")
        w = glob.glob(os.path.join(dist, "gsplat-1.5.3+pt211cu130-%s-%s-*.whl" % (tag, tag)))
        if check(len(w) == 1, "dist/ holds the %s wheel (%s)" % (tag, [os.path.basename(x) for x in w])):
            wheels[v] = w[0]
    build = os.path.join(tmp, "build", "cuwheel")
    n_cu = len([n for n in subprocess.run(["tar", "tzf", sdist], capture_output=True, text=True)
                .stdout.split() if n.startswith("gsplat-1.5.3/gsplat/cuda/csrc/") and n.endswith(".cu")
                and n.count("/") == 4])
    log = [l.rstrip("\n").split("\t") for l in open(os.path.join(build, ".ninja_log"))
           if not l.startswith("#")]
    cu = [l[3] for l in log if len(l) > 3 and l[3].endswith(".cu.o")]
    check(n_cu == 20 and len(cu) == n_cu and len(set(cu)) == n_cu,
          ".ninja_log: each of the sdist's %d .cu files compiled once for %d Pythons (%d nvcc runs)"
          % (n_cu, len(PYTHONS), len(cu)))
    archives = {os.path.dirname(c).split("/obj/")[0] for c in cu}
    check(len(archives) == 1, "one kernel archive for every cell: %s" % sorted(archives))
    binds = [l[3] for l in log if len(l) > 3 and l[3].endswith("/ext.cpp.o")]
    check(len(binds) == len(PYTHONS), "ext.cpp compiled once per Python (%d)" % len(binds))
    return wheels, secs


def step_pip_wheel(sdist, venvs, tmp):
    refs = {}
    root = os.path.dirname(os.path.dirname(os.path.realpath(shutil.which("nvcc") or
                                                            "/usr/local/cuda-13.0/bin/nvcc")))
    for v in PIP_PYTHONS:
        out_dir = os.path.join(tmp, "pip-" + v)
        env = dict(os.environ, TORCH_CUDA_ARCH_LIST=ARCHS, MAX_JOBS=JOBS, CUDA_HOME=root,
                   PIP_CACHE_DIR=os.path.join(CACHE, "pip"))
        if NO_CUDA_REF:
            env["BUILD_NO_CUDA"] = "1"
        t0 = time.time()
        rc, out = run([venvs[v], "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
                       "-w", out_dir, sdist], env=env, cwd=tmp)
        secs = time.time() - t0
        print(out[-2000:])
        w = glob.glob(os.path.join(out_dir, "gsplat-1.5.3-*.whl"))
        if check(rc == 0 and len(w) == 1,
                 "pip wheel --no-build-isolation --no-deps %s with Python %s%s (%.0f s)" %
                 (SDIST, v, " and BUILD_NO_CUDA=1" if NO_CUDA_REF else "", secs)):
            refs[v] = (w[0], secs)
    return refs


def step_compare(wheels, refs, tmp):
    for v, (ref, _) in refs.items():
        if v not in wheels:
            continue
        cz, cfiles, cmeta = wheel_view(wheels[v])
        pz, pfiles, pmeta = wheel_view(ref)
        if NO_CUDA_REF:
            pfiles = sorted(pfiles + ["gsplat/csrc.so"])  # what BUILD_NO_CUDA leaves out
        only_c = sorted(set(cfiles) - set(pfiles))
        only_p = sorted(set(pfiles) - set(cfiles))
        check(not only_c and not only_p,
              "Python %s: the same %d files outside .dist-info (only cuwheel: %s; only pip: %s)"
              % (v, len(cfiles), only_c[:5], only_p[:5]))
        ch, cbody = headers(cmeta)
        ph, pbody = headers(pmeta)
        ch_cmp = sorted(l for l in ch if not l.startswith("Version:") and
                        l != "Requires-Dist: torch>=2.11,<2.12")
        ph_cmp = sorted(l for l in ph if not l.startswith("Version:"))
        check(ch_cmp == ph_cmp and cbody == pbody,
              "Python %s: METADATA the same apart from Version and the torch pin (%d headers; "
              "differences %s)" % (v, len(ph), sorted(set(ch_cmp) ^ set(ph_cmp))[:6]))
        check("Version: 1.5.3+pt211cu130" in ch and "Version: 1.5.3" in ph,
              "Python %s: Version 1.5.3+pt211cu130 (cuwheel) vs 1.5.3 (pip)" % v)
        check("Requires-Dist: torch>=2.11,<2.12" in ch,
              "Python %s: cuwheel's wheel pins the torch it was built against" % v)
        for name, z in (("cuwheel", cz),) + ((("pip", pz),) if not NO_CUDA_REF else ()):
            syms = exports(z.read("gsplat/csrc.so"), tmp)
            check("PyInit_csrc" in syms, "Python %s: %s's gsplat/csrc.so exports PyInit_csrc "
                  "(%d dynamic symbols defined)" % (v, name, len(syms)))


def step_install(wheels, bases, venvs, tmp):
    for v, whl in wheels.items():
        venv = os.path.join(tmp, "fresh-" + v)
        rc, out = run([bases[v], "-m", "venv", venv])
        if not check(rc == 0, "a fresh venv of Python %s" % v):
            continue
        py = os.path.join(venv, "bin", "python")
        rc, site = run([venvs[v], "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        rc2, mine = run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        with open(os.path.join(mine.strip(), "torch-venv.pth"), "w") as f:
            f.write(site.strip() + "\n")
        env = dict(os.environ, PIP_CACHE_DIR=os.path.join(CACHE, "pip"))
        rc, out = run([py, "-m", "pip", "install", "-q", whl], env=env)
        print(out[-1500:])
        check(rc == 0, "pip installs %s (with its dependencies; torch seen through a .pth)" %
              os.path.basename(whl))
        empty = os.path.join(tmp, "empty-" + v)
        os.makedirs(empty, exist_ok=True)
        rc, out = run([py, "-c", "import gsplat.csrc as c, gsplat, torch; "
                       "print(c.__file__, torch.__version__, len(dir(c)))"], cwd=empty)
        print(out.strip()[-1500:])
        check(rc == 0 and os.path.join(venv, "") in out,
              "Python %s: import gsplat.csrc from the fresh venv" % v)


def main():
    print("Pythons %s, pip wheel for %s, archs %s, jobs %s, cache %s" %
          (" ".join(PYTHONS), " ".join(PIP_PYTHONS), ARCHS, JOBS, CACHE), flush=True)
    sdist = fetch_sdist()
    bases, venvs = torch_venvs()
    with tempfile.TemporaryDirectory(prefix="cuwheel-gsplat-") as tmp:
        if CONCURRENT:
            # pip wheel beside cuwheel build: on a loaded machine the two finish sooner
            # together (the timings then measure neither alone).
            box = {}
            th = threading.Thread(target=lambda: box.update(r=step_pip_wheel(sdist, venvs, tmp)))
            th.start()
            wheels, build_secs = step_build(sdist, venvs, tmp)
            th.join()
            refs = box.get("r", {})
        else:
            wheels, build_secs = step_build(sdist, venvs, tmp)
            refs = step_pip_wheel(sdist, venvs, tmp)
        step_compare(wheels, refs, tmp)
        step_install(wheels, bases, venvs, tmp)
        print("timings: cuwheel %d wheels %.0f s; pip wheel %s" %
              (len(wheels), build_secs,
               ", ".join("%s %.0f s" % (v, s) for v, (_, s) in refs.items())))
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
