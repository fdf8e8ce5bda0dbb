"""What setup.py says cannot become a command, a table or a wrong location in the config
`cuwheel init` writes:

- flags that make a compiler or linker run a program or load code (-wrapper, -fplugin=, -specs=,
  -B, @file, nvcc's -ccbin, -Xcompiler/-Xlinker/-Wl, forms) are refused, each named with its
  setup.py:LINE:COL, by `init` and by a config-free `plan`, and no config is written;
- hostile strings (newlines, ']', quotes, control characters, Unicode line separators, bidi
  overrides) in every captured string init writes, as values and in comments, come back from
  Python's tomllib exactly and add no table or key;
- setup()'s own keywords are labelled with their line when an Extension(...) call starts on
  the line of setup(...) (they were labelled setup.py:0).

Needs the torch 2.11 venv build/torch-pythons/py3.12 (the capture's Python; its tomllib reads
the config back). Run from the repository root with $CUWHEEL set (CTest does both)."""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run, failures  # noqa: E402
from testskip import skip  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/debug/cuwheel"))
VENV = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin")
IMPORT_TEST = "python -c 'import demo._c'"
C_SOURCE = ("#include <Python.h>\nstatic struct PyModuleDef m = {PyModuleDef_HEAD_INIT, \"_c\"};\n"
            "PyMODINIT_FUNC PyInit__c(void) { return PyModule_Create(&m); }\n")


def make_project(tmp, name, setup_py):
    proj = os.path.join(tmp, name)
    os.makedirs(os.path.join(proj, "src"))
    os.makedirs(os.path.join(proj, "demo"))
    open(os.path.join(proj, "demo", "__init__.py"), "w").close()
    with open(os.path.join(proj, "src", "c.c"), "w") as f:
        f.write(C_SOURCE)
    with open(os.path.join(proj, "setup.py"), "w") as f:
        f.write(setup_py)
    return proj


def position(text, needle):
    """LINE:COL (1-based) of the first needle in text."""
    i = text.index(needle)
    line = text.count("\n", 0, i) + 1
    return "%d:%d" % (line, i - (text.rfind("\n", 0, i) + 1) + 1)


HEAD = "from setuptools import setup, Extension\n"

# name -> (setup.py, the argument named, the string whose position is given)
CODE_FLAGS = {
    "cxx-wrapper": (HEAD + textwrap.dedent("""\
        setup(name="demo", version="1.0", packages=["demo"],
              ext_modules=[Extension("demo._c", ["src/c.c"],
                                     extra_compile_args={"cxx": ["-O2", "-wrapper",
                                                                 "/bin/sh,-c,touch /tmp/x"],
                                                         "nvcc": []})])
        """), "-wrapper", '"-wrapper"'),
    "plugin-list": (HEAD + textwrap.dedent("""\
        ext = Extension("demo._c", ["src/c.c"], extra_compile_args=["-fplugin=./p.so"])
        setup(name="demo", version="1.0", packages=["demo"], ext_modules=[ext])
        """), "-fplugin=./p.so", '"-fplugin=./p.so"'),
    "nvcc-ccbin": (HEAD + textwrap.dedent("""\
        setup(name="demo", version="1.0", packages=["demo"], ext_modules=[Extension(
            "demo._c", ["src/c.c"],
            extra_compile_args={"cxx": [], "nvcc": ["-O3", "-ccbin", "/tmp/evil-g++"]})])
        """), "-ccbin", '"-ccbin"'),
    "nvcc-xcompiler": (HEAD + textwrap.dedent("""\
        setup(name="demo", version="1.0", packages=["demo"], ext_modules=[Extension(
            "demo._c", ["src/c.c"],
            extra_compile_args={"cxx": [], "nvcc": ["-Xcompiler", "-fPIC,-specs=/tmp/s"]})])
        """), "-fPIC,-specs=/tmp/s", '"-fPIC,-specs=/tmp/s"'),
    "link-plugin": (HEAD + textwrap.dedent("""\
        setup(name="demo", version="1.0", packages=["demo"], ext_modules=[Extension(
            "demo._c", ["src/c.c"], extra_link_args=["-Wl,-O1,-plugin,/tmp/p.so"])])
        """), "-Wl,-O1,-plugin,/tmp/p.so", '"-Wl,-O1,-plugin,/tmp/p.so"'),
    "response-file-built": (HEAD + textwrap.dedent("""\
        flags = ["@" + "args.rsp"]
        setup(name="demo", version="1.0", packages=["demo"], ext_modules=[Extension(
            "demo._c", ["src/c.c"], extra_compile_args=flags)])
        """), "@args.rsp", "flags)"),  # not written as a string: the keyword's value
    "same-line": (HEAD + 'setup(name="demo", version="1.0", packages=["demo"], ext_modules=['
                  'Extension("demo._c", ["src/c.c"], extra_compile_args=["-B/tmp/bin"])])\n',
                  "-B/tmp/bin", '"-B/tmp/bin"'),
}

