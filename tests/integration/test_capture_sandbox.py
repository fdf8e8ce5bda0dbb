"""The sandbox setup.py's capture runs in (bubblewrap), tried by a hostile setup.py.

One setup.py does, inside `cuwheel init`, what a project's code must not be able to do, then
calls setup() normally (so the capture succeeds and exits 0), and reports what it saw in its
`description`, which reaches the config cuwheel prints:
  - reads the real home: pwd.getpwuid()'s home directory listed and a secret file the test
    put there read: it must see neither the file nor its content;
  - writes into the real project (by its absolute path and by ../../../.. from the copy), into
    a directory beside the project and into /tmp: each must fail, and nothing must appear;
  - the network: a connect (through _socket, below the recorder's socket layer) to a port the
    test listens on at the host's 127.0.0.1, to 1.1.1.1:80, and the same from a child
    process, and a raw socket: each must fail, and the listener must see no connection;
  - a daemon: setsid() and a second fork, whose child waits 3 s and then writes into the real
    project and beside it: it must be gone when cuwheel returns (no process left), and nothing
    must be written, checked 6 s later;
  - a child that keeps stdout open (`sleep 300.PID` inheriting it): the capture must end as soon
    as setup.py has ended, not at the time limit.
Then where no sandbox can be made: user namespaces refused for real (cuwheel runs inside
`unshare -Ur` with /proc/sys/user/max_user_namespaces set to 0 there, so bwrap's own clone
fails), and a CUWHEEL_BWRAP that is not there or cannot run: `init` refuses, naming the
reason and the opt-in, and runs nothing; `doctor` says so. The opt-in (--unsandboxed, or
CUWHEEL_UNSANDBOXED=1) runs setup.py, warns, and the config notes the mode; a child holding
stdout does not hold that capture either.

Needs bubblewrap (tools/install-deps --test) and the torch 2.11 venv (build/torch-pythons,
the capture's interpreter, as test_init_capture uses). Run from the repository root with
$CUWHEEL set (CTest does both)."""
import base64
import json
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run, failures  # noqa: E402
from testskip import skip  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/debug/cuwheel"))
VENV = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin")
SECRET_NAME = ".cuwheel-sandbox-test-secret-%d" % os.getpid()
PID = {"pid": os.getpid()}  # in the markers: a test running beside this one has others
SECRET = "SECRET-%d-not-for-setup-py" % os.getpid()
NO_USERNS = ["unshare", "-Ur", "sh", "-c",
             "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"", "sh"]

HOSTILE = textwrap.dedent("""\
    import base64, json, os, pwd, subprocess, sys, _socket
    from setuptools import setup, Extension
    REAL, BESIDE, PORT = %(real)r, %(beside)r, %(port)d
    seen = {}
    home = pwd.getpwuid(os.getuid()).pw_dir
    seen["home"] = home
    try:
        seen["home_list"] = sorted(os.listdir(home))
    except OSError as e:
        seen["home_list"] = "denied: %%s" %% e
    try:
        seen["secret"] = open(os.path.join(home, %(secret_name)r)).read()
    except OSError as e:
        seen["secret"] = "denied: %%s" %% e
    here = os.path.dirname(os.path.abspath(__file__))
    for key, path in (("write_real", os.path.join(REAL, "escaped-abs")),
                      ("write_rel", os.path.join(here, "..", "..", "..", "..", "escaped-rel")),
                      ("write_beside", os.path.join(BESIDE, "escaped")),
                      ("write_tmp", "/tmp/cuwheel-sandbox-test-%(pid)d")):
        try:
            with open(path, "w") as f:
                f.write("x")
            seen[key] = "WROTE " + path
        except OSError as e:
            seen[key] = "denied: %%s" %% e
    def connect(addr):
        try:
            s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
            s.settimeout(3)
            s.connect(addr)
            return "CONNECTED"
        except OSError as e:
            return "failed: %%s" %% e
    seen["connect_host"] = connect(("127.0.0.1", PORT))
    seen["connect_out"] = connect(("1.1.1.1", 80))
    try:
        _socket.socket(_socket.AF_INET, _socket.SOCK_RAW, _socket.IPPROTO_ICMP)
        seen["raw"] = "OPENED"
    except OSError as e:
        seen["raw"] = "failed: %%s" %% e
    child = subprocess.run([sys.executable, "-S", "-c",
                            "import _socket; s = _socket.socket(); s.settimeout(3); "
                            "s.connect(('127.0.0.1', %%d))" %% PORT])
    seen["child_connect_rc"] = child.returncode
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execvp("sh", ["sh", "-c", "sleep 3.2%(pid)d; echo x > %%s/daemon-wrote; "
                             "echo x > %%s/daemon-wrote" %% (REAL, BESIDE)])
        os._exit(0)
    subprocess.Popen(["sleep", "300.%(pid)d"])  # inherits stdout and stderr: holds the pipe
    setup(name="demo", version="1.0", packages=["demo"],
          description="SEEN:" + base64.b64encode(json.dumps(seen).encode()).decode(),
          ext_modules=[Extension("demo._c", ["src/c.c"])])
    """)

BENIGN = textwrap.dedent("""\
    import subprocess
    from setuptools import setup, Extension
    subprocess.Popen(["sleep", "301.%(pid)d"])  # inherits stdout: the capture must not wait
    setup(name="demo", version="1.0", packages=["demo"],
          ext_modules=[Extension("demo._c", ["src/c.c"])])
    """)


def make_project(tmp, name, setup_py):
    proj = os.path.join(tmp, name)
    os.makedirs(os.path.join(proj, "src"))  # proj may exist: the hostile one holds the build dir
    os.makedirs(os.path.join(proj, "demo"))
    open(os.path.join(proj, "demo", "__init__.py"), "w").close()
    with open(os.path.join(proj, "src", "c.c"), "w") as f:
        f.write("#include <Python.h>\nstatic struct PyModuleDef m = {PyModuleDef_HEAD_INIT, \"_c\"};\n"
                "PyMODINIT_FUNC PyInit__c(void) { return PyModule_Create(&m); }\n")
    with open(os.path.join(proj, "setup.py"), "w") as f:
        f.write(setup_py)
    return proj


def processes(marker):
    ps = subprocess.run(["ps", "-eo", "args"], stdout=subprocess.PIPE, text=True).stdout
    return [line for line in ps.splitlines() if marker in line and "ps -eo" not in line]


def gone(marker, within=2.0):
    """True once no process shows marker, looking for `within` seconds (a SIGKILL sent as
    cuwheel returns may take a moment to land on a loaded machine)."""
    end = time.monotonic() + within
    while processes(marker):
        if time.monotonic() > end:
            print("still running:", processes(marker))
            return False
        time.sleep(0.1)
    return True


def hostile_run(tmp, env):
    """The hostile setup.py in the sandbox: every attempt contained."""
    beside = os.path.join(tmp, "beside")
    os.makedirs(beside)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    port = listener.getsockname()[1]
    proj = os.path.join(tmp, "hostile")
    make_project(tmp, "hostile", HOSTILE % {"real": proj, "beside": beside, "port": port,
                                           "secret_name": SECRET_NAME, "pid": os.getpid()})
    before = sorted(os.listdir(proj))
    t0 = time.monotonic()
    rc, out = run([CUWHEEL, "init", "-o", os.path.join(tmp, "hostile.toml"), "--timeout", "240"],
                  cwd=proj, env=env)
    if os.path.exists(os.path.join(tmp, "hostile.toml")):
        with open(os.path.join(tmp, "hostile.toml")) as f:
            out += f.read()
    took = time.monotonic() - t0
    print(out[-3000:])
    check(rc == 0, "hostile: init exits 0 (%d) in %.1f s, well before its 240 s limit although a "
          "child held stdout open" % (rc, took))
    check("setup.py ran in a bubblewrap sandbox." in out and "in a bubblewrap sandbox)" in out,
          "hostile: the config's header and init's line say setup.py ran in the sandbox")
    check(gone("sleep 300.%d" % os.getpid()), "hostile: the child holding stdout is gone")
    check(gone("sleep 3.2%d" % os.getpid()), "hostile: the setsid()+fork daemon is gone when "
          "cuwheel returns (within 2 s, before its 3.2 s sleep ends)")
    m = re.search(r"SEEN:([A-Za-z0-9+/=]+)", out)
    seen = json.loads(base64.b64decode(m.group(1))) if m else {}
    print("setup.py saw:", json.dumps(seen, indent=1))
    check(bool(seen), "hostile: setup.py's report reached the config")
    listing = seen.get("home_list")
    check(isinstance(listing, str) or SECRET_NAME not in listing,
          "hostile: the home pwd.getpwuid() names (%s) shows none of the user's files (%s)"
          % (seen.get("home"), listing))
    check(str(seen.get("secret", "")).startswith("denied") and SECRET not in out,
          "hostile: the secret in the real home cannot be read (%s), and is nowhere in the output"
          % seen.get("secret"))
    # A project under /tmp or /var/tmp is under the sandbox's own empty tmpfs there: the parent
    # dirs bwrap makes for the copy's mount point are writable, and a write lands in that tmpfs,
    # gone with the sandbox (the real project is checked below).
    hidden = os.path.realpath(proj).startswith(("/tmp/", "/var/tmp/"))
    for key in ("write_real", "write_rel", "write_beside"):
        v = str(seen.get(key, ""))
        lost = (hidden and v.startswith("WROTE ")
                and not os.path.exists(os.path.normpath(v[len("WROTE "):])))
        check(v.startswith("denied") or lost,
              "hostile: %s fails inside the sandbox, or (a project under /tmp) lands in the "
              "sandbox's own /tmp, not on disk (%s)" % (key, v))
    check(sorted(os.listdir(proj)) == before,
          "hostile: nothing written into the real project (%s)" % sorted(os.listdir(proj)))
    check(os.listdir(beside) == [], "hostile: nothing written beside the project")
    check(not os.path.exists("/tmp/cuwheel-sandbox-test-%d" % os.getpid()),
          "hostile: setup.py's /tmp is not the real /tmp")
    for key in ("connect_host", "connect_out", "raw"):
        check(str(seen.get(key, "")).startswith("failed"),
              "hostile: %s fails (%s)" % (key, seen.get(key)))
    check(seen.get("child_connect_rc") not in (None, 0),
          "hostile: a child process's connect to the host's loopback fails (exit %s)"
          % seen.get("child_connect_rc"))
    listener.settimeout(0.5)
    try:
        listener.accept()
        check(False, "hostile: no connection reached the listener on the host")
    except socket.timeout:
        check(True, "hostile: no connection reached the listener on the host")
    listener.close()
    time.sleep(max(0.0, 6 - (time.monotonic() - t0 - took)))
    check(not os.path.exists(os.path.join(proj, "daemon-wrote"))
          and not os.path.exists(os.path.join(beside, "daemon-wrote")),
          "hostile: 6 s later the daemon has written nothing into the project or beside it")


def refusals(tmp, env):
    """No sandbox: refused before setup.py runs, the reason and the opt-in named."""
    proj = make_project(tmp, "refused", "open('ran', 'w').write('x')\n" + BENIGN % PID)
    cases = [
        ("no user namespaces", NO_USERNS, {}, "Creating new namespace failed"),
        ("CUWHEEL_BWRAP not there", [], {"CUWHEEL_BWRAP": os.path.join(tmp, "no-bwrap")},
         "is not an absolute path to an executable"),
        ("CUWHEEL_BWRAP cannot run", [], {"CUWHEEL_BWRAP": shutil.which("false")},
         "cannot make the sandbox here (exit status 1)"),
        ("CUWHEEL_UNSANDBOXED=0 is no opt-in", NO_USERNS, {"CUWHEEL_UNSANDBOXED": "0"},
         "Creating new namespace failed"),
    ]
    for name, prefix, extra, want in cases:
        rc, out = run(prefix + [CUWHEEL, "init", "-o", "-"], cwd=proj, env=dict(env, **extra))
        print(out.strip()[-1200:])
        check(rc == 1 and "only in a sandbox, and none can be made here" in out and want in out,
              "%s: init refuses, saying why (%r)" % (name, want))
        check("--unsandboxed or CUWHEEL_UNSANDBOXED=1" in out,
              "%s: the refusal names the opt-in" % name)
        check(not os.path.exists(os.path.join(proj, "ran")) and "[tool.cuwheel]\n" not in out,
              "%s: setup.py did not run and no config came out" % name)
    rc, out = run(NO_USERNS + [CUWHEEL, "doctor", "--json"], cwd=tmp, env=env,
                  stderr=subprocess.DEVNULL)
    sb = json.loads(out).get("sandbox", {}) if out.strip().startswith("{") else {}
    check(sb.get("works") is False and "Creating new namespace failed" in (sb.get("error") or ""),
          "doctor --json without user namespaces: the sandbox does not work, and why (%s)" % sb)
    rc, out = run([CUWHEEL, "doctor", "--json"], cwd=tmp, env=env, stderr=subprocess.DEVNULL)
    sb = json.loads(out).get("sandbox", {}) if out.strip().startswith("{") else {}
    check(sb.get("works") is True and sb.get("bwrap") and sb.get("version", "").startswith(
        "bubblewrap "), "doctor --json here: the sandbox works (%s)" % sb)


def opt_in(tmp, env):
    """--unsandboxed (and CUWHEEL_UNSANDBOXED=1) where no sandbox can be made: it runs, warned,
    noted in the config; the child holding stdout still does not hold the capture."""
    proj = make_project(tmp, "optin", BENIGN % PID)
    t0 = time.monotonic()
    written = os.path.join(tmp, "optin.toml")
    rc, out = run(NO_USERNS + [CUWHEEL, "init", "-o", written, "--unsandboxed", "--timeout",
                               "240"], cwd=proj, env=env)
    took = time.monotonic() - t0
    if os.path.exists(written):
        with open(written) as f:
            out += f.read()
    print(out.strip()[-1500:])
    check(rc == 0 and 'module = "demo._c"' in out,
          "opt-in: --unsandboxed without user namespaces captures setup.py (exit %d, %.1f s of "
          "a 240 s limit, a child holding stdout)" % (rc, took))
    check("warning: runs without the sandbox (--unsandboxed)" in out,
          "opt-in: a warning says setup.py ran without the sandbox")
    check("setup.py ran WITHOUT a sandbox" in out and "without a sandbox)" in out,
          "opt-in: the config's header and init's line note the mode")
    check(gone("sleep 301.%d" % os.getpid()), "opt-in: the child holding stdout is gone (its "
          "process group killed)")
    proj = make_project(tmp, "optin-env", "raise RuntimeError('ran-unsandboxed')\n")
    rc, out = run([CUWHEEL, "init", "-o", "-"], cwd=proj,
                  env=dict(env, CUWHEEL_UNSANDBOXED="1",
                           CUWHEEL_BWRAP=os.path.join(tmp, "no-bwrap")))
    print(out.strip()[-800:])
    check(rc == 1 and "RuntimeError: ran-unsandboxed" in out
          and "runs without the sandbox (CUWHEEL_UNSANDBOXED=1)" in out,
          "opt-in: CUWHEEL_UNSANDBOXED=1 runs setup.py without bwrap, warned")


def main():
    if not os.path.exists(os.path.join(VENV, "python")):
        skip("no torch venv at build/torch-pythons/py3.12 (examples/torchext/setup-pythons)")
    if not shutil.which("bwrap") and not os.path.exists("/usr/bin/bwrap"):
        skip("bubblewrap (bwrap) is not installed", ci_installs="bubblewrap")
    if subprocess.run(NO_USERNS + ["true"]).returncode != 0:
        skip("`unshare -Ur` cannot make a user namespace here, so neither can bwrap",
             ci_installs="bubblewrap")
    home = pwd.getpwuid(os.getuid()).pw_dir
    secret = os.path.join(home, SECRET_NAME)
    # Not under /tmp, which the sandbox replaces by a private one (a write to the project's
    # path would land there, contained but not refused): the checkout's build/.
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="cuwheel-capture-sandbox-", dir=os.path.join(ROOT, "build"))
    # One build dir for every run (the interpreter probes are made once), inside the hostile
    # project as a project's own build/cuwheel is: its copy's ../../../.. is that project.
    build = os.path.join(tmp, "hostile", "build", "cuwheel")
    os.makedirs(build)
    env = dict(os.environ, PATH=VENV + os.pathsep + os.environ.get("PATH", ""),
               CUWHEEL_BUILD_DIR=build)
    for k in [k for k in env if k.startswith("CUWHEEL_") and k not in (
            "CUWHEEL_CACHE_DIR", "CUWHEEL_BUILD_DIR", "CUWHEEL_CI_NO_SKIP")]:
        del env[k]
    try:
        with open(secret, "w") as f:
            f.write(SECRET)
        refusals(tmp, env)
        hostile_run(tmp, env)
        opt_in(tmp, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if os.path.exists(secret):
            os.unlink(secret)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
