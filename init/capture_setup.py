"""capture_setup.py: what a project's setup.py says, recorded instead of built.

cuwheel embeds this file (CMake turns it into a C array) and runs it as
    python capture_setup.py OUT.json PROJECT_COPY
on a throwaway copy of the project, with no network. It replaces setuptools.setup (and
distutils') by a recorder, runs setup.py as `python setup.py build_ext` would (same globals,
sys.argv, __file__), and writes one JSON document (format 1) to OUT.json: every setup() call
with its extensions (name, sources, include/library dirs, macros, compile args per compiler,
link args, libraries, py_limited_api), the build_ext class and its options, packages,
package_dir, package_data, py_modules, entry points, scripts and the metadata keywords; with
the setup.py line each came from. Paths are made project-relative; torch's, Python's and
CUDA's own include and library dirs are dropped (cuwheel adds them) and listed as dropped.
A failure is recorded too (kind, message, line), and so is every network attempt.
"""
import ast
import json
import os
import re
import socket
import sys
import sysconfig
import traceback

FORMAT = 1
OUT = sys.argv[1]
os.chdir(sys.argv[2])
ROOT = os.path.realpath(os.getcwd())
SETUP = os.path.join(ROOT, "setup.py")
result = {"format": FORMAT, "calls": [], "network": [], "error": None, "torch": None,
          "python": "%d.%d" % sys.version_info[:2]}


# --- no network: every attempt is recorded and refused ------------------------------------
def _refuse(what):
    def refused(*args, **kwargs):
        target = args[1] if what == "connect" and len(args) > 1 else args[0] if args else None
        result["network"].append({"call": what, "target": repr(target)[:200],
                                  "line": _setup_line()})
        raise OSError("cuwheel capture: no network (%s %r)" % (what, target))
    return refused


socket.socket.connect = _refuse("connect")
socket.socket.connect_ex = _refuse("connect")
socket.create_connection = _refuse("create_connection")
socket.getaddrinfo = _refuse("getaddrinfo")


def _setup_line():
    """The innermost line of setup.py on the current stack, or None."""
    pos = _setup_pos()
    return pos[0] if pos else None


def _setup_pos():
    """(line, end_line, col, end_col) of the instruction the innermost setup.py frame on the
    stack is running (a call: the whole call expression; cols 0-based, None before Python
    3.11), or None."""
    f = sys._getframe(1)
    while f is not None:
        if os.path.realpath(f.f_code.co_filename) == SETUP:
            try:
                return tuple(list(f.f_code.co_positions())[f.f_lasti // 2])
            except (AttributeError, IndexError):
                return (f.f_lineno, None, None, None)
        f = f.f_back
    return None


# --- where each keyword of a call is written ----------------------------------------------
try:
    with open(SETUP, "rb") as fh:
        _TREE = ast.parse(fh.read(), SETUP)
except Exception:  # the run below reports the syntax error
    _TREE = None


def _cuda_switches():
    """The CUDA switches setup.py names: string constants such as "FORCE_CUDA", "WITH_CUDA",
    "BUILD_NO_CUDA" (an environment variable it may read to decide on CUDA)."""
    out = set()
    for node in ast.walk(_TREE) if _TREE is not None else ():
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and
                re.fullmatch(r"[A-Z][A-Z0-9_]*CUDA[A-Z0-9_]*", node.value)):
            out.add(node.value)
    return sorted(out - {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "TORCH_CUDA_ARCH_LIST",
                         "CUDA_VISIBLE_DEVICES"})


def _cu_files(limit=8):
    """The project's first .cu files (sorted), build and hidden directories left out."""
    found = []
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "build")
        found += [os.path.relpath(os.path.join(d, f), ROOT) for f in sorted(files)
                  if f.endswith(".cu")]
        if len(found) >= limit:
            break
    return found[:limit]


def _call_name(node):
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _the_call(pos, is_setup):
    """The ast.Call of setup.py that pos (from _setup_pos) is running: the call whose span is
    pos's where Python says it (3.11+), else the innermost call spanning pos's line that is
    named setup (is_setup) or is not (an extension), else the innermost one."""
    if _TREE is None or not pos or pos[0] is None:
        return None
    line = pos[0]
    calls = [n for n in ast.walk(_TREE) if isinstance(n, ast.Call)
             and n.lineno <= line <= (n.end_lineno or line)]
    for n in calls:
        if (n.lineno, n.end_lineno, n.col_offset, n.end_col_offset) == tuple(pos):
            return n
    named = [n for n in calls if (_call_name(n) == "setup") == is_setup]
    pool = named or calls
    return max(pool, key=lambda n: (n.lineno, n.col_offset)) if pool else None


