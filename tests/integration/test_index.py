"""cuwheel index: PEP 503 HTML and PEP 691 JSON that pip and uv install from offline, one
sub-index per local variant holding only its wheels, .metadata sidecars whose hashes match,
atomic re-runs that list added wheels, and hostile wheels refused with nothing written."""
import hashlib
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheelfixture as wf  # noqa: E402

failures = []
REQ_PY = ">=3.10,<4"


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}\n{detail}", file=sys.stderr)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.anchors, self.meta = [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a":
            self.anchors.append(a)
        elif tag == "meta":
            self.meta[a.get("name")] = a.get("content")


def parse_html(path):
    p = Links()
    with open(path) as f:
        p.feed(f.read())
    return p


def href(sub, project, fn):
    """Where SITE/sub/project/ lists wheel fn: beside the page, or a variant's wheel in the root
    tree at ../<variant>/<project>/fn, the one place it is stored."""
    local = fn.split("-")[1].partition("+")[2]
    esc = fn.replace("+", "%2B")
    return f"../{local}/{project}/{esc}" if local and not sub else esc


def stored(site):
    """Every wheel file stored in the site, by name (a list: twice is a failure)."""
    return sorted(n for _, _, fs in os.walk(site) for n in fs if n.endswith(".whl"))


def two_releases(tmp, pys):
    """The Pages index of two releases' wheels (DIST/v1.0/, DIST/v1.1/, as the pages job
    downloads the tags' release assets), with --links to where GitHub serves them: both
    versions listed, in the root tree and each variant's, no wheel stored in the site, and the
    size check of the Pages job (ci/pages_size.sh) passes it and refuses an oversized one."""
    dist, work, site = (os.path.join(tmp, "rel-" + d) for d in ("dist", "work", "site"))
    a = wf.ext_wheel(os.path.join(dist, "v1.0"), work, "tiny-idx", "1.0+cu130", pys["3.12"],
                     requires_python=REQ_PY)
    b = wf.ext_wheel(os.path.join(dist, "v1.1"), work, "tiny-idx", "1.1+cu130", pys["3.12"],
                     requires_python=REQ_PY)
    c = wf.ext_wheel(os.path.join(dist, "v1.1"), work, "tiny-idx", "1.1+cu126", pys["3.12"],
                     requires_python=REQ_PY)
    url = "https://github.com/OWNER/REPO/releases/download"
    r = wf.run(["index", dist, "--out", site, "--links", url])
    check(r.returncode == 0, "index of two releases succeeds", r.stdout + r.stderr)
    check(stored(site) == [], "--links: no wheel is stored in the site", str(stored(site)))
    want = {os.path.basename(a): "v1.0", os.path.basename(b): "v1.1",
            os.path.basename(c): "v1.1"}
    for sub, files in (("", want), ("cu130", {k: v for k, v in want.items() if "cu130" in k}),
                       ("cu126", {k: v for k, v in want.items() if "cu126" in k})):
        with open(os.path.join(site, sub, "tiny-idx", "index.json")) as f:
            j = json.load(f)
        got = {x["filename"]: x["url"] for x in j["files"]}
        check(got == {fn: f"{url}/{tag}/{fn.replace('+', '%2B')}" for fn, tag in files.items()},
              f"two releases, {sub or '<root>'}: every release's wheels, linked to its assets",
              json.dumps(got, indent=1))
        vers = sorted({fn.split("-")[1] for fn in files})
        check(sorted(j["versions"]) == vers, f"two releases, {sub or '<root>'}: versions",
              str(j["versions"]))
        h = parse_html(os.path.join(site, sub, "tiny-idx", "index.html"))
        check(sorted(x["href"].split("#")[0] for x in h.anchors) == sorted(got.values()) and
              all("data-core-metadata" not in x for x in h.anchors),
              f"two releases, {sub or '<root>'}: HTML links, no PEP 658 attribute")
    # The same file name in two releases is refused.
    wf.ext_wheel(os.path.join(dist, "v1.2"), work, "tiny-idx", "1.1+cu126", pys["3.12"],
                 requires_python=REQ_PY)
    r = wf.run(["index", dist, "--out", site, "--links", url])
    check(r.returncode == 1 and "is also" in r.stderr, "a wheel in two releases is refused",
          r.stderr)
    # The Pages job's size check, as the workflow runs it.
    check_sh = os.path.join(wf.ROOT, "ci", "pages_size.sh")
    for limit, ok in (("1000000000", True), ("1000", False)):
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", check_sh],
                           cwd=os.path.dirname(site), capture_output=True, text=True,
                           env=dict(os.environ, SITE=os.path.basename(site),
                                    PAGES_LIMIT=limit))
        check((p.returncode == 0) == ok and
              (ok or ("::error::" in p.stdout and "Pages" in p.stdout)),
              f"size check with a limit of {limit} bytes: {'passes' if ok else 'refused'}",
              p.stdout + p.stderr)


