#!/usr/bin/env python3
"""audit_cases.py: builds deliberately broken (and good) wheels with real gcc/nvcc compiles and
checks that `cuwheel audit` catches each with the right finding, and that its platform tag and
external libraries agree with auditwheel's. Run by audit_cases.sh (CTest) with the test venv.

Usage: audit_cases.py [--keep DIR] [-k SUBSTRING]
"""
import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CUWHEEL = os.environ.get("CUWHEEL") or str(ROOT / "build/audit/cuwheel")
NVCC = os.environ.get("NVCC") or "/usr/local/cuda/bin/nvcc"
PLAT = "linux_x86_64"
EXT = ".cpython-312-x86_64-linux-gnu.so"

MOD_C = r"""
#define EXPORT __attribute__((visibility("default")))
#ifdef NEEDS_FOO
int foo_value(void);
#endif
#ifdef NEEDS_C10
int c10_value(void);
#endif
#ifdef NEEDS_CLOSE_RANGE
int close_range(unsigned, unsigned, int);
#endif
#ifdef NEEDS_ARC4RANDOM
unsigned arc4random(void);
#endif
#ifdef IMPORT
extern void *IMPORT(void);
#endif
#ifdef IMPORT2
extern void *IMPORT2(void);
#endif
#ifdef USE_GETPID
int getpid(void);
int helper_value(void) { return getpid(); }
#else
int helper_value(void) { return 1; }
#endif
#ifndef NO_PYINIT
EXPORT void *INIT(void)
{
	long v = helper_value();
#ifdef NEEDS_FOO
	v += foo_value();
#endif
#ifdef NEEDS_C10
	v += c10_value();
#endif
#ifdef NEEDS_CLOSE_RANGE
	v += close_range(100, 101, 0);
#endif
#ifdef NEEDS_ARC4RANDOM
	v += (long)arc4random();
#endif
#ifdef IMPORT
	v += (long)IMPORT();
#endif
#ifdef IMPORT2
	v += (long)IMPORT2();
#endif
	return (void *)v;
}
#endif
"""

LIB_C = r"""
__attribute__((visibility("default"))) int NAME(void) { return 42; }
"""

KERNEL_CU = r"""
__global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }
extern "C" __attribute__((visibility("default"))) void *PyInit__C(void)
{
	scale<<<1, 32>>>(nullptr);
	return nullptr;
}
"""


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise SystemExit(f"command failed: {' '.join(map(str, cmd))}\n{r.stdout}{r.stderr}")
    return r


class Builder:
    def __init__(self, tmp):
        self.tmp = Path(tmp)
        (self.tmp / "src").mkdir()
        (self.tmp / "src/mod.c").write_text(MOD_C)
        (self.tmp / "src/k.cu").write_text(KERNEL_CU)
        self.cache = {}

    def lib(self, soname, func, text=None):
        """A shared library with one exported function, SONAME soname (its C text: LIB_C, or
        text, which may import what the library leaves undefined)."""
        out = self.tmp / "libs" / soname
        if out.exists():
            return out
        out.parent.mkdir(exist_ok=True)
        src = self.tmp / "src" / (func + ".c")
        src.write_text(text or LIB_C.replace("NAME", func))
        run(["gcc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", out, src])
        return out

    def module(self, key, init="PyInit_mod", defines=(), ldflags=()):
        """A C extension module (no Python.h needed: PyInit returns void *)."""
        if key in self.cache:
            return self.cache[key]
        out = self.tmp / "build" / f"{key}.so"
        out.parent.mkdir(exist_ok=True)
        cmd = ["gcc", "-shared", "-fPIC", "-O1", "-fvisibility=hidden", f"-DINIT={init}"]
        cmd += [f"-D{d}" for d in defines] + ["-o", out, self.tmp / "src/mod.c"] + list(ldflags)
        run(cmd)
        self.cache[key] = out.read_bytes()
        return self.cache[key]

    def cuda(self, key, gencodes, cudart="static", ldflags=()):
        if key in self.cache:
            return self.cache[key]
        out = self.tmp / "build" / f"{key}.so"
        out.parent.mkdir(exist_ok=True)
        cmd = [NVCC, "-shared", "-Xcompiler=-fPIC,-fvisibility=hidden", f"-cudart={cudart}"]
        for g in gencodes:
            cmd += ["-gencode", g]
        cmd += ["-o", out, self.tmp / "src/k.cu"] + [f"-Xlinker={f}" for f in ldflags]
        run(cmd)
        self.cache[key] = out.read_bytes()
        return self.cache[key]


