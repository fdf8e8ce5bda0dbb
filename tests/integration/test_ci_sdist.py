"""cuwheel ci github for a project built from its PyPI sdist with a config beside it
(examples/gsplat: gsplat-1.5.3.tar.gz + gsplat.cuwheel.toml, torch 2.11 x CUDA 13.0).

- Golden file: the workflow `cuwheel ci github gsplat-1.5.3.tar.gz --config gsplat.cuwheel.toml`
  writes in a repository that holds only the config (with [tool.cuwheel.ci] cuwheel at a
  commit and publish = release, pages, pypi-sdist) is byte for byte the checked-in one
  (`--update` rewrites it); actionlint, the workflow schema, shellcheck and the pin check of
  test_ci_github.py pass on it.
- Every cuwheel step gets the sdist and the config by workspace-relative paths (no "../");
  the sdist step fetches the file from PyPI's PEP 503 page by name and sha256; run here against
  a local PEP 503 page standing in for PyPI, it writes the sdist, and a wrong digest fails it.
- The sdist committed in the repository: no fetch step, its repository path.
- Refusals: --sha256 that is not the file's, --sdist-spec of another version, pypi-sdist
  without an sdist, a config outside the repository.
- Publishing jobs: tags only, after the index; each job only its own permissions.

The sdist comes from build/realproject-cache (tests/realproject/gsplat_sdist.py), the copy in
another worktree of this repository (git worktree list), or PyPI's simple page; without any of
them the test exits 77."""
import hashlib
import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ci_github as tcg  # noqa: E402
from test_ci_github import check, run, load, validate, check_hygiene, check_pins  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = tcg.CUWHEEL
SDIST = "gsplat-1.5.3.tar.gz"
SHA256 = "343f080c470e891ba3c697c03bdf0952cb982d1d535fdc24adb23c2cb4fba906"
GOLDEN = os.path.join(tcg.GOLDEN, "gsplat-sdist.yml")
CI_TABLE = f"""
[tool.cuwheel.ci]
cuwheel = {{git = "https://github.com/cuwheel/cuwheel", rev = "{tcg.CUWHEEL_REV}"}}
publish = ["release", "pages", "pypi-sdist"]
"""


def worktrees():
    """The other checkouts of this repository (`git worktree list`), whose build/ may hold the
    sdist already: found from the repository itself, never from a path of one machine."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "worktree", "list", "--porcelain"],
                             capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line[len("worktree "):] for line in out.splitlines() if line.startswith("worktree ")]


def find_sdist(tmp):
    cands = [os.path.join(d, "build", sub, SDIST) for d in [ROOT] + worktrees()
             for sub in ("realproject-cache", "gsplat-dl")]
    for c in cands:
        if os.path.isfile(c) and hashlib.sha256(open(c, "rb").read()).hexdigest() == SHA256:
            return c
    try:  # PyPI's simple page, as the workflow's own step reads it
        page = "https://pypi.org/simple/gsplat/"
        text = urllib.request.urlopen(page, timeout=30).read().decode()
        url = [urllib.parse.urljoin(page, h) for h in re.findall(r'href="([^"]+)"', text)
               if SDIST in h][0].split("#")[0]
        data = urllib.request.urlopen(url, timeout=120).read()
    except Exception as e:  # no network
        print(f"SKIP: {SDIST} is not cached here and PyPI cannot be reached ({e})")
        sys.exit(77)
    if hashlib.sha256(data).hexdigest() != SHA256:
        sys.exit(f"{SDIST} from PyPI does not have the pinned sha256")
    path = os.path.join(tmp, SDIST)
    with open(path, "wb") as f:
        f.write(data)
    return path


def repo_with_config(tmp, name="repo"):
    """A repository holding only the release engineer's config (gsplat.cuwheel.toml plus the
    [tool.cuwheel.ci] table)."""
    repo = os.path.join(tmp, name)
    os.makedirs(os.path.join(repo, ".git"))
    with open(os.path.join(ROOT, "examples", "gsplat", "gsplat.cuwheel.toml")) as f:
        text = f.read()
    with open(os.path.join(repo, "gsplat.cuwheel.toml"), "w") as f:
        f.write(text.rstrip("\n") + "\n" + CI_TABLE)
    return repo


def emit(repo, sdist, *opts, ok=(0,)):
    env = tcg.clean_env()
    env["CUWHEEL_BUILD_DIR"] = os.path.join(os.path.dirname(repo), "cuwheel-build")
    return run([CUWHEEL, "ci", "github", sdist, "--config",
                os.path.join(repo, "gsplat.cuwheel.toml"), "--stdout", *opts], env=env, ok=ok)


class Links(html.parser.HTMLParser):
    pass


def run_sdist_step(doc, tmp, index, sha):
    """Runs the workflow's sdist step with bash, against index (a file:// PEP 503 root)."""
    job = doc["jobs"]["kernels-cu130-linux_x86_64"]
    st = [s for s in job["steps"] if s.get("name") == "The sdist (pinned by sha256)"][0]
    ws = tempfile.mkdtemp(dir=tmp)
    env = dict(os.environ, **{k: str(v) for k, v in doc["env"].items()})
    env.update(SDIST_INDEX=index, SDIST_SHA256=sha, GITHUB_WORKSPACE=ws)
    p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", st["run"]],
                       cwd=ws, env=env, capture_output=True, text=True)
    return p, os.path.join(ws, doc["env"]["SDIST"])


