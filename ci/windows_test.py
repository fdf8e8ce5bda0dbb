import json, os, pathlib, subprocess, sys, tarfile, tempfile, venv
ver = sys.version_info
def fits(name):
    py, abi = name[:-4].split("-")[-3:-1]
    if abi == "abi3":
        return py.startswith("cp3") and int(py[3:]) <= ver.minor
    return py == f"cp{ver.major}{ver.minor}"
# {project}: the checkout's project, or for an sdist its unpacked tree (as cuwheel test has it),
# unpacked with tarfile's data filter (no links out, no absolute paths, no devices).
workspace = os.environ["GITHUB_WORKSPACE"]
if os.environ.get("SDIST"):
    unpacked = tempfile.mkdtemp()
    with tarfile.open(os.path.join(workspace, os.environ["SDIST"])) as t:
        t.extractall(unpacked, filter="data")
    tops = os.listdir(unpacked)
    project = os.path.join(unpacked, tops[0]) if len(tops) == 1 else unpacked
else:
    project = os.path.join(workspace, os.environ["PROJECT"])
print(f"{{project}} is {project}", flush=True)
wheels = [w for w in sorted(pathlib.Path(os.environ["DIST"]).glob("*.whl")) if fits(w.name)]
if not wheels:
    sys.exit(f"no wheel in {os.environ['DIST']} for Python {ver.major}.{ver.minor}")
failed = 0
for w in wheels:
    tmp = tempfile.mkdtemp()
    env_dir = os.path.join(tmp, "venv")
    venv.create(env_dir, with_pip=True)
    bindir = os.path.join(env_dir, "Scripts")
    py = os.path.join(bindir, "python.exe")
    requires = json.loads(os.environ["TEST_REQUIRES"])
    subprocess.run([py, "-m", "pip", "install", "-q", str(w.resolve()), *requires],
                   check=True)
    # The paths reach cmd.exe as variables, never as command text (as cuwheel test does).
    command = os.environ["TEST_COMMAND"].replace("{project}", '"%CUWHEEL_PROJECT%"')
    command = command.replace("{wheel}", '"%CUWHEEL_WHEEL%"')
    env = dict(os.environ, VIRTUAL_ENV=env_dir, PATH=bindir + os.pathsep + os.environ["PATH"],
               CUWHEEL_PROJECT=os.path.abspath(project), CUWHEEL_WHEEL=str(w.resolve()))
    work = os.path.join(tmp, "work")
    os.mkdir(work)
    rc = subprocess.run(command, shell=True, cwd=work, env=env).returncode
    print(f"{w.name}: {'passed' if rc == 0 else f'FAILED (exit {rc})'}", flush=True)
    failed += rc != 0
sys.exit(1 if failed else 0)
