import os
# A project (not an sdist) whose kernel glob is "**/*.cu", with cuwheel's own files where a
# careless glob would find them: a name no compiler command can carry, or a dir that would
# then count as a source dir (and the build dir or dist dir inside it refused).
for d, f in (("pkg", "__init__.py"), ("kern", "k.cu"), ("src", "ext.c")):
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, f), "w").write("__global__ void k() {}\n" if f.endswith(".cu") else "")
for path in ['dist/old.cu']:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write("__global__ void stub() {}\n")