def check_project(site, sub, project, want_files):
    """Validates SITE/sub/project/ (HTML and JSON) against the wheels it must list."""
    pdir = os.path.join(site, sub, project)
    where = f"{sub or '<root>'}/{project}"
    h = parse_html(os.path.join(pdir, "index.html"))
    check(h.meta.get("pypi:repository-version") == "1.1", f"{where}: repository-version meta")
    names = sorted(a.get("href", "").split("#")[0] for a in h.anchors)
    want = sorted(href(sub, project, f) for f in want_files)
    check(names == want, f"{where}: HTML lists exactly its wheels, '+' as %2B", f"{names}\n{want}")
    with open(os.path.join(pdir, "index.html")) as f:
        raw = f.read()
    check("data-requires-python=\"&gt;=3.10,&lt;4\"" in raw,
          f"{where}: data-requires-python is HTML-escaped", raw)
    for a in h.anchors:
        ref, _, frag = a["href"].partition("#")
        path = os.path.normpath(os.path.join(pdir, ref.replace("%2B", "+")))
        fn = os.path.basename(path)
        check(frag == "sha256=" + sha256(path), f"{where}: #sha256 of {fn} matches the file")
        side = path + ".metadata"
        check(os.path.exists(side), f"{where}: {fn}.metadata exists")
        check(a.get("data-core-metadata") == "sha256=" + sha256(side)
              and a.get("data-dist-info-metadata") == a.get("data-core-metadata"),
              f"{where}: data-core-metadata is the sidecar's hash", str(a))
        with zipfile.ZipFile(path) as z:
            meta = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
            check(len(meta) == 1 and z.read(meta[0]) == open(side, "rb").read(),
                  f"{where}: the sidecar is the wheel's METADATA")
        check(a.get("data-requires-python") == REQ_PY, f"{where}: requires-python unescaped")
    with open(os.path.join(pdir, "index.json")) as f:
        j = json.load(f)
    check(set(j) == {"meta", "name", "versions", "files"} and j["meta"] == {"api-version": "1.1"}
          and j["name"] == project, f"{where}: PEP 691 project keys", json.dumps(j)[:400])
    check(sorted(x["filename"] for x in j["files"]) == sorted(want_files),
          f"{where}: JSON lists exactly its wheels")
    vers = sorted({fn.split("-")[1] for fn in want_files})
    check(sorted(j["versions"]) == vers, f"{where}: JSON versions", f"{j['versions']} {vers}")
    for x in j["files"]:
        check(x["url"] == href(sub, project, x["filename"]), f"{where}: JSON url")
        path = os.path.normpath(os.path.join(pdir, x["url"].replace("%2B", "+")))
        check(x["hashes"] == {"sha256": sha256(path)}, f"{where}: JSON sha256 of {x['filename']}")
        check(x["size"] == os.path.getsize(path), f"{where}: JSON size")
        check(x["core-metadata"] == {"sha256": sha256(path + ".metadata")},
              f"{where}: JSON core-metadata hash")
        check(x.get("requires-python") == REQ_PY, f"{where}: JSON requires-python")
        check("upload-time" not in x, f"{where}: no upload-time (deterministic)")


