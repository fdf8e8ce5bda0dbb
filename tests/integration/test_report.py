"""`cuwheel report` after a real small build (CUDA 13.0, sm_75, one Python): the trace is valid
Chrome trace JSON (names, phases, microsecond timestamps and durations), report.json and the
HTML hold the grid and the timeline, the summary the build printed says what report.json says,
`cuwheel report` shows the toolchain the build used after what discovery would find has changed
(another cc first on PATH, another Python asked for), and headless Chromium renders the page
with no script error. Needs jsonschema (re-executes itself with tools/test-venv's python when
missing)."""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402

SRC = os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd())
try:
    import jsonschema
except ImportError:
    if os.environ.get("CUWHEEL_REPORT_REEXEC"):
        raise
    py = subprocess.run([os.path.join(SRC, "tools", "test-venv")], stdout=subprocess.PIPE,
                        text=True, check=True).stdout.strip()
    os.environ["CUWHEEL_REPORT_REEXEC"] = "1"
    os.execv(py, [py] + sys.argv)

CUWHEEL = os.environ["CUWHEEL"]
CELL = "cp312-cu130-linux_x86_64"

TRACE_SCHEMA = {
    "type": "object",
    "required": ["traceEvents"],
    "properties": {
        "displayTimeUnit": {"enum": ["ms", "ns"]},
        "traceEvents": {
            "type": "array",
            "minItems": 1,
            "items": {
                "oneOf": [
                    {
                        "type": "object",
                        "required": ["name", "ph", "ts", "dur", "pid", "tid", "cat"],
                        "properties": {
                            "name": {"type": "string", "minLength": 1},
                            "ph": {"const": "X"},
                            "cat": {"enum": ["kernels", "cell"]},
                            "ts": {"type": "integer", "minimum": 0},
                            "dur": {"type": "integer", "minimum": 0},
                            "pid": {"type": "integer"},
                            "tid": {"type": "integer", "minimum": 0},
                            "args": {"type": "object"},
                        },
                    },
                    {
                        "type": "object",
                        "required": ["name", "ph", "pid", "tid", "args"],
                        "properties": {
                            "name": {"enum": ["process_name", "thread_name"]},
                            "ph": {"const": "M"},
                            "args": {"type": "object", "required": ["name"]},
                        },
                    },
                ]
            },
        },
    },
}


