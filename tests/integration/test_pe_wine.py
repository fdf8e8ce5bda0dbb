#!/usr/bin/env python3
"""test_pe_wine.py: the PE audit's load predictions against a real Windows loader. Builds PE
fixtures with Debian's mingw-w64 (nothing committed), packs each into a win_amd64 wheel,
runs `cuwheel audit --json` on it, and loads the fixture under wine64 with tests/pe/loader.c
(LoadLibraryExW with CPython's flags, then GetProcAddress(PyInit_<mod>)). The audit's verdict
(no error) must equal wine's outcome (loaded) on every fixture, and each must be the outcome
the fixture was built to show. Fake python3X.dll, torch and CUDA DLLs are mingw-built too.
Exits 77 (skip) when mingw or wine64 is missing or wine cannot start; prints the timings."""
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
CC64 = "x86_64-w64-mingw32-gcc"
CXX64 = "x86_64-w64-mingw32-g++"
CC32 = "i686-w64-mingw32-gcc"
DLLTOOL = "x86_64-w64-mingw32-dlltool"
SKIP = 77


def find_wine():
    for cand in (shutil.which("wine64"), "/usr/lib/wine/wine64", shutil.which("wine")):
        if cand and os.path.exists(cand):
            return cand
    return None


def find_wineserver(wine):
    d = os.path.dirname(wine)
    for cand in (os.path.join(d, "wineserver64"), os.path.join(d, "wineserver"),
                 shutil.which("wineserver")):
        if cand and os.path.exists(cand):
            return cand
    return None


