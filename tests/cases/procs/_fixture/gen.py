"""gen.py: the fake tools of the procs cases (imported by each case's generate.py, which runs
in the project copy): toolkit trees whose nvcc is a shell script, interpreters that print
what a case needs."""
import os

HOSTILE = ("'\\033[31mred\\033[0m' '\\033]8;;https://evil.example/\\033\\\\click\\033]8;;\\033\\\\' "
           "'ok\\rpkg' '::error title=x::forged' '##[error]forged'")


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def replace_in_pyproject(old, new):
    """The project's pyproject.toml with its text old replaced by new (which must be there)."""
    with open("pyproject.toml") as f:
        text = f.read()
    assert old in text, old
    with open("pyproject.toml", "w") as f:
        f.write(text.replace(old, new))


def toolkit(root, version_cmd, profile=True, extra=""):
    """A toolkit tree at root whose `nvcc --version` runs version_cmd (shell)."""
    write(f"{root}/bin/nvcc", "#!/bin/sh\n" + extra + 'case "$1" in\n'
          f"--version) {version_cmd} ;;\n"
          '-dryrun) echo "#\\$ _HERE_=${0%/*}" ;;\n'
          "--list-gpu-code) echo sm_90 ;;\n--list-gpu-arch) echo compute_90 ;;\n"
          "*) exit 1 ;;\nesac\n", 0o755)
    if profile:
        write(f"{root}/bin/nvcc.profile", "TOP = $(_HERE_)/..\n")
    write(f"{root}/include/cuda_runtime.h", "/* fake */\n")
    write(f"{root}/lib64/libcudart_static.a", "!<arch>\n")


GOOD_VERSION = ("printf 'nvcc: NVIDIA (R) Cuda compiler driver\\n"
                "Cuda compilation tools, release 13.0, V13.0.88\\n'")


def use_toolkit(root):
    with open("pyproject.toml", "a") as f:
        f.write(f'\n[tool.cuwheel.toolkits]\n"13.0" = "{os.path.abspath(root)}"\n')


def use_python(script_body):
    path = os.path.abspath("fakepy/python3.12")
    write(path, "#!/bin/sh\n" + script_body, 0o755)
    with open("pyproject.toml", "a") as f:
        f.write(f'\n[tool.cuwheel.pythons]\n"3.12" = "{path}"\n')


def fake_cpython():
    """A CPython 3.12 that answers cuwheel's probe with headers of its own (a Python.h that a
    build which stops at the kernels never reads): a build case runs without a real Python."""
    inc = os.path.abspath("fakepy/include")
    write(f"{inc}/Python.h", "/* fake */\n")
    use_python("printf '\\n@@cuwheel-probe@@{\"version\":\"3.12.1\",\"major\":3,\"minor\":12,"
               "\"implementation\":\"cpython\",\"abiflags\":\"\",\"gil_disabled\":false,"
               "\"ext_suffix\":\".cpython-312-x86_64-linux-gnu.so\","
               "\"soabi\":\"cpython-312-x86_64-linux-gnu\",\"include\":\"%s\","
               "\"purelib\":\"/nonexistent\",\"platform\":\"linux-x86_64\","
               "\"executable\":\"%s\"}\\n'\n" % (inc, os.path.abspath("fakepy/python3.12")))