HOSTILE = [
    'a\n[tool.cuwheel.test]\ncommand = "touch /tmp/pwned"\n',
    'b]\r\n[tool.cuwheel.pythons]\n"3.12" = "/tmp/evil"',
    "c\"'\\\\ \\\" ]] [[x]] # not a comment",
    "d\x01\x1b[31m\x7f\x08\t\x0b\x0c",
    "e\u2028[tool.cuwheel.test]\u2029\u0085line",
    "f\u202eevil\u2066x\u2069 \u00e9\u4e2d",
]

HOSTILE_SETUP = HEAD + textwrap.dedent("""\
    H = %r
    setup(name="demo", version="1.0", description=H[1], url="https://x.example/" + H[2],
          author=H[3], author_email="a@b.example", install_requires=["numpy"],
          extras_require={"ex": ["numpy"]},
          packages=["demo"], py_modules=H, scripts=H,
          entry_points={H[0]: ["x = demo:f"], "console_scripts": ["demo-x = demo:main"]},
          ext_modules=[Extension("demo._c", ["src/c.c"], library_dirs=H,
                                 define_macros=[("X", H[4]), ("Y", H[5])])])
    """) % (HOSTILE,)

TOMLLIB_CHECK = r"""
import json, sys, tomllib
with open(sys.argv[1], "rb") as f:
    doc = tomllib.load(f)
print(json.dumps(doc))
"""


def code_flag_cases(tmp, env):
    for name, (setup_py, arg, where) in CODE_FLAGS.items():
        proj = make_project(tmp, name, setup_py)
        out_toml = os.path.join(tmp, name + ".toml")
        rc, out = run([CUWHEEL, "init", "-o", out_toml], cwd=proj, env=env)
        print(out.strip()[-1200:])
        loc = "setup.py:%s: error:" % position(setup_py, where)
        check(rc == 1, "%s: init exits 1 (%d)" % (name, rc))
        check(loc in out, "%s: the refusal is located at %s" % (name, loc))
        check("holds '%s', which" % arg in out, "%s: the refusal names %r" % (name, arg))
        check("trusted-flags" in out, "%s: the hint names trusted-flags" % name)
        check(not os.path.exists(out_toml), "%s: no config written" % name)
    # A config-free plan reads the build from setup.py the same way: refused too.
    proj = os.path.join(tmp, "cxx-wrapper")
    rc, out = run([CUWHEEL, "plan"], cwd=proj, env=env)
    check(rc == 1 and "holds '-wrapper', which makes the compiler run a program" in out,
          "a config-free plan refuses the captured -wrapper (%d)" % rc)


