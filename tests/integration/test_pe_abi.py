#!/usr/bin/env python3
"""test_pe_abi.py: the limited-API (abi3) and torch stable-ABI checks on Windows wheels follow
what a .pyd loads. Builds every module and DLL with Debian's mingw-w64 (real compiles and links
against import libraries that dlltool makes from .def files, as python3.lib and torch's .lib
files are), packs them into win_amd64 wheels and runs `cuwheel audit` on each: a bundled DLL the
module imports (directly or through another bundled DLL), or any DLL of the wheel that imports
from a python3*.dll, must keep the module's promise, and a violation is refused naming the
wheel, the member and the symbol; clean helpers, version-specific wheels and the stable C shim
are accepted. Exits 77 (skip) when mingw-w64 is missing; prints the timings."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
import wheelfixture  # noqa: E402

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
CC = "x86_64-w64-mingw32-gcc"
CXX = "x86_64-w64-mingw32-g++"
DLLTOOL = "x86_64-w64-mingw32-dlltool"
SKIP = 77

# The import libraries: what each DLL exports (the names a real python3X.dll / torch DLL has).
EXPORTS = {
    "python310.dll": ["_PyLong_AsInt", "PyLong_AsLong", "PyModule_Create2"],
    "python312.dll": ["_PyLong_AsInt", "PyLong_AsLong", "PyModule_Create2"],
    "python3.dll": ["PyModule_Create2", "PyLong_AsLong", "PyType_GetModuleByDef"],
    "torch_cpu.dll": ["_ZN2at5emptyEv", '"?empty@at@@YAHXZ"', "aoti_torch_empty_strided"],
    "torch_python.dll": ["THPVariable_Wrap"],
}


def sh(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"FAIL: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r


class Build:
    def __init__(self, work):
        self.work = work
        self.libs = {}
        for dll, names in EXPORTS.items():
            d = os.path.join(work, dll + ".def")
            with open(d, "w") as f:
                f.write(f"LIBRARY {dll}\nEXPORTS\n" + "".join(f"  {n}\n" for n in names))
            lib = os.path.join(work, f"lib{dll}.a")
            sh([DLLTOOL, "--input-def", d, "--output-lib", lib, "--dllname", dll])
            self.libs[dll] = lib

    def image(self, name, text, link, cxx=False):
        """Compiles and links one DLL/.pyd from C (or C++) text against the import libraries
        of the DLLs in link (names of EXPORTS, or paths of DLLs built here)."""
        src = os.path.join(self.work, name + (".cc" if cxx else ".c"))
        os.makedirs(os.path.dirname(src), exist_ok=True)
        with open(src, "w") as f:
            f.write(text)
        out = os.path.join(self.work, name)
        sh([CXX if cxx else CC, "-shared", "-O1", "-static-libgcc", "-o", out, src,
            *[self.libs.get(x, x) for x in link]])
        with open(out, "rb") as f:
            return f.read(), out

    def module(self, name, calls, link):
        """A .pyd exporting PyInit__m that calls each C function in calls."""
        decl = "".join(f"extern __declspec(dllimport) long {c}(void);\n" for c in calls)
        body = " + ".join(f"{c}()" for c in calls) or "0"
        return self.image(name, decl + "__declspec(dllexport) void *PyInit__m(void)\n"
                          f"{{ static long v; v = {body}; return &v; }}\n", link)[0]

    def helper(self, name, calls, link, export="helper_fn"):
        """A DLL exporting long export(void) that calls each C function in calls; returns its
        bytes and path (to link against)."""
        decl = "".join(f"extern __declspec(dllimport) long {c}(void);\n" for c in calls)
        body = " + ".join(f"{c}()" for c in calls) or "0"
        return self.image(name, decl + f"__declspec(dllexport) long {export}(void)\n"
                          f"{{ return {body}; }}\n", link)


def cases(b):
    """(id, tag, files, requires, audit args, expected errors [(code, member, text)] or None
    for a wheel that must pass)."""
    h_private, h_private_p = b.helper("h_private/helper.dll", ["_PyLong_AsInt"],
                                      ["python310.dll"])
    h_new, h_new_p = b.helper("h_new/helper.dll", ["PyType_GetModuleByDef"], ["python3.dll"])
    h_clean, h_clean_p = b.helper("h_clean/helper.dll", ["PyLong_AsLong"], ["python3.dll"])
    h_shim, h_shim_p = b.helper("h_shim/helper.dll", ["aoti_torch_empty_strided"],
                                ["torch_cpu.dll"])
    h_thp, h_thp_p = b.helper("h_thp/helper.dll", ["THPVariable_Wrap"], ["torch_python.dll"])
    # at::empty() from torch_cpu.dll as g++ mangles it (Itanium), in a DLL that imports nothing
    # from Python: only following the imports reaches it.
    inner, inner_p = b.image("inner/inner.dll", "namespace at { __declspec(dllimport) int "
                             "empty(); }\nextern \"C\" __declspec(dllexport) long inner_fn() "
                             "{ return at::empty(); }\n", ["torch_cpu.dll"], cxx=True)
    h_chain, h_chain_p = b.helper("h_chain/helper.dll", ["inner_fn"], [inner_p])
    # at::empty() as MSVC decorates it (torch's Windows wheels are MSVC builds).
    h_msvc, h_msvc_p = b.image("h_msvc/helper.dll", "extern long msvc_empty(void) "
                               "__asm__(\"\\\"?empty@at@@YAHXZ\\\"\");\n"
                               "__declspec(dllexport) long helper_fn(void) "
                               "{ return msvc_empty(); }\n", ["torch_cpu.dll"])
    plugin, _ = b.helper("plugin/plugin.dll", ["_PyLong_AsInt"], ["python310.dll"],
                         export="plugin_fn")
    mod = lambda name, helper_p: b.module(  # noqa: E731
        name + "/_m.pyd", ["PyModule_Create2", "helper_fn"], ["python3.dll", helper_p])
    A3 = "cp310-abi3-win_amd64"
    S = ["--torch-abi", "stable"]
    T = ["torch>=2.10"]
    # A library its package loads by path (loaded-by = "path"): a .pyd exporting no PyInit_.
    lib312 = b.helper("lib312/_m.pyd", [], [], export="scale")[0]
    P312 = "cp312-cp312-win_amd64"
    return [
        ("library-without-pyinit", P312, {"demo/_m.cp312-win_amd64.pyd": lib312}, [], [],
         [("pyinit-missing", "demo/_m.cp312-win_amd64.pyd", "exports no PyInit__m")]),
        ("library-flag-names-another-module", P312, {"demo/_m.cp312-win_amd64.pyd": lib312},
         [], ["--library", "demo._other"],
         [("pyinit-missing", "demo/_m.cp312-win_amd64.pyd", "exports no PyInit__m")]),
        ("good-library-loaded-by-path", P312, {"demo/_m.cp312-win_amd64.pyd": lib312}, [],
         ["--library", "demo._m"], None),
        ("abi3-helper-private-symbol", A3,
         {"demo/_m.pyd": mod("m_private", h_private_p), "demo/helper.dll": h_private}, [], [],
         [("limited-api", "demo/helper.dll", "imports _PyLong_AsInt from python310.dll, which "
           "is not part of CPython's limited API")]),
        ("abi3-helper-newer-symbol", A3,
         {"demo/_m.pyd": mod("m_new", h_new_p), "demo/helper.dll": h_new}, [], [],
         [("limited-api", "demo/helper.dll", "imports PyType_GetModuleByDef from python3.dll, "
           "which joined the limited API in CPython 3.13, after this wheel's baseline 3.10")]),
        ("abi3-module-newer-symbol", A3,
         {"demo/_m.pyd": b.module("m_self/_m.pyd", ["PyType_GetModuleByDef"], ["python3.dll"])},
         [], [], [("limited-api", "demo/_m.pyd", "a stable-ABI (abi3) module imports "
                   "PyType_GetModuleByDef from python3.dll, which joined")]),
        ("abi3-unimported-dll-imports-python", A3,
         {"demo/_m.pyd": b.module("m_plain/_m.pyd", ["PyModule_Create2"], ["python3.dll"]),
          "demo/plugins/plugin.dll": plugin}, [], [],
         [("limited-api", "demo/plugins/plugin.dll", "imports _PyLong_AsInt from python310.dll")]),
        ("stable-helper-of-helper-itanium", A3,
         {"demo/_m.pyd": mod("m_chain", h_chain_p), "demo/helper.dll": h_chain,
          "demo/inner.dll": inner}, T, S,
         [("torch-unstable-abi", "demo/inner.dll", "references _ZN2at5emptyEv in namespace at "
           "from torch_cpu.dll")]),
        ("stable-helper-msvc", A3,
         {"demo/_m.pyd": mod("m_msvc", h_msvc_p), "demo/helper.dll": h_msvc}, T, S,
         [("torch-unstable-abi", "demo/helper.dll", "references ?empty@at@@YAHXZ in namespace "
           "at from torch_cpu.dll")]),
        ("stable-helper-torch-python", A3,
         {"demo/_m.pyd": mod("m_thp", h_thp_p), "demo/helper.dll": h_thp}, T, S,
         [("torch-unstable-abi", "demo/helper.dll", "links torch_python.dll"),
          ("torch-unstable-abi", "demo/helper.dll", "references THPVariable_Wrap from "
           "torch_python.dll"),
          ("abi3-torch-python", "demo/helper.dll", "links torch_python.dll")]),
        ("good-abi3-clean-helper", A3,
         {"demo/_m.pyd": mod("m_clean", h_clean_p), "demo/helper.dll": h_clean}, [], [], None),
        ("good-stable-shim-helper", A3,
         {"demo/_m.pyd": mod("m_shim", h_shim_p), "demo/helper.dll": h_shim}, T, S, None),
        ("good-abi3-torch-cxx-not-stable", A3,
         {"demo/_m.pyd": mod("m_cxx", h_chain_p), "demo/helper.dll": h_chain,
          "demo/inner.dll": inner}, T, [], None),
        ("good-cp312-helper-full-api", "cp312-cp312-win_amd64",
         {"demo/_m.cp312-win_amd64.pyd": b.module(
             "m312/_m.pyd", ["PyModule_Create2", "helper_fn"],
             ["python312.dll", b.helper("h312/helper.dll", ["_PyLong_AsInt"],
                                        ["python312.dll"])[1]]),
          "demo/helper.dll": b.helper("h312/helper.dll", ["_PyLong_AsInt"],
                                      ["python312.dll"])[0]}, [], [], None),
    ]


def main():
    missing = [t for t in (CC, CXX, DLLTOOL) if not shutil.which(t)]
    if missing:
        print(f"SKIP: needs mingw-w64 (missing: {missing}); tools/install-deps installs it")
        return SKIP
    work = tempfile.mkdtemp(prefix="cuwheel-pe-abi-")
    fails = []
    try:
        t0 = time.monotonic()
        table = cases(Build(work))
        t_build = time.monotonic() - t0
        for cid, tag, files, requires, args, expect in table:
            wheel = wheelfixture.make_wheel(os.path.join(work, "wheels", cid), "demo", "1.0",
                                            tag, files, requires=requires)
            name = os.path.basename(wheel)
            js = subprocess.run([CUWHEEL, "audit", "--json", *args, wheel],
                                capture_output=True, text=True)
            plain = subprocess.run([CUWHEEL, "audit", *args, wheel], capture_output=True,
                                   text=True)
            try:
                res = json.loads(js.stdout)[0]
            except (ValueError, IndexError):
                fails.append(f"{cid}: no JSON (exit {js.returncode}): {js.stderr}")
                continue
            errs = [(f["code"], f.get("member"), f["message"]) for f in res["findings"]
                    if f["level"] == "error"]
            print(f"{'ok  ' if expect is None or errs else 'FAIL'} {cid}: exit "
                  f"{plain.returncode}, errors {sorted({e[0] for e in errs})}")
            if expect is None:
                if js.returncode or plain.returncode or errs:
                    fails.append(f"{cid}: must pass, got exit {plain.returncode}: {errs}")
                continue
            if js.returncode != 1 or plain.returncode != 1 or res["ok"]:
                fails.append(f"{cid}: must be refused (exit 1), got {plain.returncode}")
            for code, member, text in expect:
                if not any(c == code and m == member and text in msg for c, m, msg in errs):
                    fails.append(f"{cid}: no {code} error on {member} containing {text!r}: "
                                 f"{errs}")
                # The report names the wheel (its heading), then the member and the symbol.
                lines = plain.stdout.splitlines()
                if not (lines and lines[0].startswith(f"{name}: FAIL") and any(
                        line.strip().startswith(f"error: {member}: ") and text in line
                        for line in lines)):
                    fails.append(f"{cid}: the report does not name {name}, then {member} "
                                 f"with {text!r}:\n{plain.stdout}{plain.stderr}")
        n_bad = sum(1 for c in table if c[5])
        print(f"{len(table)} wheels ({n_bad} broken, {len(table) - n_bad} good) built with "
              f"mingw in {t_build:.1f}s; the whole test {time.monotonic() - t0:.1f}s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if fails:
        print("FAIL:\n  " + "\n  ".join(fails))
        return 1
    print("PASS: PE helpers are held to the module's limited-API and stable-ABI promises")
    return 0


if __name__ == "__main__":
    sys.exit(main())
