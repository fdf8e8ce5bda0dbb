/* cross_venv.h: testing a wheel of another Linux architecture (linux_aarch64 on x86_64) with
 * that architecture's CPython, an installed cross part (toolchain/provision_cross.h), run by
 * qemu-user: a venv the host writes (the target's interpreter cannot start a child here), the
 * wheel and the test's requirements installed into it by the host's pip for the target's tags,
 * and a `python` in the venv that runs the interpreter under qemu. */
#ifndef CUWHEEL_WHEELTEST_CROSS_VENV_H
#define CUWHEEL_WHEELTEST_CROSS_VENV_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "toolchain/discover.h"

/* The interpreters of the cross Python parts in ds for Linux architecture arch ("aarch64"),
 * oldest first: path <root>/usr/bin/python3.X, found_by "cross"; *n their number. */
struct interp *cross_interps(struct arena *a, const struct discovery *ds, const char *arch,
                             size_t *n);
/* The qemu-user program that runs arch's programs ("qemu-aarch64-static", else
 * "qemu-aarch64") on env's PATH, or NULL. */
const char *cross_qemu(struct arena *a, const char *const *env, const char *arch);
/* Writes the venv dir for py (pyvenv.cfg, lib/python3.X/site-packages, bin/python3.X linked
 * to the interpreter, bin/python and bin/python3 running it under qemu -L <its root>). False
 * with the reason in out. */
bool cross_venv_create(struct arena *a, const char *venv, const char *qemu, const struct interp *py,
                       struct strbuf *out);
/* Appends pip's options that install for py's tags into the venv's site-packages instead of
 * the host's: --target, --python-version, --implementation, --abi, --platform (manylinux
 * 2014 and 2_17 up to the wheel's own glibc) and --only-binary :all:. plat: the wheel's
 * platform tag ("manylinux_2_34_aarch64"). */
void cross_pip_options(struct arena *a, struct strv *args, const char *venv,
                       const struct interp *py, const char *plat);
/* The command that compiles the venv's site-packages and py's standard library to bytecode
 * with this machine's Python of py's version (bytecode is the same on every architecture;
 * under qemu, compiling pytest and numpy at import costs about 30 s of CPU a test), or NULL
 * when ds has none. */
const char *const *cross_compile_argv(struct arena *a, const struct discovery *ds, const char *venv,
                                      const struct interp *py);

#endif
