"""`cuwheel python remove` and `cuwheel toolkit remove` remove the cache's own entry, never what
it resolves to: an install folder that is a symbolic link to a directory outside the cache is
unlinked, and that directory (its marker, its files) survives; a real install folder is still
deleted whole, and a real folder holding a link to the outside deletes the link, not its target.
The installs are made by hand (a marker file is all list and remove read), so no network."""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}\n{detail}", file=sys.stderr)


def cuwheel(env, *args):
    return subprocess.run([os.environ["CUWHEEL"], *args], env=env, capture_output=True,
                          text=True, timeout=120)


def fake_install(root, marker, version):
    os.makedirs(os.path.join(root, "bin"), exist_ok=True)
    with open(os.path.join(root, marker), "w") as f:
        json.dump({"version": version, "source": "test", "installed": "", "packages": []}, f)
    with open(os.path.join(root, "bin", "keep.txt"), "w") as f:
        f.write("outside the cache\n")


def one_kind(tmp, cmd, sub, marker, version):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    cache = os.path.join(tmp, cmd, "cache")
    env["CUWHEEL_CACHE_DIR"] = cache
    outside = os.path.join(tmp, cmd, "outside", version)
    fake_install(outside, marker, version)
    os.makedirs(os.path.join(cache, sub))
    entry = os.path.join(cache, sub, version)
    os.symlink(outside, entry)

    r = cuwheel(env, cmd, "list")
    check(r.returncode == 0 and version in r.stdout, f"{cmd} list shows the linked install",
          r.stdout + r.stderr)
    r = cuwheel(env, cmd, "remove", version)
    check(r.returncode == 0, f"{cmd} remove of a linked install succeeds", r.stdout + r.stderr)
    check(not os.path.lexists(entry), f"{cmd} remove unlinks the cache entry")
    check(os.path.isfile(os.path.join(outside, marker)),
          f"{cmd} remove leaves the link's target's marker")
    check(os.path.isfile(os.path.join(outside, "bin", "keep.txt")),
          f"{cmd} remove leaves the link's target's files")
    check("its target left as it was" in r.stderr, f"{cmd} remove says the target was kept",
          r.stderr)
    check(not [n for n in os.listdir(os.path.join(cache, sub)) if n.startswith(".trash-")],
          f"{cmd} remove leaves no trash behind")

    # A real install folder holding a link to the outside: the folder goes, the target stays.
    real = os.path.join(cache, sub, version)
    if os.path.islink(real):
        os.unlink(real)  # left by a failed remove above
    fake_install(real, marker, version)
    os.symlink(outside, os.path.join(real, "lib"))
    r = cuwheel(env, cmd, "remove", version)
    check(r.returncode == 0 and not os.path.lexists(real),
          f"{cmd} remove deletes a real install folder", r.stdout + r.stderr)
    check(os.path.isfile(os.path.join(outside, "bin", "keep.txt")),
          f"{cmd} remove does not follow a link inside the install folder")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        one_kind(tmp, "python", "pythons", "cuwheel-python.json", "3.14.10")
        one_kind(tmp, "toolkit", "toolkits", "cuwheel-toolkit.json", "13.1.80")
    if failures:
        print(f"{len(failures)} failure(s)", file=sys.stderr)
        return 1
    print("cache entries removed without following links: python, toolkit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
