#!/usr/bin/env python3
"""test_win_torch_flags.py: the torch kind's Windows command lines (examples/torchext's
`--stage win-graph` export) against torch.utils.cpp_extension's own Windows code, read from an
installed torch (build/torch-pythons, made by examples/torchext/setup-pythons), a torch wheel
in build/torch-wheel/ (`pip download torch==2.11.0 --no-deps -d build/torch-wheel`), or
$CUWHEEL_TORCH_CPP_EXTENSION. Each check prints the cpp_extension.py lines it relies on.
Exits 77 when no torch source is available."""
import ast
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()))
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
FAILS = []


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name)
    if not cond:
        FAILS.append(f"{name}: {detail}")


# The torch builds the example's Windows cells pair with: (venv folder, torch minor, CUDA).
BUILDS = (("", "2.11", "13.0"), ("pt212", "2.12", "13.0"), ("pt215", "2.15", "13.2"))


def torch_sources():
    """(where, source text, torch minor, CUDA) for each torch whose cpp_extension.py is here."""
    env = os.environ.get("CUWHEEL_TORCH_CPP_EXTENSION")
    if env and os.path.isfile(env):
        return [(env, open(env).read(), "2.11", "13.0")]
    found = []
    for sub, minor, cuda in BUILDS:
        for p in sorted(glob.glob(os.path.join(ROOT, "build", "torch-pythons", sub, "py3.*",
                                               "lib", "python3.*", "site-packages", "torch",
                                               "utils", "cpp_extension.py"))):
            found.append((p, open(p).read(), minor, cuda))
            break
    if not found:
        for w in sorted(glob.glob(os.path.join(ROOT, "build", "torch-wheel", "torch-*.whl"))):
            with zipfile.ZipFile(w) as z:
                return [(w + "!torch/utils/cpp_extension.py",
                         z.read("torch/utils/cpp_extension.py").decode(), "2.11", "13.0")]
    return found


def cite(src, pattern):
    """The 1-based numbers and text of the lines matching pattern (printed)."""
    hits = [(i + 1, line.strip()) for i, line in enumerate(src.splitlines())
            if re.search(pattern, line)]
    for n, line in hits[:3]:
        print(f"       cpp_extension.py:{n}: {line[:110]}")
    return hits


def subsequence(want, have):
    it = iter(have)
    return all(w in it for w in want)


def main():
    sources = torch_sources()
    if not sources:
        print("SKIP: no torch cpp_extension.py (run examples/torchext/setup-pythons, or pip "
              "download torch --no-deps -d build/torch-wheel)")
        return 77
    for where, src, minor, cuda in sources:
        check_torch(where, src, minor, cuda)
    if FAILS:
        print("FAILED:\n  " + "\n  ".join(FAILS))
        return 1
    print("PASS: the torch kind's Windows flags are cpp_extension's, for torch " +
          ", ".join(m for _, _, m, _ in sources))
    return 0