def github_expressions(value):
    """The expressions GitHub's template reader finds in a string value: each "${{" up to the
    first "}}" outside a '...' literal (actions/runner's TemplateReader.ParseScalar)."""
    out, i = [], 0
    while (i := value.find("${{", i)) >= 0:
        in_str, j = False, i + 3
        while j < len(value):
            if value[j] == "'":
                in_str = not in_str
            elif not in_str and value[j] == "}" and value[j - 1] == "}":
                break
            j += 1
        out.append(value[i + 3:j - 1].strip())
        i = j + 1
    return out


def github_value(value):
    """value as GitHub reads it when its only expressions are string literals ('...')."""
    out, i = "", 0
    while (k := value.find("${{", i)) >= 0:
        expr = github_expressions(value[k:])[0]
        check(re.fullmatch(r"'(?:[^']|'')*'", expr), f"a literal expression: {expr}")
        out += value[i:k] + expr[1:-1].replace("''", "'")
        i = value.find("}}", k + 3 + len(expr)) + 2
    return out + value[i:]


def strings(obj):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v)
    elif isinstance(obj, str):
        yield obj


def main():
    tmp = tempfile.mkdtemp(prefix="cuwheel-ci-sdist-")
    try:
        sdist = find_sdist(tmp)
        # The sdist outside the repository (as downloaded): fetched by the jobs.
        outside = os.path.join(tmp, "downloads")
        os.makedirs(outside)
        shutil.copy(sdist, outside)
        sdist = os.path.join(outside, SDIST)
        repo = repo_with_config(tmp)
        p = emit(repo, sdist)
        text = p.stdout
        if "--update" in sys.argv[1:]:
            with open(GOLDEN, "w") as f:
                f.write(text)
            print(f"updated {os.path.relpath(GOLDEN, ROOT)}")
            return
        want = open(GOLDEN).read() if os.path.exists(GOLDEN) else ""
        check(p.returncode == 0 and text == want,
              "golden gsplat-sdist.yml: the emitted workflow is the checked-in one "
              f"(if the change is meant: {sys.argv[0]} --update)", p.stderr)
        # The same bytes on a machine with no torch venv, no pyenv and no CUDA on PATH: the
        # cells come from the config and ci/torch_builds.def, never from discovery.
        home = os.path.join(tmp, "home")
        os.makedirs(home)
        bare = tcg.clean_env({"HOME": home, "PATH": "/usr/bin:/bin",
                              "CUWHEEL_PYTHONS": "3.12=/nonexistent/bin/python",
                              "CUWHEEL_BUILD_DIR": os.path.join(tmp, "bare-build")})
        pb = run([CUWHEEL, "ci", "github", sdist, "--config",
                  os.path.join(repo, "gsplat.cuwheel.toml"), "--stdout"], env=bare)
        check(pb.stdout == want, "golden gsplat-sdist.yml: the same workflow on a machine "
              "without torch venvs, pyenv or CUDA", pb.stderr)
        doc = validate("gsplat sdist", text)
        check_hygiene("gsplat sdist", doc, text, ())
        check_pins("gsplat sdist", doc, text)
        check("cu130-linux_x86_64" in tcg.check_toolkit_caches("gsplat sdist", doc),
              "gsplat sdist: the CUDA 13.0 leg caches the toolkit `cuwheel toolkit install` "
              "provisions")
        env = doc["env"]
        check(env["SDIST"] == f"sdist/{SDIST}" and env["CONFIG"] == "gsplat.cuwheel.toml" and
              env["DIST"] == "dist" and env["PROJECT"] == "." and
              env["SDIST_SHA256"] == SHA256 and env["SDIST_PROJECT"] == "gsplat" and
              env["SDIST_FILE"] == SDIST and env["SDIST_INDEX"] == "https://pypi.org/simple",
              "gsplat: sdist, config and dist relative to the repository; the sdist pinned",
              env)
        check("../" not in text, "gsplat: no path climbs out of the workspace")
        for j, job in doc["jobs"].items():
            for st in job["steps"]:
                r = st.get("run", "")
                if '"${src[@]}" build' in r and j.startswith(("kernels", "wheels")):
                    # The sdist is an operand of the command (`cuwheel build SDIST`): before
                    # it, cuwheel's global parser takes it for a command name (the local run
                    # of the workflow found that).
                    check('sdist=("$GITHUB_WORKSPACE/$SDIST")' in r and
                          'cuwheel "${src[@]}" build "${sdist[@]}" ' in r and
                          'src+=(--config "$GITHUB_WORKSPACE/$CONFIG")' in r,
                          f"gsplat: {j} passes the sdist and the config to cuwheel")
            if j.startswith(("kernels", "wheels")):
                names = [s.get("name") for s in job["steps"]]
                check("The sdist (pinned by sha256)" in names and
                      "torch for each Python of the job (pinned builds)" in names,
                      f"gsplat: {j} fetches the sdist and installs torch", names)
        # Publishing: on tags, after the index, with only what each needs.
        jobs = doc["jobs"]
        for j, perms in (("release", {"contents": "write"}),
                         ("pages", {"contents": "read", "pages": "write", "id-token": "write"}),
                         ("pypi-sdist", {"id-token": "write"})):
            check(jobs[j]["needs"] == (["index", "release"] if j == "pages" else ["index"]) and
                  jobs[j]["if"] == "startsWith(github.ref, 'refs/tags/')" and
                  jobs[j]["permissions"] == perms,
                  f"gsplat: {j} runs on tags after the index with {perms} only", jobs[j])
        check(jobs["pages"]["environment"]["name"] == "github-pages" and
              jobs["pypi-sdist"]["environment"]["name"] == "pypi",
              "gsplat: Pages and PyPI jobs in their environments")
        pypi = [s for s in jobs["pypi-sdist"]["steps"] if "uses" in s]
        check(any(s["uses"].startswith("pypa/gh-action-pypi-publish@") and
                  "password" not in s.get("with", {}) for s in pypi),
              "gsplat: the sdist goes to PyPI by trusted publishing (no token)")
        check("secrets." not in text, "gsplat: no secret named")
        # Pages: the index of every release's wheels, linked to the release assets, checked
        # against Pages' 1 GB before the upload.
        pages = [st.get("name") or st.get("uses", "").split("@")[0] for st in jobs["pages"]["steps"]]
        check(pages.index("The index of every release's wheels, linked to the release assets")
              < pages.index("The site within GitHub Pages' 1 GB")
              < pages.index("actions/upload-pages-artifact"),
              "gsplat: the pages job indexes every release, checks the size, then uploads", pages)

        # The sdist step, run here against a local PEP 503 page standing in for PyPI.
        index = os.path.join(tmp, "simple")
        os.makedirs(os.path.join(index, "gsplat"))
        shutil.copy(sdist, os.path.join(index, "gsplat", SDIST))
        with open(os.path.join(index, "gsplat", "index.html"), "w") as f:
            f.write(f'<html><body><a href="{SDIST}#sha256={SHA256}">{SDIST}</a></body></html>')
        p, out = run_sdist_step(doc, tmp, f"file://{index}", SHA256)
        check(p.returncode == 0 and os.path.isfile(out) and
              hashlib.sha256(open(out, "rb").read()).hexdigest() == SHA256,
              "the sdist step fetches the pinned sdist from the index", p.stdout + p.stderr)
        p, out = run_sdist_step(doc, tmp, f"file://{index}", "0" * 64)
        check(p.returncode != 0 and "the workflow pins" in p.stderr and not os.path.exists(out),
              "the sdist step refuses a file with another sha256, writing nothing", p.stderr)

        # A Windows leg with a test command: its test job fetches the sdist without bash and
        # gives the command the unpacked sdist as {project}, as cuwheel test does on Linux.
        env = tcg.clean_env()
        env.update(CUWHEEL_BUILD_DIR=os.path.join(tmp, "win-build"),
                   CUWHEEL_MATRIX_PLATFORM="linux_x86_64,win_amd64",
                   CUWHEEL_TEST_COMMAND="python -m pytest {project}/tests")
        pw = run([CUWHEEL, "ci", "github", sdist, "--config",
                  os.path.join(repo, "gsplat.cuwheel.toml"), "--stdout"], env=env)
        docw = validate("gsplat sdist with Windows", pw.stdout)
        wintest = [j for j in docw["jobs"] if j.startswith("wintest")]
        check(wintest, "gsplat with Windows: a Windows test job", list(docw["jobs"]))
        for j in wintest:
            steps = docw["jobs"][j]["steps"]
            names = [st.get("name") for st in steps]
            fetch = [st for st in steps if st.get("name") == "The sdist (pinned by sha256)"]
            test = [st for st in steps if st.get("name") == "Test each wheel this Python installs"]
            check(fetch and test and names.index(fetch[0]["name"]) < names.index(test[0]["name"])
                  and fetch[0].get("shell") == "python",
                  f"gsplat: {j} fetches the sdist (shell: python, no bash) before testing", names)
            if not (fetch and test):
                continue
            ws = tempfile.mkdtemp(dir=tmp)
            wenv = dict(os.environ, **{k: str(v) for k, v in docw["env"].items()})
            wenv.update(SDIST_INDEX=f"file://{index}", SDIST_SHA256=SHA256, GITHUB_WORKSPACE=ws,
                        TMPDIR=ws, DIST=os.path.join(ws, "empty-dist"))
            os.makedirs(wenv["DIST"])
            pf = subprocess.run([sys.executable, "-c", fetch[0]["run"]], cwd=ws, env=wenv,
                                capture_output=True, text=True)
            check(pf.returncode == 0 and os.path.isfile(os.path.join(ws, docw["env"]["SDIST"])),
                  f"gsplat: {j}'s sdist step fetches the pinned sdist", pf.stdout + pf.stderr)
            pt = subprocess.run([sys.executable, "-c", test[0]["run"]], cwd=ws, env=wenv,
                                capture_output=True, text=True)
            m = re.search(r"^\{project\} is (.*)$", pt.stdout, re.M)
            check(m and os.path.isfile(os.path.join(m.group(1), "PKG-INFO")) and
                  os.path.isfile(os.path.join(m.group(1), "setup.py")) and
                  "no wheel in" in pt.stderr,
                  f"gsplat: {j}'s {{project}} is the unpacked sdist (then: no wheel here)",
                  pt.stdout + pt.stderr)
            break

        # The sdist committed in the repository: used as is.
        repo2 = repo_with_config(tmp, "repo2")
        os.makedirs(os.path.join(repo2, "sdists"))
        shutil.copy(sdist, os.path.join(repo2, "sdists"))
        p = emit(repo2, os.path.join(repo2, "sdists", SDIST))
        doc2 = load(p.stdout)
        check(p.returncode == 0 and doc2["env"]["SDIST"] == f"sdists/{SDIST}" and
              "SDIST_INDEX" not in doc2["env"] and "The sdist (pinned by sha256)" not in p.stdout,
              "a committed sdist: its repository path, no fetch step", p.stderr)
        validate("gsplat committed sdist", p.stdout)

        # A committed sdist whose file name holds an expression: GitHub evaluates "${{" in
        # every value it reads, so cuwheel writes each "${{" of data as the expression
        # ${{ '${{' }}; read as GitHub's template reader does, the value is the file's path
        # and no expression of the name is evaluated (no secret reaches any job).
        hostile = "gsplat-${{ secrets.X }}-1.5.3.tar.gz"
        shutil.copy(sdist, os.path.join(repo2, "sdists", hostile))
        p = emit(repo2, os.path.join(repo2, "sdists", hostile))
        doc3 = validate("gsplat sdist named with ${{ }}", p.stdout) if p.returncode == 0 else {}
        check(p.returncode == 0 and github_value(doc3["env"]["SDIST"]) == f"sdists/{hostile}",
              "a sdist named with ${{ secrets.X }}: GitHub reads its path as written",
              p.stderr + str(doc3.get("env")))
        exprs = [x for v in strings(doc3) for x in github_expressions(v)]
        check(exprs and not any("secrets.X" in x for x in exprs),
              "a sdist named with ${{ secrets.X }}: no expression of the name is evaluated",
              sorted(set(exprs)))

        # GPU tests on a self-hosted runner: the test job fetches the sdist and gives cuwheel
        # test the sdist and the config (the test command is the config's).
        p = emit(repo, sdist, "--gpu-label", "gpu")
        gdoc = validate("gsplat sdist --gpu-label gpu", p.stdout, ("gpu",))
        t = gdoc["jobs"]["test-cu130-linux_x86_64"]
        names = [s.get("name") for s in t["steps"]]
        runs = "\n".join(s.get("run", "") for s in t["steps"])
        check("The sdist (pinned by sha256)" in names and
              'cuwheel "${src[@]}" test "${sdist[@]}" "$DIST"/*.whl' in runs and
              'src+=(--config "$GITHUB_WORKSPACE/$CONFIG")' in runs,
              "gsplat --gpu-label: the test job gets the sdist and the config", names)

        # Refusals.
        p = emit(repo, sdist, "--sha256", "ab" * 32, ok=(1,))
        check(p.returncode == 1 and f"sha256 is {SHA256}, not the --sha256" in p.stderr,
              "--sha256 of another file: refused", p.stderr)
        p = emit(repo, sdist, "--sdist-spec", "gsplat==1.5.2", ok=(1,))
        check(p.returncode == 1 and "names version 1.5.2" in p.stderr,
              "--sdist-spec of another version: refused", p.stderr)
        p = emit(repo, sdist, "--sdist-spec", "gsplat==1.5.3", "--sha256", SHA256)
        check(p.returncode == 0 and p.stdout == text,
              "--sdist-spec and --sha256 that agree with the file: the same workflow")
        other = os.path.join(tmp, "elsewhere.toml")
        shutil.copy(os.path.join(repo, "gsplat.cuwheel.toml"), other)
        env = tcg.clean_env()
        env["CUWHEEL_BUILD_DIR"] = os.path.join(tmp, "b2")
        os.makedirs(os.path.join(tmp, ".git"))
        p = run([CUWHEEL, "-C", repo, "ci", "github", "--config", other, "--stdout"], env=env,
                ok=(1,))
        check(p.returncode == 1, "a config without an sdist or project: exit 1", p.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if tcg.failures:
        print(f"{len(tcg.failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("test_ci_sdist: all checks passed")


if __name__ == "__main__":
    main()