def b64(digest):
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def make_wheel(path, files, *, name="demo", version="0.1.0", tag="cp312-cp312-" + PLAT,
               requires=(), meta_name=None, meta_version=None, wheel_tags=None,
               purelib=False, record=None, zipmode=None, distinfo=None):
    """Writes a wheel. record(rows) may rewrite the RECORD rows; zipmode names a zip defect."""
    di = distinfo or f"{name}-{version}.dist-info"
    py, abi, plat = tag.split("-")
    tags = wheel_tags or [f"{p}-{a}-{q}" for p in py.split(".") for a in abi.split(".")
                          for q in plat.split(".")]
    meta = f"Metadata-Version: 2.4\nName: {meta_name or name}\nVersion: {meta_version or version}\n"
    meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
    wheel = "Wheel-Version: 1.0\nGenerator: audit_cases\n"
    wheel += f"Root-Is-Purelib: {'true' if purelib else 'false'}\n"
    wheel += "".join(f"Tag: {t}\n" for t in tags)
    members = dict(files)
    members[f"{di}/METADATA"] = meta.encode()
    members[f"{di}/WHEEL"] = wheel.encode()
    rows = [[n, "sha256=" + b64(hashlib.sha256(d).digest()), str(len(d))]
            for n, d in members.items()]
    rows.append([f"{di}/RECORD", "", ""])
    if record:
        rows = record(rows)
    members[f"{di}/RECORD"] = "".join(",".join(r) + "\n" for r in rows).encode()
    buf = io.BytesIO()

    class Unseekable(io.RawIOBase):
        def writable(self):
            return True

        def write(self, b):
            return buf.write(b)

    target = Unseekable() if zipmode == "data-descriptor" else buf
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for n, d in members.items():
            zi = zipfile.ZipInfo(n, (2020, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = (0o755 if n.endswith(".so") or ".so." in n else 0o644) << 16
            zf.writestr(zi, d)
            if zipmode == "duplicate" and n.endswith(".py"):
                import warnings
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    zf.writestr(zi, d)
        if zipmode == "comment":
            zf.comment = b"built by hand"
    data = buf.getvalue()
    if zipmode == "trailing":
        data += b"\0" * 16
    path.write_bytes(data)
    return path


def wheel_name(name="demo", version="0.1.0", tag="cp312-cp312-" + PLAT):
    return f"{name}-{version}-{tag}.whl"


def cases(b):
    """(id, wheel kwargs (files + make_wheel options), audit args, expected codes+text or None)."""
    good_mod = b.module("good", "PyInit_mod")
    init = {"demo/__init__.py": b""}
    libfoo = b.lib("libfoo.so.1", "foo_value")
    libc10 = b.lib("libc10.so", "c10_value")
    fake_cuda = b.lib("libcuda.so.1", "cuInit_fake")
    cuda_static = b.cuda("cuda_static", ["arch=compute_75,code=sm_75",
                                         "arch=compute_90,code=[sm_90,compute_90]"])
    cuda_shared = b.cuda("cuda_shared", ["arch=compute_75,code=sm_75"], cudart="shared")
    cuda_shared_rpath = b.cuda("cuda_shared_rpath", ["arch=compute_75,code=sm_75"],
                               cudart="shared",
                               ldflags=["-rpath=$ORIGIN/../nvidia/cu13/lib"])
    foo_mod = b.module("needs_foo", defines=["NEEDS_FOO"],
                       ldflags=[f"-L{libfoo.parent}", "-l:libfoo.so.1"])
    foo_bundled = b.module("foo_bundled", defines=["NEEDS_FOO"],
                           ldflags=[f"-L{libfoo.parent}", "-l:libfoo.so.1",
                                    "-Wl,-rpath,$ORIGIN/../demo.libs"])
    c10_mod = b.module("needs_c10", defines=["NEEDS_C10"],
                       ldflags=[f"-L{libc10.parent}", "-l:libc10.so"])
    abs_rpath = b.module("abs_rpath", ldflags=["-Wl,-rpath,/home/builder/project/build/lib"])
    no_init = b.module("no_init", defines=["NO_PYINIT"])
    other_init = b.module("other_init", "PyInit_other")
    glibc234 = b.module("glibc234", defines=["NEEDS_CLOSE_RANGE"])
    glibc236 = b.module("glibc236", defines=["NEEDS_ARC4RANDOM"])
    abi3 = b.module("abi3", "PyInit_mod", defines=["USE_GETPID"])
    # What a module imports, as the compiler leaves it: an undefined dynamic symbol each (and
    # getpid, so that auditwheel finds the libc it compares with).
    abi3_limited = b.module("abi3_limited", defines=["USE_GETPID", "IMPORT=PyModule_Create2",
                                                     "IMPORT2=_Py_Dealloc"])
    # PY_SSIZE_T_CLEAN turns PyArg_ParseTupleAndKeywords into its _SizeT form (tinyraster's).
    abi3_sizet = b.module("abi3_sizet", defines=["USE_GETPID",
                                                 "IMPORT=_PyArg_ParseTupleAndKeywords_SizeT"])
    abi3_private = b.module("abi3_private", defines=["USE_GETPID", "IMPORT=_PyObject_GetDictPtr"])
    abi3_too_new = b.module("abi3_too_new", defines=["USE_GETPID", "IMPORT=PyType_GetModuleByDef"])
    libtorch_python = b.lib("libtorch_python.so", "THPVariable_Wrap_fake")
    abi3_torch_python = b.module("abi3_torch_python", defines=["USE_GETPID", "IMPORT=PyModule_Create2"],
                                 ldflags=["-Wl,--no-as-needed", f"-L{libtorch_python.parent}",
                                          "-l:libtorch_python.so"])
    # A bundled helper the abi3 module loads (DT_NEEDED, RPATH $ORIGIN) that imports a private
    # CPython symbol: the module alone is clean, the wheel fails to import on 3.13.
    libhelper = b.lib("libhelper.so", "foo_value",
                      "extern int _PyLong_AsInt(void *);\n"
                      "__attribute__((visibility(\"default\"))) int foo_value(void)\n"
                      "{ return _PyLong_AsInt(0); }\n")
    abi3_helper = b.module("abi3_helper", defines=["USE_GETPID", "NEEDS_FOO",
                                                   "IMPORT=PyModule_Create2"],
                           ldflags=[f"-L{libhelper.parent}", "-l:libhelper.so",
                                    "-Wl,-rpath,$ORIGIN"])
    stable_shim = b.module("stable_shim", defines=["USE_GETPID", "IMPORT=aoti_torch_empty_strided",
                                                   "IMPORT2=torch_call_dispatcher"])
    stable_cxx = b.module("stable_cxx", defines=["USE_GETPID", 
        "IMPORT=aoti_torch_empty_strided",
        "IMPORT2=_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"])
    cu = "demo/_C" + EXT
    m = "demo/mod" + EXT
    R = "cuda-runtime"
    EP = "demo-0.1.0.dist-info/entry_points.txt"

    def drop(name):
        return lambda rows: [r for r in rows if r[0] != name]

    def corrupt(name):
        return lambda rows: [[r[0], "sha256=" + b64(b"x" * 32), r[2]] if r[0] == name else r
                             for r in rows]

    def md5(name):
        return lambda rows: [[r[0], "md5=" + b64(hashlib.md5(b"").digest()), r[2]]
                             if r[0] == name else r for r in rows]

    return [
        # --- broken wheels: (id, wheel options, extra args, [(code, text)]) ---
        ("undefined-symbol-from-nonpolicy-lib", dict(files={**init, m: foo_mod}), [],
         [("external-lib", "libfoo.so.1")]),
        ("shared-cudart-without-provider", dict(files={**init, cu: cuda_shared}), [],
         [("cuda-runtime-unprovided", "libcudart.so.13")]),
        ("shared-cudart-nvidia-without-origin-rpath",
         dict(files={**init, cu: cuda_shared}, requires=["nvidia-cuda-runtime~=13.0"]), [],
         [("cuda-rpath", "libcudart.so.13")]),
        ("absolute-rpath", dict(files={**init, m: abs_rpath}), [],
         [("rpath", "/home/builder/project/build/lib")]),
        ("cp311-module-in-cp312-wheel",
         dict(files={**init, "demo/mod.cpython-311-x86_64-linux-gnu.so": good_mod}), [],
         [("ext-python-abi", "cp311")]),
        ("missing-pyinit", dict(files={**init, m: no_init}), [],
         [("pyinit-missing", "PyInit_mod")]),
        ("module-name-differs-from-pyinit", dict(files={**init, m: other_init}), [],
         [("pyinit-mismatch", "PyInit_other")]),
        # A library the package loads by path (torch.ops.load_library): --library excuses
        # the PyInit_ of that member alone, every other check stays.
        ("library-flag-names-another-module", dict(files={**init, m: no_init}),
         ["--library", "demo._other"], [("pyinit-missing", "PyInit_mod")]),
        ("library-keeps-the-abi-check",
         dict(files={**init, "demo/mod.cpython-311-x86_64-linux-gnu.so": no_init}),
         ["--library", "demo.mod"], [("ext-python-abi", "cp311")]),
        ("missing-requested-arch", dict(files={**init, cu: cuda_static}),
         ["--require-arch", "75,86,90+PTX"], [("arch-missing", "sm_86")]),
        ("missing-requested-ptx", dict(files={**init, cu: cuda_static}),
         ["--require-arch", "75+PTX"], [("arch-missing", "compute_75")]),
        ("bad-record-hash", dict(files={**init, m: good_mod}, record=corrupt(m)), [],
         [("record-hash", "does not match")]),
        ("record-missing-a-file", dict(files={**init, m: good_mod}, record=drop(m)), [],
         [("record-missing-file", "not listed")]),
        ("record-md5", dict(files={**init, m: good_mod}, record=md5("demo/__init__.py")), [],
         [("record-format", "md5")]),
        ("data-descriptor", dict(files={**init, m: good_mod}, zipmode="data-descriptor"), [],
         [("zip-data-descriptor", "data descriptor")]),
        ("duplicate-member", dict(files={**init, m: good_mod}, zipmode="duplicate"), [],
         [("zip-duplicate", "more than once")]),
        ("archive-comment", dict(files={**init, m: good_mod}, zipmode="comment"), [],
         [("zip-comment", "comment")]),
        ("trailing-data", dict(files={**init, m: good_mod}, zipmode="trailing"), [],
         [("zip-trailing-data", "16 bytes")]),
        ("metadata-version-mismatch", dict(files={**init, m: good_mod}, meta_version="0.2.0"),
         [], [("metadata-version", "0.2.0")]),
        ("metadata-name-mismatch", dict(files={**init, m: good_mod}, meta_name="other"), [],
         [("metadata-name", "other")]),
        ("wheel-tags-mismatch", dict(files={**init, m: good_mod},
                                     wheel_tags=["cp311-cp311-" + PLAT]), [],
         [("wheel-tags", "cp311-cp311")]),
        ("bundled-libcuda", dict(files={**init, m: good_mod,
                                        "demo.libs/libcuda.so.1": fake_cuda.read_bytes()}), [],
         [("cuda-driver-bundled", "never be bundled")]),
        ("glibc-too-new-for-min-manylinux", dict(files={**init, m: glibc234}),
         ["--min-manylinux", "manylinux_2_28"], [("min-manylinux", "GLIBC_2.34")]),
        ("torch-lib-without-torch", dict(files={**init, m: c10_mod}), [],
         [("torch-unprovided", "libc10.so")]),
        ("abi3-imports-private-cpython-symbol",
         dict(files={**init, "demo/mod.abi3.so": abi3_private}, tag="cp310-abi3-" + PLAT), [],
         [("limited-api", "_PyObject_GetDictPtr, which is not part of CPython's limited API")]),
        ("abi3-imports-symbol-newer-than-baseline",
         dict(files={**init, "demo/mod.abi3.so": abi3_too_new}, tag="cp310-abi3-" + PLAT), [],
         [("limited-api", "PyType_GetModuleByDef, which joined the limited API in CPython 3.13, "
                          "after this wheel's baseline 3.10")]),
        ("abi3-bundled-helper-imports-private-cpython-symbol",
         dict(files={**init, "demo/mod.abi3.so": abi3_helper,
                     "demo/libhelper.so": libhelper.read_bytes()}, tag="cp310-abi3-" + PLAT), [],
         [("limited-api", "_PyLong_AsInt, which is not part of CPython's limited API")]),
        ("abi3-links-libtorch-python",
         dict(files={**init, "demo/mod.abi3.so": abi3_torch_python}, tag="cp310-abi3-" + PLAT,
              requires=["torch>=2.11"]), [],
         [("abi3-torch-python", "links libtorch_python.so")]),
        ("torch-stable-abi-module-uses-c10",
         dict(files={**init, "demo/mod.abi3.so": stable_cxx}, tag="cp310-abi3-" + PLAT,
              requires=["torch>=2.10"]), ["--torch-abi", "stable"],
         [("torch-unstable-abi", "in namespace c10")]),
        ("purelib-with-compiled-code", dict(files={**init, m: good_mod}, purelib=True), [],
         [("purelib-elf", "Root-Is-Purelib")]),
        # entry_points.txt is read by the entry-points specification's rules (issue 19)
        ("entry-points-line-without-equals",
         dict(files={**init, EP: b"[console_scripts]\na\nb = demo:main\n"}), [],
         [("entry-points", "line 2: an entry without '='")]),
        ("entry-points-script-path-name",
         dict(files={**init, EP: b"[console_scripts]\n../../evil = demo:main\n"}), [],
         [("entry-points", "a '/' or '\\' in a script name")]),
        ("entry-points-bad-object-ref",
         dict(files={**init, EP: b"[demo.plugins]\nx = demo:f g\n"}), [],
         [("entry-points", "line 2: an object reference that is not")]),
        ("entry-points-bad-group",
         dict(files={**init, EP: b"[my group]\nx = demo:f\n"}), [],
         [("entry-points", "line 1: a group name outside")]),
        ("entry-points-group-twice",
         dict(files={**init, EP: b"[g]\nx = demo:f\n[g]\ny = demo:g\n"}), [],
         [("entry-points", "group [g] appears twice")]),
        ("entry-points-before-group",
         dict(files={**init, EP: b"x = demo:f\n[g]\n"}), [],
         [("entry-points", "line 1: an entry before any [group]")]),
        # --- good wheels ---
        ("good-library-loaded-by-path", dict(files={**init, m: no_init}),
         ["--library", "demo.mod"], None),
        ("good-static-cudart", dict(files={**init, cu: cuda_static}),
         ["--require-arch", "7.5;9.0+PTX"], None),
        ("good-shared-cudart-with-torch",
         dict(files={**init, cu: cuda_shared}, requires=["torch>=2.6"]), [], None),
        ("good-shared-cudart-with-nvidia-runtime",
         dict(files={**init, cu: cuda_shared_rpath}, requires=["nvidia-cuda-runtime~=13.0"]),
         [], None),
        ("good-torch-lib-with-torch", dict(files={**init, m: c10_mod}, requires=["torch"]), [],
         None),
        ("good-bundled-lib-via-origin", dict(files={**init, m: foo_bundled,
                                                    "demo.libs/libfoo.so.1": libfoo.read_bytes()}),
         [], None),
        ("good-glibc-2.36", dict(files={**init, m: glibc236}), [], None),
        ("good-glibc-2.34-meets-min", dict(files={**init, m: glibc234}),
         ["--min-manylinux", "manylinux_2_34_x86_64"], None),
        ("good-abi3", dict(files={**init, "demo/mod.abi3.so": abi3},
                           tag="cp310-abi3-" + PLAT), [], None),
        ("good-abi3-limited-api-only", dict(files={**init, "demo/mod.abi3.so": abi3_limited},
                                            tag="cp310-abi3-" + PLAT), [], None),
        ("good-abi3-py-ssize-t-clean", dict(files={**init, "demo/mod.abi3.so": abi3_sizet},
                                            tag="cp310-abi3-" + PLAT), [], None),
        ("good-abi3-newer-symbol-newer-baseline",
         dict(files={**init, "demo/mod.abi3.so": abi3_too_new}, tag="cp313-abi3-" + PLAT), [],
         None),
        ("good-torch-stable-abi-shim-only",
         dict(files={**init, "demo/mod.abi3.so": stable_shim}, tag="cp310-abi3-" + PLAT,
              requires=["torch>=2.10"]), ["--torch-abi", "stable"], None),
        ("good-pure", dict(files=init, tag="py3-none-any", purelib=True), [], None),
        ("good-entry-points", dict(files={**init, EP: b"[console_scripts]\ndemo = demo.cli:main\n"
                                                     b"\n[demo.plugins]\n# a comment\nfast = "
                                                     b"demo.fast:Fast [accel]\nmod = demo\n"},
                                   tag="py3-none-any", purelib=True), [], None),
    ]


def auditwheel_view(py, wheel, exclude):
    """auditwheel's conclusion: `auditwheel show --json` when nothing is excluded, else the same
    analysis with the libraries excluded (what `auditwheel repair --exclude` computes)."""
    if not exclude:
        r = subprocess.run([py, "-m", "auditwheel", "show", "--json", str(wheel)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return None
        j = json.loads(r.stdout)
        from_policy = j["overall_tag"]
        return from_policy, sorted(j["external_libs"])
    code = f"""
import json, sys
from pathlib import Path
from auditwheel.wheel_abi import analyze_wheel_abi
w = analyze_wheel_abi(None, None, Path(sys.argv[1]), frozenset(json.loads(sys.argv[2])),
                      disable_isa_ext_check=False, allow_graft=False)
print(json.dumps([w.overall_policy.name,
                  sorted(w.external_refs[w.policies.lowest.name].libs)]))
"""
    r = subprocess.run([py, "-c", code, str(wheel), json.dumps(sorted(exclude))],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    tag, libs = json.loads(r.stdout)
    return tag, libs


def aliases_of(tag):
    """auditwheel's policy name plus its legacy aliases, as cuwheel writes platform_tag."""
    arch = "x86_64"
    legacy = {"manylinux_2_5": "manylinux1", "manylinux_2_12": "manylinux2010",
              "manylinux_2_17": "manylinux2014"}
    base = tag[: -len(arch) - 1]
    return tag + (f".{legacy[base]}_{arch}" if base in legacy else "")


def main(argv):
    keep = None
    only = None
    if "--keep" in argv:
        keep = Path(argv[argv.index("--keep") + 1])
    if "-k" in argv:
        only = argv[argv.index("-k") + 1]
    py = os.environ.get("AUDITWHEEL_PYTHON") or sys.executable
    have_auditwheel = subprocess.run([py, "-c", "import auditwheel"],
                                     capture_output=True).returncode == 0
    if not Path(NVCC).exists():
        print(f"audit_cases: nvcc not found at {NVCC}; set NVCC", file=sys.stderr)
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="cuwheel-audit-"))
    failures, agreed = [], 0
    try:
        b = Builder(tmp)
        out = keep or (tmp / "wheels")
        out.mkdir(parents=True, exist_ok=True)
        all_cases = cases(b)
        n_bad = sum(1 for c in all_cases if c[3])
        for cid, opts, args, expect in all_cases:
            if only and only not in cid:
                continue
            kw = dict(opts)
            files = kw.pop("files")
            tag = kw.get("tag", "cp312-cp312-" + PLAT)
            d = out / cid
            d.mkdir(exist_ok=True)
            wheel = make_wheel(d / wheel_name(tag=tag), files, **kw)
            r = subprocess.run([CUWHEEL, "audit", "--json", *args, str(wheel)],
                               capture_output=True, text=True)
            plain = subprocess.run([CUWHEEL, "audit", *args, str(wheel)],
                                   capture_output=True, text=True)
            try:
                res = json.loads(r.stdout)[0]
            except (ValueError, IndexError):
                failures.append(f"{cid}: no JSON (exit {r.returncode}): {r.stderr}")
                continue
            found = [(f["code"], f["message"]) for f in res["findings"]]
            if expect is None:
                if r.returncode != 0 or not res["ok"]:
                    failures.append(f"{cid}: expected OK, got exit {r.returncode}: {found}")
                elif plain.returncode != 0 or ": OK" not in plain.stdout:
                    failures.append(f"{cid}: plain report says\n{plain.stdout}")
            else:
                if r.returncode != 1 or plain.returncode != 1:
                    failures.append(f"{cid}: expected exit 1, got {r.returncode}")
                for code, text in expect:
                    if not any(c == code and text in msg for c, msg in found):
                        failures.append(f"{cid}: no {code} finding containing {text!r}; "
                                        f"got {found}")
                    if f"error: " not in plain.stdout or text not in plain.stdout:
                        failures.append(f"{cid}: plain report lacks {text!r}:\n{plain.stdout}")
            # Agreement with auditwheel on the tag and the external libraries.
            if have_auditwheel and res["platform_tag"]:
                excluded = [l["soname"] for l in res["external_libs"] if l["excluded"]]
                ours_libs = sorted(l["soname"] for l in res["external_libs"]
                                   if not l["excluded"])
                aw = auditwheel_view(py, wheel, excluded)
                if aw is None and expect is None:
                    failures.append(f"{cid}: auditwheel could not analyse the wheel")
                elif aw is None:
                    pass  # a broken wheel auditwheel refuses outright: nothing to compare
                else:
                    aw_tag, aw_libs = aw
                    if aliases_of(aw_tag) != res["platform_tag"]:
                        failures.append(f"{cid}: platform tag {res['platform_tag']} but "
                                        f"auditwheel says {aw_tag}")
                    elif aw_libs != ours_libs:
                        failures.append(f"{cid}: external libs {ours_libs} but auditwheel "
                                        f"says {aw_libs}")
                    else:
                        agreed += 1
            status = "ok" if not any(f.startswith(cid + ":") for f in failures) else "FAIL"
            print(f"{status:4} {cid}: {res['platform_tag'] or 'pure'}"
                  f" {[c for c, _ in found if c]}")
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n{n_bad} broken wheels, {len(all_cases) - n_bad} good; "
          f"{agreed} agreed with auditwheel")
    if not have_auditwheel:
        print("audit_cases: auditwheel is not importable: agreement NOT checked", file=sys.stderr)
        failures.append("auditwheel missing")
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