def check_torch(where, src, minor, cuda):
    print(f"reading {where} (torch {minor} cells, CUDA {cuda})")
    # The C++ standard this torch passes: cl.exe's (append_std17_if_no_std_present, despite
    # its name c++20 from torch 2.12) and nvcc's (the ninja path's cuda_cflags).
    cxx_std = re.search(r"cpp_flag = cpp_flag_prefix \+ '(c\+\+\d+)'", src)
    cu_std = re.search(r"cuda_cflags = \['-std=(c\+\+\d+)'\]", src)
    check(f"torch {minor}: cpp_extension.py names its C++ standards", cxx_std and cu_std)
    if not (cxx_std and cu_std):
        return
    tree = ast.parse(src)
    consts = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            try:
                consts[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    work = tempfile.mkdtemp(prefix="cuwheel-wintorch-")
    try:
        out = os.path.join(work, "graph")
        # The example's cells of this torch (Pythons 3.12 and 3.13), as test_win_graph
        # exports them.
        env = dict(os.environ, CUWHEEL_MATRIX_PLATFORM="win_amd64", CUWHEEL_MATRIX_CUDA=cuda,
                   CUWHEEL_MATRIX_TORCH=minor, CUWHEEL_MATRIX_PYTHON="3.12,3.13")
        r = subprocess.run([CUWHEEL, "-C", os.path.join(ROOT, "examples", "torchext"), "build",
                            "--stage", "win-graph", "--export", out], env=env,
                           capture_output=True, text=True)
        if r.returncode:
            print(r.stdout + r.stderr)
            FAILS.append(f"torch {minor}: win-graph export failed")
            return
        text = open(os.path.join(out, "build.ninja")).read()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    blocks = re.findall(r"^build obj/(cp3\d+)-pt[^/]+/torchext\._C/binding/ops\.cpp\.obj: cl .*\n"
                        r"(?:  .*\n)*?  flags = (.*)$", text, re.M)
    links = re.findall(r"^build stage/(cp3\d+)-pt[^:]*\.pyd: link .*\n  ldflags = (.*)$", text,
                       re.M)
    check("the torchext graph has a binding compile and a link per Python",
          len(blocks) == 2 and len(links) == 2, (blocks, links))
    rule = re.search(r"rule link\n  command = (.*)", text).group(1)
    for cell, flags in blocks:
        f = flags.split()
        print(f"{cell}: cl {flags[:100]}...")
        msvc = consts.get("COMMON_MSVC_FLAGS")
        cite(src, r"^COMMON_MSVC_FLAGS = ")
        cite(src, r"cflags = cflags \+ common_cflags \+ pp_opts \+ COMMON_MSVC_FLAGS")
        check(f"{cell}: COMMON_MSVC_FLAGS, in order", msvc and subsequence(msvc, f), msvc)
        cite(src, r"cpp_format_prefix = '/\{\}:' if self.compiler.compiler_type == 'msvc'")
        check(f"{cell}: /std:{cxx_std[1]} (append_std17_if_no_std_present, MSVC spelling)",
              f"/std:{cxx_std[1]}" in f and cite(src, r"cpp_flag = cpp_flag_prefix \+ 'c\+\+")
              and not any(x.startswith("/std:") and x != f"/std:{cxx_std[1]}" for x in f), f)
        check(f"{cell}: -DTORCH_API_INCLUDE_EXTENSION_H", "-DTORCH_API_INCLUDE_EXTENSION_H" in f
              and cite(src, r"_add_compile_flag\(extension, '-DTORCH_API_INCLUDE_EXTENSION_H'\)"))
        check(f"{cell}: -DTORCH_EXTENSION_NAME=_C (the module's last part)",
              "-DTORCH_EXTENSION_NAME=_C" in f and
              cite(src, r"define = f'-DTORCH_EXTENSION_NAME=\{name\}'"))
        check(f"{cell}: torch's include dirs (include, include/torch/csrc/api/include)",
              any("torch_inc_" in x for x in f) and any("torch_api_inc_" in x for x in f))
    # A .cu of the extension (binding/scale.cu): nvcc, cpp_extension's Windows cuda_cflags
    # then win_cuda_flags (COMMON_NVCC_FLAGS before the extension's nvcc args and the archs).
    cus = re.findall(r"^build obj/(cp3\d+)-pt[^/]+/torchext\._C/binding/scale\.cu\.obj: "
                     r"(\w+) .*\n(?:  .*\n)*?  flags = (.*)$", text, re.M)
    check("the torchext graph compiles binding/scale.cu per Python", len(cus) == 2, cus)
    for cell, rule_name, flags in cus:
        f = flags.split()
        print(f"{cell}: {rule_name} {flags[:100]}...")
        check(f"{cell}: scale.cu goes through nvcc", rule_name == "nvcc_cell" and
              re.search(r"rule nvcc_cell\n  command = \$nvcc ", text), rule_name)
        cite(src, r"cuda_cflags = \['-std=c\+\+")
        check(f"{cell}: -std={cu_std[1]} first (cuda_cflags)", f[:1] == [f"-std={cu_std[1]}"],
              f[:1])
        msvc = consts.get("COMMON_MSVC_FLAGS") or []
        cite(src, r"common_cflags.extend\(COMMON_MSVC_FLAGS\)")
        check(f"{cell}: COMMON_MSVC_FLAGS through -Xcompiler, in order", msvc and subsequence(
            [f"-Xcompiler={m}" for m in msvc], f), msvc)
        cite(src, r"cuda_cflags.append\('--use-local-env'\)")
        check(f"{cell}: --use-local-env", "--use-local-env" in f)
        ign = consts.get("MSVC_IGNORE_CUDAFE_WARNINGS") or []
        cite(src, r"^MSVC_IGNORE_CUDAFE_WARNINGS = ")
        supp = [f[i + 1] for i, x in enumerate(f[:-1]) if x == "-Xcudafe"]
        check(f"{cell}: MSVC_IGNORE_CUDAFE_WARNINGS through -Xcudafe, in order",
              ign and supp == [f"--diag_suppress={w}" for w in ign], (supp, ign))
        nv = consts.get("COMMON_NVCC_FLAGS") or []
        cite(src, r"^COMMON_NVCC_FLAGS = ")
        cite(src, r"return \(COMMON_NVCC_FLAGS \+")
        pos = {x: i for i, x in enumerate(f)}
        check(f"{cell}: COMMON_NVCC_FLAGS after the include dirs, before the extension's args",
              nv and subsequence(nv, f) and
              max(i for i, x in enumerate(f) if x.startswith(('-I', '"-I'))) < pos[nv[0]] and
              pos[nv[-1]] < pos.get("-DTORCH_EXTENSION_NAME=_C", -1), nv)
        check(f"{cell}: the archs last (_get_cuda_arch_flags)",
              f[-1].startswith("--generate-code="), f[-1:])
    # CUDAExtension: the libraries appended, in order, outside the HIP branch.
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and
              n.name == "CUDAExtension")
    libs = []

    def walk(nodes, hip=False):
        for n in nodes:
            if isinstance(n, ast.If):
                is_hip = "IS_HIP_EXTENSION" in ast.unparse(n.test)
                walk(n.body, hip or is_hip)
                walk(n.orelse, hip)
            elif isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and \
                    ast.unparse(n.value.func) == "libraries.append" and not hip:
                libs.append(ast.literal_eval(n.value.args[0]))
    walk(fn.body)
    print(f"CUDAExtension libraries (non-HIP): {libs}")
    cite(src, r"^def CUDAExtension")
    cite(src, r"libraries.append\('torch_python'\)")
    for cell, ld in links:
        got = [x[:-4] for x in ld.split() if x.endswith(".lib") and not x.startswith(
            ("/", '"')) and not x.startswith("python3")]
        check(f"{cell}: links CUDAExtension's libraries, in order", got == libs, (got, libs))
        check(f"{cell}: no /EXPORT (get_export_symbols on Windows returns export_symbols)",
              "/EXPORT:" not in ld and cite(src, r"Skips exporting the module \"PyInit_\""))
        check(f"{cell}: the pythonXY.lib of its Python", f"python{cell[2:]}.lib" in ld.split())
    check("link.exe /DLL (SHARED_FLAG)", "/DLL" in rule.split() and
          consts.get("SHARED_FLAG") in (None, "/DLL") and cite(src, r"^SHARED_FLAG = "))


if __name__ == "__main__":
    sys.exit(main())
