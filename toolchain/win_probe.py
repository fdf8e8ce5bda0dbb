import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
QUERY = r'''
import json, os, sys, sysconfig
r = {"version": "%d.%d" % sys.version_info[:2], "include": sysconfig.get_paths()["include"],
     "libs": os.path.join(sys.base_prefix, "libs"), "executable": sys.executable}
if sys.argv[1:] == ["torch"]:
    try:
        import torch
        d = os.path.dirname(torch.__file__)
        r.update(torch=torch.__version__, torch_include=os.path.join(d, "include"),
                 torch_lib=os.path.join(d, "lib"))
    except Exception as e:
        r["torch_error"] = repr(e)
print(json.dumps(r))
'''


def fail(msg):
    sys.exit("probe.py: error: " + msg)


def value(s):
    """A path as a ninja variable value: '$' doubled, trailing separators dropped (a
    backslash before the closing quote of "/I<dir>" would escape it)."""
    if "\n" in s or '"' in s:
        fail("a path with a newline or a quote cannot be used: %r" % s)
    s = s.rstrip("\\/") or s
    return s.replace("$", "$$")


def program(path):
    """An executable as the first word of a command: quoted when it holds a space."""
    v = value(path)
    return '"%s"' % v if " " in v else v


def msvc():
    cl = shutil.which("cl")
    if not cl:
        fail("cl.exe is not on PATH: run in an MSVC developer environment (vcvars64.bat; in "
             "GitHub Actions, ilammy/msvc-dev-cmd)")
    tools = {"cl": cl}
    for t in ("link", "lib"):
        # MSVC's own, beside cl.exe: another link.exe (Git's coreutils) may come first on PATH.
        for name in (t + ".exe", t):
            p = os.path.join(os.path.dirname(cl), name)
            if os.path.isfile(p):
                tools[t] = p
                break
        else:
            fail("%s.exe is not beside %s" % (t, cl))
    return tools


def cuda(version):
    major, minor = version.split(".")
    root = os.environ.get("CUDA_PATH_V%s_%s" % (major, minor))
    if not root:
        for var in ("CUDA_PATH", "CUDA_HOME"):
            r = os.environ.get(var)
            try:
                with open(os.path.join(r or "", "version.json")) as f:
                    have = json.load(f)["cuda"]["version"]
            except (OSError, ValueError, KeyError, TypeError):
                continue
            if have.split(".")[:2] == [major, minor]:
                root = r
                break
    if not root:
        fail("CUDA %s not found: set CUDA_PATH_V%s_%s (the CUDA installer does) or CUDA_PATH to "
             "its root" % (version, major, minor))
    nvcc = os.path.join(root, "bin", "nvcc.exe")
    if not os.path.isfile(nvcc):
        fail("CUDA %s: no %s" % (version, nvcc))
    return {"nvcc": nvcc, "include": os.path.join(root, "include"),
            "lib": os.path.join(root, "lib", "x64")}


def python(want):
    """The interpreter for one Python of the matrix: CUWHEEL_PYTHON_3_12, the py launcher,
    this Python. abi3: any CPython at or above the baseline."""
    major, minor = (int(x) for x in want["version"].split("."))
    versions = [want["version"]]
    if want["abi3"]:
        versions = ["%d.%d" % (major, m) for m in range(minor, minor + 10)]
    cands = []
    for v in versions:
        env = os.environ.get("CUWHEEL_PYTHON_" + v.replace(".", "_"))
        if env:
            cands.append([env])
    if shutil.which("py"):
        cands += [["py", "-" + v] for v in versions]
    cands.append([sys.executable])
    seen = []
    for cmd in cands:
        try:
            r = subprocess.run(cmd + ["-c", QUERY] + (["torch"] if want["torch"] else []),
                               capture_output=True, text=True, timeout=300)
            info = json.loads(r.stdout)
        except (OSError, ValueError, subprocess.SubprocessError):
            continue
        seen.append("%s (%s)" % (" ".join(cmd), info["version"]))
        if info["version"] not in versions:
            continue
        if want["torch"] and not info.get("torch", "").startswith(want["torch"] + "."):
            seen[-1] += " torch %s" % info.get("torch", info.get("torch_error", "missing"))
            continue
        if os.name == "nt":
            lib = "python3.lib" if want["abi3"] else "python%d%d.lib" % (major, minor)
            if not os.path.isfile(os.path.join(info["libs"], lib)):
                fail("%s has no %s" % (info["libs"], lib))
        return info
    fail("no Python %s%s%s found (tried: %s); set CUWHEEL_PYTHON_%s to one" % (
        want["version"], " or newer" if want["abi3"] else "",
        " with torch %s" % want["torch"] if want["torch"] else "",
        ", ".join(seen) or "nothing", want["version"].replace(".", "_")))


def main():
    lines = ["# Written by probe.py on this runner; build.ninja includes it."]
    tools = msvc()
    for t in ("cl", "link", "lib"):
        lines.append("%s = %s" % (t, program(tools[t])))
    for key, version in sorted(TOOLKITS.items()):
        c = cuda(version)
        lines.append("nvcc_%s = %s" % (key, program(c["nvcc"])))
        lines.append("cuda_inc_%s = %s" % (key, value(c["include"])))
        lines.append("cuda_lib_%s = %s" % (key, value(c["lib"])))
    for key, want in sorted(PYTHONS.items()):
        info = python(want)
        lines.append("# %s: %s (Python %s)" % (key, info["executable"], info["version"]))
        lines.append("py_inc_%s = %s" % (key, value(info["include"])))
        lines.append("py_libs_%s = %s" % (key, value(info["libs"])))
        if want["torch"]:
            lines.append("torch_inc_%s = %s" % (key, value(info["torch_include"])))
            lines.append("torch_api_inc_%s = %s" % (key, value(os.path.join(
                info["torch_include"], "torch", "csrc", "api", "include"))))
            lines.append("torch_lib_%s = %s" % (key, value(info["torch_lib"])))
    out = os.path.join(HERE, "paths.ninja")
    with open(out + ".tmp", "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(out + ".tmp", out)
    print("probe.py: wrote " + out)


if __name__ == "__main__":
    main()
