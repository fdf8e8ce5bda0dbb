#!/usr/bin/env python3
"""test_verdicts: `cuwheel retag` and `cuwheel index` refuse every wheel `cuwheel audit` refuses
(one shared check, audit_gate), and accept what it accepts (issue 19, class 8). Table-driven:
each case writes a small wheel with one defect and runs the three commands on it; each must
exit 1 with a message holding the expected text, and retag/index must write nothing. Also: the
audit says which of empty / truncated / not a zip a file is, and retag's size mismatch names
both sizes."""
import base64
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
FAILS = []
PY = b"print('hello')\n"


def b64(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel(path, version="1.0", di_version=None, wheel_text=None, meta=None, extra=None,
          sizes=None):
    """A pure wheel demo-<version> at path: demo/__init__.py, METADATA, WHEEL, RECORD. wheel_text
    / meta replace WHEEL / METADATA; extra adds members; sizes overrides RECORD's sizes."""
    di = f"demo-{di_version or version}.dist-info"
    files = {"demo/__init__.py": PY}
    files.update(extra or {})
    files[f"{di}/METADATA"] = meta if meta is not None else \
        f"Metadata-Version: 2.1\nName: demo\nVersion: {version}\n".encode()
    files[f"{di}/WHEEL"] = wheel_text if wheel_text is not None else \
        b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    rows = "".join(f"{n},sha256={b64(d)},{(sizes or {}).get(n, len(d))}\n"
                   for n, d in files.items())
    files[f"{di}/RECORD"] = (rows + f"{di}/RECORD,,\n").encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            zi = zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, d)


def raw(path, data):
    with open(path, "wb") as f:
        f.write(data)


WV9 = b"Wheel-Version: 9.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
NOWV = b"Generator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
CP312 = (b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: false\n"
         b"Tag: cp312-cp312-linux_x86_64\n")
NOPURE = b"Wheel-Version: 1.0\nGenerator: t\nTag: py3-none-any\n"

# (case, file name, writer, text every refusal holds (None: all three accept),
#  text the audit's message must also hold)
CASES = [
    ("control: an honest pure wheel", "demo-1.0-py3-none-any.whl",
     lambda p: wheel(p), None, None),
    ("control: INSTALLER inside is a warning, not a refusal", "demo-1.0-py3-none-any.whl",
     lambda p: wheel(p, extra={"demo-1.0.dist-info/INSTALLER": b"pip\n"}), None, None),
    ("Wheel-Version: 9.0", "demo-1.0-py3-none-any.whl",
     lambda p: wheel(p, wheel_text=WV9), "Wheel-Version is 9.0", None),
    ("no Wheel-Version", "demo-1.0-py3-none-any.whl",
     lambda p: wheel(p, wheel_text=NOWV), "Wheel-Version is missing", None),
    ("a cp312 wheel renamed cp313", "demo-1.0-cp313-cp313-linux_x86_64.whl",
     lambda p: wheel(p, wheel_text=CP312), "cp312-cp312-linux_x86_64", "not the file name"),
    ("a py3 wheel renamed py2", "demo-1.0-py2-none-any.whl",
     lambda p: wheel(p), "py3-none-any", "not the file name"),
    ("no Root-Is-Purelib", "demo-1.0-py3-none-any.whl",
     lambda p: wheel(p, wheel_text=NOPURE), "Root-Is-Purelib", None),
    ("METADATA names another project", "demo-1.0-py3-none-any.whl",
     lambda p: wheel(p, meta=b"Metadata-Version: 2.1\nName: other\nVersion: 1.0\n"),
     "other", None),
    ("RECORD's size lies (hash right)", "demo-1.0-py3-none-any.whl",
     lambda p: wheel(p, sizes={"demo/__init__.py": 999}), "999", None),
    ("an empty file", "demo-1.0-py3-none-any.whl",
     lambda p: raw(p, b""), "demo-1.0-py3-none-any.whl", "the file is empty"),
    ("a truncated wheel", "demo-1.0-py3-none-any.whl",
     lambda p: (wheel(p), raw(p, open(p, "rb").read()[:60])), "demo-1.0-py3-none-any.whl",
     "truncated: it starts as a zip archive"),
    ("not a zip", "demo-1.0-py3-none-any.whl",
     lambda p: raw(p, b"<html>not found</html>\n"), "demo-1.0-py3-none-any.whl",
     "not a zip archive: no end-of-central-directory record"),
]


def check(name, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + name, flush=True)
    if not ok:
        FAILS.append(name)
        print("   " + detail[-1500:].replace("\n", "\n   "))


def run(args, cwd):
    return subprocess.run([CUWHEEL] + args, cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def main():
    with tempfile.TemporaryDirectory(prefix="cuwheel-verdicts-") as tmp:
        for i, (name, fn, write, want, audit_want) in enumerate(CASES):
            work = os.path.join(tmp, str(i))
            src = os.path.join(work, "src")
            os.makedirs(src)
            path = os.path.join(src, fn)
            write(path)
            a = run(["audit", path], work)
            r = run(["retag", path, "--local", "cu130", "-o", "out"], work)
            x = run(["index", "src", "--out", "site"], work)
            wrote_r = os.listdir(os.path.join(work, "out")) if os.path.isdir(
                os.path.join(work, "out")) else []
            wrote_x = os.path.exists(os.path.join(work, "site"))
            if want is None:
                check(f"{name}: audit, retag and index accept it",
                      a.returncode == 0 and r.returncode == 0 and x.returncode == 0 and
                      wrote_r and wrote_x, a.stdout + a.stderr + r.stderr + x.stderr)
                continue
            for tool, p in (("audit", a), ("retag", r), ("index", x)):
                out = p.stdout + p.stderr
                check(f"{name}: {tool} refuses it (exit {p.returncode}) saying '{want}'",
                      p.returncode == 1 and want in out and "Sanitizer" not in out, out)
            check(f"{name}: retag and index wrote nothing", not wrote_r and not wrote_x,
                  f"retag: {wrote_r}, index site: {wrote_x}")
            if audit_want:
                check(f"{name}: the audit says '{audit_want}'",
                      audit_want in a.stdout + a.stderr, a.stdout + a.stderr)
            if "size lies" in name:
                check(f"{name}: retag names both sizes",
                      "size 15 bytes, RECORD says 999" in r.stderr, r.stderr)
    print(f"test_verdicts: {len(CASES)} wheels, {len(FAILS)} failures")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
