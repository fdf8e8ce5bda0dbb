import json, os, pathlib, re, shutil
def md(s):
    # Inline Markdown text, as cuwheel's ESC_MARKDOWN: a control character as \xNN bytes,
    # then a backslash before each character Markdown acts on (a '|' would end the cell).
    s = "".join(c if c.isprintable() else
                "".join(f"\\x{b:02x}" for b in c.encode("utf-8", "surrogateescape")) for c in s)
    return re.sub(r"([\\`*_\[\]()<>|!#~&$@])", r"\\\1", s)
result = {job: v["result"] for job, v in json.loads(os.environ["NEEDS"]).items()}
src, dist = pathlib.Path("wheels-in"), pathlib.Path(os.environ["DIST"])
dist.mkdir(parents=True, exist_ok=True)
have = sorted(p.name for p in src.glob("*.whl")) if src.is_dir() else []
rows, missing = [], []
for line in os.environ["CELLS"].splitlines():
    cell, prefix, suffix, chain, gates = line.split()
    chain = chain.split(",")
    gates = [] if gates == "-" else gates.split(",")
    files = [f for f in have if f.startswith(prefix) and f.endswith(suffix)]
    failed_gates = [g for g in gates if result.get(g) != "success"]
    if files and not failed_gates:
        for f in files:
            shutil.copy2(src / f, dist / f)
        rows.append(f"| {md(cell)} | published | {md(' '.join(files))} |")
        continue
    bad = [j for j in chain + gates if result.get(j) != "success"]
    why = f"{bad[0]}: {result.get(bad[0], 'not run')}" if bad else "no wheel uploaded"
    missing.append(f"{cell} ({why})")
    rows.append(f"| {md(cell)} | **missing** | {md(why)} |")
n = len(rows)
text = [f"## Wheels: {n - len(missing)} of {n} cells published", "",
        "| cell | status | wheel, or why not |", "|---|---|---|", *rows, ""]
summary = os.environ.get("GITHUB_STEP_SUMMARY")
if summary:
    with open(summary, "a") as f:
        f.write("\n".join(text) + "\n")
print("\n".join(text))
pathlib.Path("missing-cells.txt").write_text("".join(m + "\n" for m in missing))