def hostile_strings(tmp, env):
    proj = make_project(tmp, "hostile", HOSTILE_SETUP)
    out_toml = os.path.join(tmp, "hostile.toml")
    rc, out = run([CUWHEEL, "init", "-o", out_toml], cwd=proj, env=env)
    print(out.strip()[-800:])
    if not check(rc == 0 and os.path.exists(out_toml), "hostile: init writes a config (%d)" % rc):
        return
    with open(out_toml, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8")
    print(text)
    p = subprocess.run([os.path.join(VENV, "python"), "-c", TOMLLIB_CHECK, out_toml],
                       capture_output=True, text=True)
    if not check(p.returncode == 0, "hostile: tomllib reads the config (%s)" % p.stderr[-500:]):
        return
    import json
    doc = json.loads(p.stdout)
    tool = doc["tool"]["cuwheel"]
    check(set(doc) == {"project", "tool"}, "hostile: top-level tables are project and tool (%s)"
          % sorted(doc))
    check(set(doc["tool"]) == {"cuwheel"}, "hostile: tool holds cuwheel only")
    check(set(tool) <= {"packages", "build-dir", "dist-dir", "extension", "matrix", "kernels",
                        "test"},
          "hostile: [tool.cuwheel] holds no key setup.py added (%s)" % sorted(tool))
    # init's own test table (setup.py names no test): every module built must import
    check(tool.get("test") == {"command": IMPORT_TEST} and "pythons" not in tool,
          "hostile: [tool.cuwheel.test] is init's import test, no [tool.cuwheel.pythons] (%r)"
          % tool.get("test"))
    lines = text.split("\n")
    check([l for l in lines if l.startswith(("[tool.cuwheel.test", "[tool.cuwheel.pythons"))]
          == ["[tool.cuwheel.test]"], "hostile: one line starts a test table, none a pythons one")
    check(not [l for l in lines if l.lstrip().startswith('"3.12"')] and
          [l.split("#")[0].rstrip() for l in lines if l.startswith("command")]
          == ["command = %s" % json.dumps(IMPORT_TEST)],
          "hostile: no line sets a key of setup.py's (the one command is the import test)")
    for ch in ["\r", "\x01", "\x1b", "\x7f", "\x08", "\x0b", "\x0c", "\u2028", "\u2029",
               "\u0085", "\u202e", "\u2066", "\u2069"]:
        check(ch not in text, "hostile: the file holds no raw %r" % ch)
    proj_tbl = doc["project"]
    check(proj_tbl.get("description") == HOSTILE[1], "hostile: description round-trips")
    check(proj_tbl.get("urls", {}).get("Homepage") == "https://x.example/" + HOSTILE[2],
          "hostile: url round-trips")
    check(proj_tbl.get("authors", [{}])[0].get("name") == HOSTILE[3],
          "hostile: author round-trips")
    check(set(proj_tbl.get("entry-points", {})) == {HOSTILE[0]},
          "hostile: the entry-point group round-trips as one key (%s)"
          % sorted(proj_tbl.get("entry-points", {})))
    check(proj_tbl.get("scripts") == {"demo-x": "demo:main"}, "hostile: console_scripts kept")
    ext = tool["extension"][0] if isinstance(tool["extension"], list) else tool["extension"]
    check(ext.get("defines") == ["X=" + HOSTILE[4], "Y=" + HOSTILE[5]],
          "hostile: define values round-trip (%r)" % ext.get("defines"))
    # the comments: py_modules, scripts and library_dirs are written escaped, one line each
    for what in ("py_modules", "scripts", "library_dirs"):
        hit = [l for l in lines if what in l and l.lstrip().startswith("#")]
        check(len(hit) == 1 and "[tool.cuwheel.test]" in hit[0],
              "hostile: the %s comment holds the hostile names on one line" % what)


def same_line_labels(tmp, env):
    setup_py = HEAD + textwrap.dedent("""\
        setup(name="demo", version="1.0", packages=["demo"], ext_modules=[Extension("demo._c", ["src/c.c"])],
              py_modules=["loose"],
              scripts=["bin/tool"])
        """)
    proj = make_project(tmp, "labels", setup_py)
    with open(os.path.join(proj, "loose.py"), "w") as f:
        f.write("X = 1\n")
    rc, out = run([CUWHEEL, "init", "-o", "-"], cwd=proj, env=env)
    print(out)
    check(rc == 0, "labels: init succeeds (%d)" % rc)
    check("setup.py:0" not in out, "labels: no keyword is labelled setup.py:0")
    check("# setup.py:2 packages: demo" in out, "labels: packages is labelled line 2")
    check("setup.py:3 py_modules" in out, "labels: py_modules is labelled line 3")
    check("setup.py:4 scripts" in out, "labels: scripts is labelled line 4")
    check('module = "demo._c"' in out and "# setup.py:2 name" in out,
          "labels: the extension's name is labelled line 2")


def main():
    if not os.path.exists(os.path.join(VENV, "python")):
        skip("no torch venv at build/torch-pythons/py3.12 (examples/torchext/setup-pythons)")
    env = dict(os.environ, PATH=VENV + os.pathsep + os.environ.get("PATH", ""))
    for k in [k for k in env if k.startswith("CUWHEEL_") and k != "CUWHEEL_CACHE_DIR"]:
        del env[k]
    tmp = tempfile.mkdtemp(prefix="cuwheel-init-hostile-")
    try:
        code_flag_cases(tmp, env)
        hostile_strings(tmp, env)
        same_line_labels(tmp, env)
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept %s" % tmp)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("init hostile: OK")


if __name__ == "__main__":
    main()
