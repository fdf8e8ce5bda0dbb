import base64, hashlib, zipfile
MEMBERS = [('demo/__init__.py', ''), ('demo-1.0.data/purelib/demo2.py', '')]
TOP_LEVEL = None
def row(n, d):
    h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
    return f"{n},sha256={h},{len(d)}\n"
di = "demo-1.0.dist-info"
files = [(n, d.encode()) for n, d in MEMBERS]
files.append((f"{di}/METADATA", b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"))
files.append((f"{di}/WHEEL", b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
if TOP_LEVEL is not None:
    files.append((f"{di}/top_level.txt", TOP_LEVEL.encode()))
rec = "".join(row(n, d) for n, d in files) + f"{di}/RECORD,,\n"
with zipfile.ZipFile("demo-1.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as z:
    for n, d in files:
        z.writestr(n, d)
    z.writestr(f"{di}/RECORD", rec)