def run_wine(cmd, env, timeout=300):
    """Runs a wine command with its output in a file, not a pipe: wine's helper processes
    (services.exe, ...) outlive it under a persistent wineserver and would hold a pipe open."""
    with tempfile.TemporaryFile("w+") as out:
        rc = subprocess.run(cmd, env=env, stdout=out, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, timeout=timeout).returncode
        out.seek(0)
        text = out.read()
    return subprocess.CompletedProcess(cmd, rc, text, "")


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode:
        sys.exit(f"FAIL: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r


class Fixtures:
    """Builds fake DLLs and modules in work/; every link is a real mingw link."""

    def __init__(self, work):
        self.work = work
        self.fake = os.path.join(work, "fake")  # DLLs only to link against
        os.makedirs(self.fake)

    def fake_dll(self, name, fn, cc=CC64):
        """A DLL `name` exporting int fn(void); returns its path (in fake/)."""
        src = os.path.join(self.fake, f"{fn}.c")
        with open(src, "w") as f:
            f.write(f"__declspec(dllexport) int {fn}(void) {{ return 7; }}\n")
        out = os.path.join(self.fake, name)
        sh([cc, "-shared", "-O1", "-o", out, src])
        return out

    def delay_lib(self, dll, fn):
        """An import library that delay-loads fn from dll (dlltool --output-delaylib)."""
        d = os.path.join(self.fake, f"{dll}.def")
        with open(d, "w") as f:
            f.write(f"LIBRARY {dll}\nEXPORTS\n  {fn}\n")
        lib = os.path.join(self.fake, f"lib{dll}_delay.a")
        sh([DLLTOOL, "--input-def", d, "--output-delaylib", lib, "--dllname", dll])
        return lib

    @staticmethod
    def set_delay_directory(dll, mapfile):
        """Writes the delay-import data directory that binutils 2.40's ld leaves empty (its
        delay descriptors are in the image, found by the loader through the helper's code):
        the RVA of dlltool's __DELAY_IMPORT_DESCRIPTOR_* from the link map, as link.exe
        would have written it (one 32-byte descriptor: dlltool writes no zero one after it)."""
        base = desc = None
        with open(mapfile) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2 and parts[1] == "__ImageBase":
                    base = int(parts[0], 16)
                elif len(parts) == 2 and parts[1].startswith("__DELAY_IMPORT_DESCRIPTOR_"):
                    desc = int(parts[0], 16)
        if base is None or desc is None:
            sys.exit(f"FAIL: no delay descriptor in {mapfile}")
        with open(dll, "r+b") as f:
            img = bytearray(f.read())
            entry = int.from_bytes(img[0x3c:0x40], "little") + 24 + 112 + 13 * 8
            img[entry:entry + 8] = (desc - base).to_bytes(4, "little") + (32).to_bytes(4,
                                                                                       "little")
            f.seek(0)
            f.write(img)

    def module(self, out, init, calls, link, cc=CC64, cxx=False, extra=()):
        """A DLL exporting `init` (unless None) that calls each fn in calls at init, linked
        against the files in link. Returns out."""
        src = out + (".cc" if cxx else ".c")
        ext = 'extern "C"' if cxx else "extern"
        body = "".join(f"{ext} __declspec(dllimport) int {fn}(void);\n" for fn in calls)
        body += "#include <string>\n" if cxx else ""
        pre = 'extern "C" ' if cxx else ""
        total = " + ".join(f"{fn}()" for fn in calls) or "0"
        if cxx:
            total += " + (int)std::to_string(41).size()"
        if init:
            body += f"{pre}__declspec(dllexport) void *{init}(void) {{ static int v; " \
                    f"v = {total}; return &v; }}\n"
        else:
            body += f"{pre}__declspec(dllexport) int helper_entry(void) {{ return {total}; }}\n"
        with open(src, "w") as f:
            f.write(body)
        delayed = any(str(x).endswith("_delay.a") for x in link)
        mapx = [f"-Wl,-Map,{out}.map"] if delayed else []
        sh([cxx and CXX64 or cc, "-shared", "-O1", "-o", out, src, *link, *extra, *mapx])
        if delayed:
            self.set_delay_directory(out, out + ".map")
        return out


PYD = "_m.cp312-win_amd64.pyd"
NEEDS = {}
CP312 = "cp312-cp312-win_amd64"


def build_fixtures(fx):
    """Returns the fixture table: (name, files {member: path}, requires, tag, main member,
    expected to load, what it shows)."""
    j = os.path.join
    w = fx.work
    py312 = fx.fake_dll("python312.dll", "py312_fn")
    py311 = fx.fake_dll("python311.dll", "py311_fn")
    py3 = fx.fake_dll("python3.dll", "py3_fn")
    cudart = fx.fake_dll("cudart64_12.dll", "cudart_fn")
    c10 = fx.fake_dll("c10.dll", "c10_fn")
    tcpu = fx.fake_dll("torch_cpu.dll", "torch_cpu_fn")
    helper = fx.fake_dll("helper.dll", "helper_fn")
    absent = fx.fake_dll("absent.dll", "absent_fn")
    os.makedirs(j(w, "mods"))
    m = lambda n: j(w, "mods", n)  # noqa: E731
    helper2 = fx.module(m("helper2.dll"), None, ["absent_fn"], [absent])
    delay = fx.delay_lib("absent.dll", "absent_fn")
    msvcp = fx.delay_lib("msvcp140.dll", "_Thrd_yield").replace("_delay.a", "_imp.a")
    with open(j(fx.fake, "msvcp140.dll.def"), "w") as f:
        f.write("LIBRARY msvcp140.dll\nEXPORTS\n  _Thrd_yield\n")
    sh([DLLTOOL, "--input-def", j(fx.fake, "msvcp140.dll.def"), "--output-lib", msvcp,
        "--dllname", "msvcp140.dll"])
    T = []

    def add(name, files, requires, tag, main, expect, shows):
        T.append((name, files, requires, tag, main, expect, shows))

    # What the audit must have read from each module for the fixture to show what it says.
    NEEDS.update({
        "cudart_missing": "cudart64_12.dll", "torch_declared": "torch_cpu.dll",
        "delay_loaded_missing": "absent.dll (delay-loaded)",
        "libstdcxx_not_bundled": "libstdc++-6.dll", "msvcp140_redistributable": "msvcp140.dll",
        "ucrt_api_sets": "api-ms-win-crt-runtime-l1-1-0.dll", "python311_in_cp312": "python311.dll",
        "abi3_python3": "python3.dll", "transitive_missing": "helper2.dll",
    })

    def mod(name, calls, link, init="PyInit__m", **kw):
        return fx.module(m(name), init, calls, link, **kw)

    add("cp312_python312", {f"demo/{PYD}": mod("a.pyd", ["py312_fn"], [py312])}, [], CP312,
        f"demo/{PYD}", True, "a .pyd importing python312.dll in a cp312 wheel")
    add("abi3_python3", {"demo/_m.pyd": mod("b.pyd", ["py3_fn"], [py3])}, [],
        "cp39-abi3-win_amd64", "demo/_m.pyd", True, "an abi3 .pyd importing python3.dll")
    add("python311_in_cp312", {f"demo/{PYD}": mod("c.pyd", ["py311_fn"], [py311])}, [], CP312,
        f"demo/{PYD}", False, "python311.dll in a cp312 wheel")
    add("cudart_missing", {f"demo/{PYD}": mod("d.pyd", ["py312_fn", "cudart_fn"],
                                              [py312, cudart])}, [], CP312,
        f"demo/{PYD}", False, "cudart64_12.dll that nothing provides (the reported failure)")
    add("cudart_nvidia_package", {f"demo/{PYD}": mod("e.pyd", ["py312_fn", "cudart_fn"],
                                                     [py312, cudart])},
        ["nvidia-cuda-runtime-cu12"], CP312, f"demo/{PYD}", True,
        "cudart64_12.dll from a declared nvidia-cuda-runtime-cu12 (its bin dir added)")
    add("torch_declared", {f"demo/{PYD}": mod("f.pyd", ["py312_fn", "c10_fn", "torch_cpu_fn"],
                                              [py312, c10, tcpu])}, ["torch"], CP312,
        f"demo/{PYD}", True, "c10.dll and torch_cpu.dll with torch declared")
    add("torch_undeclared", {f"demo/{PYD}": mod("g.pyd", ["py312_fn", "c10_fn", "torch_cpu_fn"],
                                                [py312, c10, tcpu])}, [], CP312,
        f"demo/{PYD}", False, "c10.dll and torch_cpu.dll without torch declared")
    add("i686_in_win_amd64", {f"demo/{PYD}": mod("h.pyd", [], [], cc=CC32)}, [], CP312,
        f"demo/{PYD}", False, "a 32-bit (i686) module in a win_amd64 wheel")
    add("delay_loaded_missing", {f"demo/{PYD}": mod("i.pyd", ["py312_fn", "absent_fn"],
                                                    [py312, delay])}, [], CP312,
        f"demo/{PYD}", True, "a missing DLL that is only delay-loaded (fails at first call)")
    add("bundled_beside", {f"demo/{PYD}": mod("k.pyd", ["py312_fn", "helper_fn"],
                                              [py312, helper]), "demo/helper.dll": helper},
        [], CP312, f"demo/{PYD}", True, "helper.dll bundled beside the module")
    add("bundled_elsewhere", {f"demo/{PYD}": mod("l.pyd", ["py312_fn", "helper_fn"],
                                                 [py312, helper]),
                              "demo/libs/helper.dll": helper}, [], CP312, f"demo/{PYD}",
        False, "helper.dll bundled in another directory of the wheel")
    add("transitive_missing", {f"demo/{PYD}": mod("n.pyd", ["py312_fn", "helper_entry"],
                                                  [py312, helper2]),
                               "demo/helper2.dll": helper2}, [], CP312, f"demo/{PYD}", False,
        "a bundled DLL that itself imports a missing DLL")
    add("no_pyinit", {f"demo/{PYD}": mod("o.pyd", ["py312_fn"], [py312], init="PyInit_other")},
        [], CP312, f"demo/{PYD}", False, "a module that exports PyInit_other, not PyInit__m")
    add("libstdcxx_not_bundled", {f"demo/{PYD}": mod("p.pyd", ["py312_fn"], [py312], cxx=True,
                                                     extra=["-shared-libgcc"])},
        [], CP312, f"demo/{PYD}", False, "mingw's libstdc++-6.dll, not bundled")
    add("msvcp140_redistributable", {f"demo/{PYD}": mod("q.pyd", ["py312_fn", "_Thrd_yield"],
                                                        [py312, msvcp])}, [], CP312,
        f"demo/{PYD}", True, "msvcp140.dll (the MSVC redistributable; wine has it built in)")
    add("ucrt_api_sets", {f"demo/{PYD}": mod("r.pyd", ["py312_fn", "_errno"], [py312],
                                             extra=["-lucrt"])},
        [], CP312, f"demo/{PYD}", True, "the UCRT through api-ms-win-crt-* API sets")
    return T


def wine_path(p):
    return "Z:" + p.replace("/", "\\")


def audit(wheel):
    r = subprocess.run([CUWHEEL, "audit", "--json", wheel], capture_output=True, text=True)
    try:
        res = json.loads(r.stdout)[0]
    except (ValueError, IndexError):
        sys.exit(f"FAIL: cuwheel audit --json {wheel} printed no JSON (rc {r.returncode})\n"
                 f"{r.stdout}{r.stderr}")
    if (r.returncode == 0) != res["ok"]:
        sys.exit(f"FAIL: audit exit code {r.returncode} disagrees with ok={res['ok']}")
    return res


def main():
    wine = find_wine()
    missing = [t for t in (CC64, CXX64, CC32, DLLTOOL) if not shutil.which(t)]
    if missing or not wine:
        print(f"SKIP: needs mingw-w64 and wine64 (missing: {missing or 'wine64'}); "
              "tools/install-deps installs them")
        return SKIP
    work = tempfile.mkdtemp(prefix="cuwheel-pe-")
    env = dict(os.environ, WINEPREFIX=os.path.join(work, "wineprefix"), WINEDEBUG="-all",
               WINEDLLOVERRIDES="mscoree,mshtml=", DISPLAY="")
    try:
        t0 = time.monotonic()
        fx = Fixtures(work)
        table = build_fixtures(fx)
        pydir = os.path.join(work, "python")  # what a CPython install puts beside python.exe
        os.makedirs(pydir)
        loader = os.path.join(pydir, "loader.exe")
        sh([CC64, "-O1", "-o", loader, os.path.join(ROOT, "tests", "pe", "loader.c")])
        for d in ("python312.dll", "python3.dll"):
            shutil.copy(os.path.join(fx.fake, d), pydir)
        # What the declared dependencies install and add to the DLL search path.
        deps = {"torch": ("torch/lib", ["c10.dll", "torch_cpu.dll"]),
                "nvidia-cuda-runtime-cu12": ("nvidia/cuda_runtime/bin", ["cudart64_12.dll"])}
        t_build = time.monotonic() - t0
        t1 = time.monotonic()
        try:
            r = run_wine([wine, "cmd", "/c", "exit"], env, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"SKIP: wine64 cannot start here: {e}")
            return SKIP
        t_wine_start = time.monotonic() - t1
        server = find_wineserver(wine)
        if server:  # one server for all the loads below, rather than one each
            # it daemonizes: no pipes, or run() would wait for the daemon to close them
            subprocess.run([server, "-p"], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
        probe = run_wine([wine, loader, "Z:\\nonexistent.dll", "-"], env)
        if "load-failed" not in probe.stdout:
            print(f"SKIP: wine64 cannot start here (rc {r.returncode}/{probe.returncode}): "
                  f"{(r.stderr + probe.stderr)[-400:]}")
            return SKIP
        print(f"{len(table)} fixtures built with mingw in {t_build:.1f}s; wine prefix "
              f"created in {t_wine_start:.1f}s")
        fails, loads, refusals = [], 0, 0
        t2 = time.monotonic()
        for name, files, requires, tag, main_member, expect, shows in table:
            blobs = {}
            for member, path in files.items():
                with open(path, "rb") as f:
                    blobs[member] = f.read()
            wheel = wheelfixture.make_wheel(os.path.join(work, "wheels", name), "demo", "1.0",
                                            tag, blobs, requires=requires)
            res = audit(wheel)
            site = os.path.join(work, "site", name)
            for member, data in blobs.items():
                os.makedirs(os.path.dirname(os.path.join(site, member)), exist_ok=True)
                with open(os.path.join(site, member), "wb") as f:
                    f.write(data)
            dirs = []
            for req in requires:
                sub, dlls = deps[req]
                d = os.path.join(work, "deps", name, sub)
                os.makedirs(d)
                for dll in dlls:
                    shutil.copy(os.path.join(fx.fake, dll), d)
                dirs.append(wine_path(d))
            base = os.path.basename(main_member)
            init = "PyInit_" + base.split(".")[0]
            w = run_wine([wine, loader, wine_path(os.path.join(site, main_member)), init, *dirs],
                         env)
            loaded = w.returncode == 0 and "loaded" in w.stdout
            errs = [f"{f['code']}: {f['message']}" for f in res["findings"]
                    if f["level"] == "error"]
            verdict = "loads" if res["ok"] else "fails"
            print(f"  {name:26} audit {verdict:5}  wine {w.stdout.strip() or w.returncode!r:20}"
                  f"  {shows}")
            for e in errs:
                print(f"      audit: {e}")
            needed = [n for e in res["elf_files"] if e["member"] == main_member
                      for n in e["needed"]]
            if name in NEEDS and NEEDS[name] not in needed:
                fails.append(f"{name}: the audit read imports {needed}, not {NEEDS[name]}")
            if res["ok"] != loaded:
                fails.append(f"{name}: audit says {verdict}, wine says "
                             f"{'loaded' if loaded else w.stdout.strip() + w.stderr[-300:]}")
            if loaded != expect:
                fails.append(f"{name}: built to {'load' if expect else 'fail'}, but wine "
                             f"{'loaded it' if loaded else 'refused it'}: {w.stdout.strip()}")
            loads += loaded
            refusals += not loaded
        print(f"{len(table)} fixtures, {loads} load and {refusals} fail under wine; wine runs "
              f"took {time.monotonic() - t2:.1f}s, the whole test {time.monotonic() - t0:.1f}s")
        if len(table) < 12 or loads < 4 or refusals < 4:
            fails.append("too few fixtures of each outcome")
        if fails:
            print("FAIL:\n  " + "\n  ".join(fails))
            return 1
        print("PASS: the audit's verdict matches wine's LoadLibrary on every fixture")
        return 0
    finally:
        server = wine and find_wineserver(wine)
        if server:
            subprocess.run([server, "-k"], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
