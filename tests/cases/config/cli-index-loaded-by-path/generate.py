"""dist/ with a wheel whose pkg/_C is a shared library loaded by path (no PyInit_), as a build
of the case's config makes it; WHEEL_NAME (set by a case that runs this file) names another
project."""
import base64
import hashlib
import os
import subprocess
import zipfile

name = globals().get("WHEEL_NAME", "demo")
with open("lib.c", "w") as f:
    f.write('__attribute__((visibility("default"))) int scale(int x) { return 2 * x; }\n')
subprocess.run(["gcc", "-shared", "-fPIC", "lib.c", "-o", "lib.so"], check=True)
with open("lib.so", "rb") as f:
    members = {"pkg/__init__.py": b"", "pkg/_C.cpython-312-x86_64-linux-gnu.so": f.read()}
di = f"{name}-1.0.dist-info"
members[f"{di}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode()
members[f"{di}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: case\nRoot-Is-Purelib: false\n"
                          b"Tag: cp312-cp312-linux_x86_64\n")
record = ""
for n, d in members.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
    record += f"{n},sha256={digest},{len(d)}\n"
record += f"{di}/RECORD,,\n"
members[f"{di}/RECORD"] = record.encode()
os.makedirs("dist")
with zipfile.ZipFile(f"dist/{name}-1.0-cp312-cp312-linux_x86_64.whl", "w",
                     zipfile.ZIP_DEFLATED) as z:
    for n, d in members.items():
        z.writestr(zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)), d)