def offline_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
    # Any network attempt goes to a closed port: the index must be the only source.
    dead = "http://127.0.0.1:9"
    env.update(PIP_CONFIG_FILE=os.devnull, HTTP_PROXY=dead, HTTPS_PROXY=dead, http_proxy=dead,
               https_proxy=dead, ALL_PROXY=dead, PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def installed(vpy):
    out = subprocess.run([vpy, "-c", "import importlib.metadata as m, tiny_idx._c as c; "
                          "print(m.version('tiny-idx'), c.answer())"],
                         capture_output=True, text=True, cwd="/")
    return out.stdout.strip() + out.stderr[-400:]


def main():
    pys = wf.pythons()
    tmp = tempfile.mkdtemp(prefix="cuwheel-test-index-")
    try:
        dist, work, site = (os.path.join(tmp, d) for d in ("dist", "work", "site"))
        cu130 = {v: wf.ext_wheel(dist, work, "tiny-idx", "1.0+cu130", py, requires_python=REQ_PY)
                 for v, py in pys.items()}
        # A newer version of the other variant: the cu130 index must still give 1.0+cu130.
        cu126 = wf.ext_wheel(dist, work, "tiny-idx", "1.1+cu126", pys["3.12"],
                             requires_python=REQ_PY)
        names130 = [os.path.basename(p) for p in cu130.values()]
        name126 = os.path.basename(cu126)
        r = wf.run(["index", dist, "--out", site])
        check(r.returncode == 0, "cuwheel index succeeds", r.stdout + r.stderr)
        with open(os.path.join(site, "index.json")) as f:
            root = json.load(f)
        check(root == {"meta": {"api-version": "1.1"}, "projects": [{"name": "tiny-idx"}]},
              "root PEP 691 JSON", json.dumps(root))
        h = parse_html(os.path.join(site, "index.html"))
        check([a["href"] for a in h.anchors] == ["tiny-idx/"], "root HTML links the project")
        check_project(site, "", "tiny-idx", names130 + [name126])
        check_project(site, "cu130", "tiny-idx", names130)
        check_project(site, "cu126", "tiny-idx", [name126])
        check(stored(site) == sorted(names130 + [name126]),
              "each wheel is stored once (in its variant's tree)", str(stored(site)))
        two_releases(tmp, pys)

        # pip and uv install from the cu130 sub-index, offline, for each Python.
        env = offline_env()
        url130 = "file://" + os.path.join(site, "cu130") + "/"
        tools = subprocess.run([os.path.join(wf.ROOT, "tools", "test-venv")], capture_output=True,
                               text=True)
        uv = os.path.join(os.path.dirname(tools.stdout.strip()), "uv") if tools.returncode == 0 \
            else shutil.which("uv")
        check(uv and os.path.exists(uv), "uv is available (tools/test-venv)", tools.stderr[-2000:])
        for v, py in sorted(pys.items()):
            venv = os.path.join(tmp, f"venv-pip-{v}")
            subprocess.run([py, "-m", "venv", "--without-pip", venv], check=True)
            vpy = os.path.join(venv, "bin", "python")
            r = subprocess.run([py, "-m", "pip", "--python", vpy, "install", "--no-cache-dir",
                                "--index-url", url130, "tiny-idx"], capture_output=True,
                               text=True, env=env)
            check(r.returncode == 0, f"pip on {v}: install from file://SITE/cu130/ offline",
                  r.stdout[-2000:] + r.stderr[-2000:])
            check(installed(vpy) == "1.0+cu130 42", f"pip on {v}: 1.0+cu130 installed and "
                  f"imports", installed(vpy))
            if not uv:
                continue
            venv = os.path.join(tmp, f"venv-uv-{v}")
            r = subprocess.run([uv, "venv", "-q", "--python", py, venv], capture_output=True,
                               text=True, env=env)
            r = subprocess.run([uv, "pip", "install", "--offline", "--no-cache", "--python",
                                os.path.join(venv, "bin", "python"), "--index-url", url130,
                                "tiny-idx"], capture_output=True, text=True, env=env)
            check(r.returncode == 0, f"uv on {v}: install from file://SITE/cu130/ offline",
                  r.stdout[-2000:] + r.stderr[-2000:])
            vpy = os.path.join(venv, "bin", "python")
            check(installed(vpy) == "1.0+cu130 42", f"uv on {v}: 1.0+cu130 installed and "
                  f"imports", installed(vpy))

        # pip download from the root index (pip reads the sidecar where it supports PEP 658).
        dl = os.path.join(tmp, "dl")
        r = subprocess.run([pys["3.12"], "-m", "pip", "download", "--no-cache-dir", "--no-deps",
                            "-d", dl, "--index-url", "file://" + site + "/",
                            "tiny-idx==1.1+cu126"], capture_output=True, text=True, env=env)
        check(r.returncode == 0 and os.listdir(dl) == [name126],
              "pip download from the root index", r.stdout + r.stderr)

        # Re-run with an added wheel: listed, swapped atomically, nothing left beside SITE.
        added = wf.ext_wheel(dist, work, "tiny-idx", "1.2+cu130", pys["3.12"],
                             requires_python=REQ_PY)
        r = wf.run(["index", dist, "--out", site])
        check(r.returncode == 0, "re-run succeeds", r.stdout + r.stderr)
        names130.append(os.path.basename(added))
        check_project(site, "cu130", "tiny-idx", names130)
        check_project(site, "", "tiny-idx", names130 + [name126])
        check(sorted(os.listdir(tmp)).count("site") == 1
              and not [n for n in os.listdir(tmp) if n.startswith(".site")],
              "no temp or old site left beside SITE", str(os.listdir(tmp)))

        with open(os.path.join(site, "cu130", "tiny-idx", "index.html")) as f:
            before = f.read()

        def refused(name, make, needle):
            bad = os.path.join(tmp, "bad-" + name)
            shutil.copytree(dist, bad)
            make(bad)
            r = wf.run(["index", bad, "--out", site])
            check(r.returncode == 1 and needle in r.stderr, f"hostile {name}: refused clearly",
                  f"rc={r.returncode}\n{r.stderr}")
            with open(os.path.join(site, "cu130", "tiny-idx", "index.html")) as f:
                check(f.read() == before, f"hostile {name}: the site is untouched")
            check(not [n for n in os.listdir(tmp) if n.startswith(".site")],
                  f"hostile {name}: no temp dir left")

        def garbage(d):
            with open(os.path.join(d, "tiny_idx-2.0-py3-none-any.whl"), "wb") as f:
                f.write(b"PK\x03\x04 this is not a zip")

        def traversal(d):
            p = os.path.join(d, "tiny_idx-2.0-py3-none-any.whl")
            wf.make_wheel(d, "tiny-idx", "2.0", "py3-none-any", {"../evil.py": b"x"})
            check(os.path.exists(p), "traversal wheel written")

        def badname(d):
            open(os.path.join(d, "tiny<idx-2.0-py3-none-any.whl"), "wb").close()

        def mismatch(d):
            wf.make_wheel(d, "other-name", "2.0", "py3-none-any", {"x.py": b""},
                          filename="tiny_idx-2.0-py3-none-any.whl")

        refused("garbage", garbage, "tiny_idx-2.0-py3-none-any.whl")
        refused("traversal", traversal, "..")
        refused("badname", badname, "not a valid wheel file name")
        refused("mismatch", mismatch, "tiny_idx-2.0-py3-none-any.whl")

        # A directory that cuwheel did not write is never replaced.
        foreign = os.path.join(tmp, "foreign")
        os.makedirs(foreign)
        open(os.path.join(foreign, "precious.txt"), "w").close()
        r = wf.run(["index", dist, "--out", foreign])
        check(r.returncode == 1 and os.path.exists(os.path.join(foreign, "precious.txt")),
              "a foreign non-empty SITE is refused", r.stderr)
        empty = os.path.join(tmp, "empty")
        os.makedirs(empty)
        r = wf.run(["index", empty, "--out", os.path.join(tmp, "site2")])
        check(r.returncode == 3, "an empty dist exits 3", r.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("test_index: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