def fail(msg, out=""):
    print(f"FAIL: {msg}\n{out[-4000:]}", file=sys.stderr)
    sys.exit(1)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.rects, self.cells, self.external = set(), [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "rect" and "s" in a.get("class", "").split():
            self.rects.append(a)
        if tag == "div" and "cell" in a.get("class", "").split():
            self.cells.append(a)
        for k in ("src", "href"):
            if k in a and not a[k].startswith("#"):
                self.external.append((tag, a[k]))
        if tag == "link":
            self.external.append((tag, a))


def main():
    tmp = tempfile.mkdtemp(prefix="cuwheel-report.")
    try:
        proj = os.path.join(tmp, "proj")
        os.makedirs(proj)
        for n in ("pyproject.toml", "LICENSE"):
            shutil.copy(os.path.join(SRC, "examples", "tinyraster", n), proj)
        for n in ("kernels", "bindings", "python"):
            shutil.copytree(os.path.join(SRC, "examples", "tinyraster", n), os.path.join(proj, n),
                            ignore=shutil.ignore_patterns("__pycache__"))
        env = dict(os.environ, CUWHEEL_ARCHS="7.5", CUWHEEL_MATRIX_CUDA="13.0",
                   CUWHEEL_MATRIX_PYTHON="3.12", CUWHEEL_CCACHE="off", TMPDIR=tmp)
        for k in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"):
            env.pop(k, None)
        b = subprocess.run([CUWHEEL, "build", "--no-test", "--progress=plain"], cwd=proj,
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if b.returncode != 0:
            fail("the build failed", b.stdout)
        bdir = os.path.join(proj, "build", "cuwheel")
        for n in ("report.html", "report.json", "report-trace.json"):
            if not os.path.isfile(os.path.join(bdir, n)):
                fail(f"the build did not write {n} into the build dir", b.stdout)
        out = os.path.join(tmp, "out")
        r = subprocess.run([CUWHEEL, "report", "--out", out], cwd=proj, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            fail("cuwheel report failed", r.stdout)

        trace = json.load(open(os.path.join(out, "report-trace.json")))
        jsonschema.validate(trace, TRACE_SCHEMA)
        xs = [e for e in trace["traceEvents"] if e["ph"] == "X"]
        cats = {e["cat"] for e in xs}
        if cats != {"kernels", "cell"}:
            fail(f"trace categories {cats}: expected the kernel stage and the cell stage")
        names = {e["name"] for e in xs}
        for want in ("nvcc kernels/rasterize.cu", "ar", "link", "pack", "audit"):
            if want not in names:
                fail(f"no step {want!r} in the trace: {sorted(names)}")
        # Microseconds: the nvcc step of one kernel takes seconds, so well over 10^5 us.
        nv = max(e["dur"] for e in xs if e["name"].startswith("nvcc "))
        if not 100_000 <= nv <= 3_600_000_000:
            fail(f"nvcc duration {nv} is not in microseconds")
        # One lane never runs two steps at once.
        by_lane = {}
        for e in xs:
            by_lane.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
        for lane, spans in by_lane.items():
            spans.sort()
            for (s0, e0), (s1, _) in zip(spans, spans[1:]):
                if s1 < e0:
                    fail(f"lane {lane} runs two steps at once")
        print(f"ok: trace is valid Chrome trace JSON ({len(xs)} steps on {len(by_lane)} lanes)")

        data = json.load(open(os.path.join(out, "report.json")))
        if data != json.load(open(os.path.join(bdir, "report.json"))):
            fail("`cuwheel report --out` wrote another report.json than the build's")
        cell = next(c for c in data["cells"] if c["id"] == CELL)
        if cell["result"] != "ok" or not cell["wheel"] or cell["size"] <= 0:
            fail(f"report.json: {cell}")
        if cell["audit"] is None or not cell["audit"]["ok"]:
            fail(f"report.json: no passing audit for {CELL}")
        tc = data["toolchain"]
        if not tc["toolkits"] or not tc["pythons"] or not tc["toolkits"][0]["cc_version"]:
            fail(f"report.json: no toolchain versions: {tc}")
        print("ok: report.json holds the cells, the audit and the toolchain")

        # The summary the build printed is report.json rendered: each cell's line has its
        # result, size and wheel as report.json has them.
        for c in data["cells"]:
            if c["result"] == "not selected":
                continue
            size = c["size"] / 1024
            want = (rf"^{re.escape(c['id'])}\s+ok\s+{size:.1f} kB\s+[\d.]+s\s+"
                    rf"{re.escape(os.path.basename(c['wheel']))}$")
            if not re.search(want, b.stdout, re.M):
                fail(f"the summary's line of {c['id']} is not report.json's ({want})", b.stdout)
        print("ok: the printed summary says what report.json says")

        # `cuwheel report` does not ask this machine: with another cc first on PATH and
        # another Python asked for, it shows the compilers and Pythons the build used.
        fake = os.path.join(tmp, "fakebin")
        os.makedirs(fake)
        for tool in ("cc", "c++", "gcc", "g++"):
            with open(os.path.join(fake, tool), "w") as f:
                f.write("#!/bin/sh\necho 'cc (Fake) 99.9.9'\n")
            os.chmod(os.path.join(fake, tool), 0o755)
        env2 = dict(env, PATH=fake + os.pathsep + env["PATH"], CC=os.path.join(fake, "cc"),
                    CXX=os.path.join(fake, "c++"), CUWHEEL_MATRIX_PYTHON="3.11")
        r3 = subprocess.run([CUWHEEL, "report", "--json"], cwd=proj, env=env2,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r3.returncode != 0:
            fail("cuwheel report --json failed", r3.stdout + r3.stderr)
        if json.loads(r3.stdout)["toolchain"] != tc:
            fail(f"report --json shows another toolchain: {r3.stdout[:2000]}")
        r4 = subprocess.run([CUWHEEL, "report", "--out", os.path.join(tmp, "out-now")],
                            cwd=proj, env=env2, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
        page_now = open(os.path.join(tmp, "out-now", "report.html")).read()
        if r4.returncode != 0 or "99.9.9" in page_now or "CC=" in page_now:
            fail("the HTML's toolchain is this machine's, not the build's", r4.stdout)
        py_used = [p["version"] for p in tc["pythons"]]
        if not any(v.startswith("3.12") for v in py_used) or \
                not all(v in page_now for v in py_used) or tc["toolkits"][0]["cc_version"] \
                not in page_now:
            fail(f"the HTML does not show the build's Pythons {py_used} and cc")
        print("ok: `cuwheel report` shows the toolchain the build used, not today's machine")

        page_path = os.path.join(out, "report.html")
        text = open(page_path).read()
        page = Page()
        page.feed(text)
        for i in ("grid", "timeline", "toolchain"):
            if i not in page.ids:
                fail(f"the HTML has no #{i}")
        if page.external:
            fail(f"the HTML loads external resources: {page.external}")
        if not any(c.get("data-row") == CELL and "ok" in c["class"] for c in page.cells):
            fail(f"the grid has no ok cell for {CELL}")
        classes = {x["class"] for x in page.rects}
        if classes != {"s k", "s c"}:
            fail(f"timeline bars {classes}: the two stages must be told apart")
        print("ok: the HTML is self-contained with the grid and a two-stage timeline")

        # A no-op rebuild: nothing ran for the cell, so its time is unknown (null), shown as
        # "up to date", never as 0 s (the report once read report.json's null as 0).
        if not (isinstance(cell["seconds"], float) and cell["seconds"] > 0):
            fail(f"report.json: the first build's cell time is {cell['seconds']!r}")
        b2 = subprocess.run([CUWHEEL, "build", "--no-test", "--progress=plain"], cwd=proj,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out2 = os.path.join(tmp, "out2")
        r2 = subprocess.run([CUWHEEL, "report", "--out", out2], cwd=proj, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if b2.returncode != 0 or r2.returncode != 0:
            fail("the no-op rebuild or its report failed", b2.stdout + r2.stdout)
        cell2 = next(c for c in json.load(open(os.path.join(out2, "report.json")))["cells"]
                     if c["id"] == CELL)
        if cell2["result"] != "ok" or cell2["seconds"] is not None:
            fail(f"report.json after a no-op rebuild: {cell2['result']}, seconds "
                 f"{cell2['seconds']!r} (want ok and null)")
        if "up to date" not in open(os.path.join(out2, "report.html")).read():
            fail("the HTML after a no-op rebuild does not say the cell was up to date")
        print("ok: after a no-op rebuild the cell's time is null in report.json and 'up to date' "
              "in the HTML")

        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if not chromium:
            return testskip.skip_code("no chromium (apt-get install chromium) to render the page",
                                      ci_installs="chromium")
        # Errors become an attribute of <html>, visible in the dumped DOM.
        probe = ("<script>window.onerror=function(m){document.documentElement.setAttribute("
                 "'data-errors',(document.documentElement.getAttribute('data-errors')||'')"
                 "+m+';')};var ce=console.error;console.error=function(m){window.onerror("
                 "String(m))};</script>")
        probed = os.path.join(tmp, "probed.html")
        with open(probed, "w") as f:
            f.write(text.replace("<head>", "<head>" + probe, 1))
        flags = ["--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                 f"--user-data-dir={tmp}/chrome"]
        dom = subprocess.run([chromium, *flags, "--dump-dom", "file://" + probed],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             timeout=120).stdout
        if re.search(r"<html[^>]*data-errors=", dom):
            fail("the page raised script errors in Chromium", dom[:600])
        if 'data-ready="1"' not in dom:
            fail("the page's script did not run to its end in Chromium", dom)
        if 'id="grid"' not in dom or 'id="timeline"' not in dom:
            fail("Chromium's DOM lacks the grid or the timeline", dom)
        png = os.path.join(tmp, "report.png")
        subprocess.run([chromium, *flags, "--window-size=1200,1000", f"--screenshot={png}",
                        "file://" + page_path], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        if not os.path.isfile(png) or os.path.getsize(png) < 10_000:
            fail("Chromium wrote no screenshot of the page")
        print("ok: headless Chromium renders the grid and the timeline with no script error")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main() or 0)
