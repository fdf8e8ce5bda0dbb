"""`cuwheel report` after a real small build (CUDA 13.0, sm_75, one Python): the trace is valid
Chrome trace JSON (names, phases, microsecond timestamps and durations), the data JSON and the
HTML hold the grid and the timeline, and headless Chromium renders the page with no script
error. Needs jsonschema (re-executes itself with ci/test-venv's python when missing)."""
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
    py = subprocess.run([os.path.join(SRC, "ci", "test-venv")], stdout=subprocess.PIPE,
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
            shutil.copy(os.path.join(SRC, n), proj)
        for n in ("kernels", "bindings", "python"):
            shutil.copytree(os.path.join(SRC, n), os.path.join(proj, n),
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
        for n in ("report.html", "report-data.json", "report-trace.json"):
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

        data = json.load(open(os.path.join(out, "report-data.json")))
        cell = next(c for c in data["cells"] if c["id"] == CELL)
        if cell["result"] != "ok" or not cell["wheel"] or cell["size"] <= 0:
            fail(f"data JSON: {cell}")
        if cell["audit"] is None or not cell["audit"]["ok"]:
            fail(f"data JSON: no passing audit for {CELL}")
        if not data["toolchain"]["nvcc"] or not data["toolchain"]["pythons"]:
            fail("data JSON: no toolchain versions")
        print("ok: data JSON holds the cells, the audit and the toolchain")

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
            fail(f"data JSON: the first build's cell time is {cell['seconds']!r}")
        b2 = subprocess.run([CUWHEEL, "build", "--no-test", "--progress=plain"], cwd=proj,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out2 = os.path.join(tmp, "out2")
        r2 = subprocess.run([CUWHEEL, "report", "--out", out2], cwd=proj, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if b2.returncode != 0 or r2.returncode != 0:
            fail("the no-op rebuild or its report failed", b2.stdout + r2.stdout)
        cell2 = next(c for c in json.load(open(os.path.join(out2, "report-data.json")))["cells"]
                     if c["id"] == CELL)
        if cell2["result"] != "ok" or cell2["seconds"] is not None:
            fail(f"data JSON after a no-op rebuild: {cell2['result']}, seconds "
                 f"{cell2['seconds']!r} (want ok and null)")
        if "up to date" not in open(os.path.join(out2, "report.html")).read():
            fail("the HTML after a no-op rebuild does not say the cell was up to date")
        print("ok: after a no-op rebuild the cell's time is null in the data and 'up to date' "
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
