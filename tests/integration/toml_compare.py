#!/usr/bin/env python3
"""toml_compare.py: runs a TOML decoder over a toml-test corpus and compares semantically.

usage: toml_compare.py DECODER CORPUS_DIR

DECODER is run as `DECODER internal toml-decode` with each file on stdin. Valid files must exit 0
and print tagged JSON equal to the .json beside them; invalid files must exit non-zero with a
message on stderr. Prints the counts and exits 1 when any file is off.
"""
import datetime
import json
import math
import pathlib
import re
import subprocess
import sys

DT_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})?$")
TIME_RE = re.compile(r"^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$")


def norm_time(h, mi, s, frac):
    # Compare fractions at microsecond precision after padding: "0.6" equals "0.600".
    frac = (frac or "").ljust(9, "0")
    return (int(h), int(mi), int(s), int(frac))


def norm_scalar(tag, text):
    """Returns a value that compares equal for equal TOML values of this type."""
    if tag == "integer":
        return int(text)
    if tag == "float":
        low = text.lower().lstrip("+")
        if low in ("nan", "-nan"):
            return "nan"
        if low in ("inf", "-inf"):
            return low
        return float(text)
    if tag == "bool":
        if text not in ("true", "false"):
            raise ValueError("bad bool %r" % text)
        return text
    if tag in ("datetime", "datetime-local"):
        m = DT_RE.match(text)
        if not m:
            raise ValueError("bad %s %r" % (tag, text))
        y, mo, d, h, mi, s, frac, off = m.groups()
        if (off is None) != (tag == "datetime-local"):
            raise ValueError("offset does not match tag %s: %r" % (tag, text))
        if off in ("Z", "z", "+00:00", "-00:00"):
            off = "Z"
        return (int(y), int(mo), int(d)) + norm_time(h, mi, s, frac) + (off,)
    if tag == "date-local":
        return datetime.date.fromisoformat(text)
    if tag == "time-local":
        m = TIME_RE.match(text)
        if not m:
            raise ValueError("bad time %r" % text)
        return norm_time(*m.groups())
    if tag == "string":
        return text
    raise ValueError("unknown type tag %r" % tag)


def norm(v):
    """Turns tagged JSON into plain comparable Python values."""
    if isinstance(v, list):
        return ["array", [norm(x) for x in v]]
    if not isinstance(v, dict):
        raise ValueError("untagged value %r" % (v,))
    if set(v.keys()) == {"type", "value"} and isinstance(v["type"], str) and isinstance(
            v["value"], str):
        return ["scalar", v["type"], norm_scalar(v["type"], v["value"])]
    return ["table", {k: norm(x) for k, x in v.items()}]


def equal(a, b):
    # nan must equal nan here, so compare the normalised trees with a float-aware walk.
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    return a == b


def run(decoder, path):
    with open(path, "rb") as f:
        return subprocess.run([decoder, "internal", "toml-decode"], stdin=f,
                              capture_output=True, timeout=30)


def main():
    decoder, corpus = sys.argv[1], pathlib.Path(sys.argv[2])
    valid = sorted((corpus / "valid").rglob("*.toml"))
    invalid = sorted((corpus / "invalid").rglob("*.toml"))
    if not valid or not invalid:
        print("no corpus found in %s" % corpus)
        return 1
    failures = []
    vpass = 0
    for path in valid:
        r = run(decoder, path)
        rel = path.relative_to(corpus)
        if r.returncode != 0 or r.stderr:
            failures.append("%s: rejected: %s" % (rel, r.stderr.decode(errors="replace").strip()))
            continue
        try:
            got = norm(json.loads(r.stdout))
            want = norm(json.loads(path.with_suffix(".json").read_text(encoding="utf-8")))
        except (ValueError, json.JSONDecodeError) as e:
            failures.append("%s: bad output: %s" % (rel, e))
            continue
        if not equal(got, want):
            failures.append("%s: output differs\n    got:  %s\n    want: %s" %
                            (rel, r.stdout.decode(errors="replace").strip(),
                             path.with_suffix(".json").read_text(encoding="utf-8")))
            continue
        vpass += 1
    ipass = 0
    for path in invalid:
        r = run(decoder, path)
        rel = path.relative_to(corpus)
        # A crash is not a rejection, nor is a silent failure; sanitizers also exit 1.
        err = r.stderr.decode(errors="replace")
        if r.returncode == 1 and "error:" in err and "Sanitizer" not in err and \
                "runtime error" not in err:
            ipass += 1
        elif r.returncode == 0:
            failures.append("%s: accepted: %s" % (rel, r.stdout.decode(errors="replace")[:200]))
        else:
            failures.append("%s: exit %d, stderr %r" % (rel, r.returncode, r.stderr[:200]))
    for f in failures:
        print("FAIL " + f)
    print("valid: %d/%d passed, invalid: %d/%d rejected" %
          (vpass, len(valid), ipass, len(invalid)))
    return 0 if vpass == len(valid) and ipass == len(invalid) else 1


if __name__ == "__main__":
    sys.exit(main())