def _keyword_lines(pos, is_setup):
    """({keyword: line}, {keyword: column}) of the call pos is running in setup.py: "@" is the
    call itself, "#N" its Nth positional argument; columns are 1-based."""
    best = _the_call(pos, is_setup)
    if best is None:
        return {}, {}
    lines, cols = {"@": best.lineno}, {"@": best.col_offset + 1}
    for i, a in enumerate(best.args):
        lines["#%d" % i], cols["#%d" % i] = a.lineno, a.col_offset + 1
    for k in best.keywords:
        if k.arg:
            lines[k.arg], cols[k.arg] = k.value.lineno, k.value.col_offset + 1
    return lines, cols


def _string_positions(pos, keywords):
    """{string: [line, column]} of the string constants written in the given keywords' values
    of the call pos is running (the first place each is written): where a flag came from."""
    best = _the_call(pos, False)
    out = {}
    for k in (best.keywords if best is not None else []):
        if k.arg in keywords:
            for n in ast.walk(k.value):
                if isinstance(n, ast.Constant) and isinstance(n.value, str):
                    out.setdefault(n.value, [n.lineno, n.col_offset + 1])
    return out


# --- paths ------------------------------------------------------------------------------
def _own_dirs():
    """Directories whose headers or libraries cuwheel adds itself: torch's, Python's, CUDA's."""
    dirs = set()
    for key in ("include", "platinclude", "stdlib", "platstdlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            dirs.add(os.path.realpath(p))
    for v in ("LIBDIR", "INCLUDEPY"):
        p = sysconfig.get_config_var(v)
        if p:
            dirs.add(os.path.realpath(p))
    try:
        import torch
        dirs.add(os.path.realpath(os.path.dirname(torch.__file__)))
        result["torch"] = {"version": torch.__version__, "cuda": torch.version.cuda}
    except Exception:
        pass
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            dirs.add(os.path.realpath(os.environ[var]))
    try:
        from torch.utils.cpp_extension import CUDA_HOME
        if CUDA_HOME:
            dirs.add(os.path.realpath(CUDA_HOME))
    except Exception:
        pass
    return dirs


def _inside(p, d):
    return p == d or p.startswith(d.rstrip("/") + "/")


def _paths(values, kind, dropped):
    """Project-relative paths; cuwheel's own dirs dropped (noted), others kept absolute."""
    out = []
    for v in values or []:
        v = os.fspath(v)
        real = os.path.realpath(os.path.join(ROOT, v))
        if _inside(real, ROOT):
            rel = os.path.relpath(real, ROOT)
            out.append("." if rel == "." else rel.replace(os.sep, "/"))
        elif any(_inside(real, d) for d in OWN):
            dropped.append({"what": kind, "value": v})
        else:
            out.append(real)
    return out


TORCH_LIBS = {"c10", "torch", "torch_cpu", "torch_python", "cudart", "c10_cuda", "torch_cuda",
              "torch_cuda_cu", "torch_cuda_cpp", "c10_hip", "torch_hip", "amdhip64"}


def _ext(e, kinds):
    pos = kinds.get(id(e))
    line = pos[0] if pos else None
    kw, kw_cols = _keyword_lines(pos, False)
    dropped = []
    args = e.extra_compile_args
    if isinstance(args, dict):
        compile_args = {k: [str(x) for x in v] for k, v in args.items()}
    else:
        compile_args = {"*": [str(x) for x in (args or [])]}
    libs = []
    for lib in e.libraries or []:
        (dropped.append({"what": "library", "value": lib}) if lib in TORCH_LIBS
         else libs.append(lib))
    return {
        "name": e.name,
        "sources": _paths(e.sources, "source", dropped),
        "include_dirs": _paths(e.include_dirs, "include dir", dropped),
        "library_dirs": _paths(e.library_dirs, "library dir", dropped),
        "runtime_library_dirs": _paths(getattr(e, "runtime_library_dirs", None),
                                       "runtime library dir", dropped),
        "define_macros": [[str(n), None if v is None else str(v)]
                          for n, v in (e.define_macros or [])],
        "undef_macros": [str(n) for n in (e.undef_macros or [])],
        "extra_compile_args": compile_args,
        "extra_link_args": [str(x) for x in (e.extra_link_args or [])],
        "extra_objects": [str(x) for x in (e.extra_objects or [])],
        "libraries": libs,
        "py_limited_api": bool(getattr(e, "py_limited_api", False)),
        "language": getattr(e, "language", None),
        "dropped": dropped,
        "line": line,
        "lines": kw,
        "cols": kw_cols,
        "string_pos": _string_positions(pos, ("extra_compile_args", "extra_link_args")),
    }


def _build_ext(cmdclass):
    cls = (cmdclass or {}).get("build_ext")
    if cls is None:
        return None
    out = {"class": "%s.%s" % (cls.__module__, cls.__qualname__), "torch": False,
           "options": {}}
    try:
        from torch.utils.cpp_extension import BuildExtension
        out["torch"] = isinstance(cls, type) and issubclass(cls, BuildExtension)
    except Exception:
        pass
    # BuildExtension.with_options(**options) keeps options in its __init__'s closure.
    init = getattr(cls, "__init__", None)
    for cell in getattr(init, "__closure__", None) or ():
        try:
            v = cell.cell_contents
        except ValueError:
            continue
        if isinstance(v, dict):
            out["options"].update({k: v[k] for k in v if isinstance(v[k], (bool, int, str))})
    return out


def _jsonable(v):
    try:
        json.dumps(v)
        return v
    except TypeError:
        if isinstance(v, (list, tuple, set)):
            return [_jsonable(x) for x in v]
        if isinstance(v, dict):
            return {str(k): _jsonable(x) for k, x in v.items()}
        return str(v)


META = ("name", "version", "description", "url", "download_url", "license", "author",
        "author_email", "maintainer", "maintainer_email", "keywords", "classifiers",
        "python_requires", "install_requires", "extras_require", "project_urls",
        "long_description_content_type", "platforms", "zip_safe", "include_package_data")


def _rel(path):
    """path (relative to setup.py's directory, or absolute) made project-relative when inside."""
    real = os.path.realpath(os.path.join(ROOT, os.fspath(path)))
    return os.path.relpath(real, ROOT).replace(os.sep, "/") if _inside(real, ROOT) else real


def _requirements(dist):
    """install_requires and extras_require as written (setuptools moves markers around)."""
    req = getattr(dist, "_orig_install_requires", None) or dist.install_requires or []
    extras = getattr(dist, "_orig_extras_require", None) or dist.extras_require or {}
    if isinstance(req, str):
        req = [x for x in req.splitlines() if x.strip()]
    deps, out = [str(x) for x in req], {}
    for key, values in extras.items():
        if isinstance(values, str):
            values = [x for x in values.splitlines() if x.strip()]
        name, _, marker = str(key).partition(":")
        values = [str(v) if not marker else
                  "%s; %s" % (str(v).split(";")[0].strip(),
                              marker if ";" not in str(v) else
                              "(%s) and (%s)" % (marker, str(v).split(";", 1)[1].strip()))
                  for v in values]
        if name:
            out.setdefault(name, []).extend(values)
        else:
            deps.extend(values)
    return deps, out


def _setuptools_answer(kw):
    """What setuptools itself builds from this call: the Distribution after it read setup.cfg,
    pyproject.toml's [project] and [tool.setuptools] and ran its auto-discovery, and the files
    its build_py lays out (packages, py_modules, package_data, include_package_data with
    MANIFEST.in), as {wheel path: project-relative source}; its metadata and requirements."""
    import contextlib
    import io
    import warnings
    from setuptools.dist import Distribution
    quiet = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(quiet), \
            contextlib.redirect_stderr(quiet):
        warnings.simplefilter("ignore")
        dist = Distribution(dict(kw))
        dist.script_name, dist.script_args = "setup.py", ["build_py"]
        dist.parse_config_files()
        if hasattr(dist, "set_defaults"):  # auto-discovery (setuptools >= 61)
            dist.set_defaults()
        bp = dist.get_command_obj("build_py")
        bp.ensure_finalized()
        if hasattr(bp, "get_output_mapping"):
            mapping = bp.get_output_mapping()
        else:  # older setuptools: modules and package data, the same layout
            mapping = {}
            for pkg, _mod, f in bp.find_all_modules():
                mapping[os.path.join(bp.build_lib, *pkg.split("."), os.path.basename(f))
                        if pkg else os.path.join(bp.build_lib, os.path.basename(f))] = f
            for _pkg, src_dir, build_dir, names in bp.data_files:
                for n in names:
                    mapping[os.path.join(build_dir, n)] = os.path.join(src_dir, n)
    files = sorted([os.path.relpath(dest, bp.build_lib).replace(os.sep, "/"), _rel(src)]
                   for dest, src in mapping.items())
    deps, extras = _requirements(dist)
    md = dist.metadata
    meta = {"name": md.name, "version": md.version, "description": md.description,
            "url": md.url, "author": md.author, "author_email": md.author_email,
            "python_requires": str(getattr(dist, "python_requires", None) or "") or None,
            "install_requires": deps, "extras_require": extras}
    return {"files": files, "packages": list(dist.packages or []),
            "py_modules": list(dist.py_modules or []),
            "data_files": _jsonable(dist.data_files or []),
            "scripts": _jsonable(dist.scripts or []),
            "entry_points": _jsonable(dist.entry_points or {}),
            "metadata": {k: v for k, v in meta.items() if v not in (None, "", "UNKNOWN")}}


def _record(**kw):
    pos = _setup_pos()
    lines, cols = _keyword_lines(pos, True)
    call = {"line": pos[0] if pos else None, "lines": lines, "cols": cols, "extensions": [],
            "build_ext": _build_ext(kw.get("cmdclass")), "metadata": {}}
    for e in kw.get("ext_modules") or []:
        call["extensions"].append(_ext(e, EXT_LINES))
    for k in ("packages", "package_dir", "package_data", "py_modules", "entry_points",
              "scripts", "data_files"):
        if kw.get(k) is not None:
            call[k] = _jsonable(kw[k])
    for k in META:
        if kw.get(k) is not None:
            call["metadata"][k] = _jsonable(kw[k])
    try:
        call["setuptools"] = _setuptools_answer(kw)
    except Exception as e:  # the keywords above still say most of it
        call["setuptools_error"] = ("%s: %s" % (type(e).__name__, e))[:2000]
    call["other_keywords"] = sorted(k for k in kw if k not in META and k not in call
                                    and k not in ("ext_modules", "cmdclass"))
    result["calls"].append(call)


def _write():
    with open(OUT, "w") as fh:
        json.dump(result, fh, indent=1, sort_keys=True)


EXT_LINES = {}

try:
    import setuptools
    import setuptools.extension
    OWN = _own_dirs()
    _ext_init = setuptools.extension.Extension.__init__

    def _ext_init_recorded(self, *args, **kwargs):
        EXT_LINES[id(self)] = _setup_pos()
        _ext_init(self, *args, **kwargs)

    setuptools.extension.Extension.__init__ = _ext_init_recorded
    setuptools.setup = _record
    for mod in ("distutils.core", "setuptools._distutils.core"):
        try:
            __import__(mod)
            sys.modules[mod].setup = _record
        except Exception:
            pass
except Exception as e:  # no setuptools in the interpreter
    result["error"] = {"kind": "missing-module", "module": getattr(e, "name", None) or str(e),
                       "message": "%s: %s" % (type(e).__name__, e), "line": None}
    _write()
    sys.exit(0)

result["cuda_switches"] = _cuda_switches()
result["cu_files"] = _cu_files()
sys.argv = [SETUP, "build_ext"]
sys.path.insert(0, ROOT)
globs = {"__name__": "__main__", "__file__": SETUP, "__builtins__": __builtins__}
try:
    with open(SETUP, "rb") as fh:
        code = compile(fh.read(), SETUP, "exec")
    exec(code, globs)
except SystemExit as e:
    if e.code not in (None, 0):
        result["error"] = {"kind": "exit", "message": "sys.exit(%r)" % (e.code,),
                           "line": None}
except BaseException as e:
    tb = traceback.extract_tb(e.__traceback__)
    line = None
    for fr in tb:
        if os.path.realpath(fr.filename) == SETUP:
            line = fr.lineno
    missing = isinstance(e, ImportError) and getattr(e, "name", None)
    result["error"] = {
        "kind": "missing-module" if missing else "exception",
        "module": e.name if missing else None,
        "message": ("%s: %s" % (type(e).__name__, e))[:2000],
        "line": line,
    }
_write()
