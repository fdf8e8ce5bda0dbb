/* sandbox.h: the sandbox a project's own code (its setup.py) runs in, made by bubblewrap
 * (bwrap): user, mount, PID, network, IPC, UTS and cgroup namespaces of its own, no
 * capability, the real filesystem read-only, the home directories and /run hidden behind
 * empty read-only tmpfs, /tmp and /var/tmp private (empty, writable, thrown away), a /proc and
 * /dev of its own, one directory writable, and every process in it killed when the command
 * (or cuwheel) ends. */
#ifndef CUWHEEL_BASE_SANDBOX_H
#define CUWHEEL_BASE_SANDBOX_H

#include <stdbool.h>

#include "base/arena.h"

/* What the probe found. */
struct sandbox {
	const char *bwrap;    /* its absolute path, or NULL when none was found */
	const char *found_by; /* "CUWHEEL_BWRAP", "a fixed place" or "PATH" */
	const char *version;  /* "bubblewrap 0.8.0" (printable ASCII only), or NULL */
	const char *error;    /* why no sandbox can be made here, or NULL when one can */
};

/* Finds bwrap once ($CUWHEEL_BWRAP, else /usr/bin/bwrap, /usr/local/bin/bwrap, /bin/bwrap,
 * else the first on env's PATH; always an absolute path) and tries it: a sandbox of the shape
 * sandbox_argv makes runs `bwrap --version`. Returns true when that worked; false with
 * s->error saying why (no bwrap, or its own message: user namespaces refused...). */
bool sandbox_probe(struct arena *a, const char *const *env, struct sandbox *s);

/* The directories one command's sandbox sees beyond the read-only filesystem. */
struct sandbox_spec {
	const char *writable;        /* the one directory bound read-write (at its own path) */
	const char *const *readable; /* NULL-terminated (or NULL): directories the command needs
	                              * that are bound read-only where they lie in a hidden dir
	                              * (an interpreter, a toolkit, cuwheel's cache) */
	const char *cwd;             /* where the command starts (NULL: /) */
};

/* Pushes onto argv (without a NULL) s->bwrap and its options up to and including "--": what
 * is pushed next runs in the sandbox. The home dirs hidden are $HOME of env, the passwd
 * entry's home, /home and /root; each readable dir inside a hidden dir (/tmp too), and no
 * hidden dir itself, is bound back read-only. */
void sandbox_argv(struct arena *a, const struct sandbox *s, const char *const *env,
                  const struct sandbox_spec *spec, struct strv *argv);

/* Where a compile in canonical places sees the project and the build dir (sandbox_canon_argv):
 * fixed paths, so that what a compiler records of the paths it was given (device line info:
 * cicc has no prefix map) is the same wherever the two directories are. */
#define SANDBOX_CANON_PROJECT "/cuwheel/project"
#define SANDBOX_CANON_BUILD   "/cuwheel/build"

/* Pushes onto argv (without a NULL) bwrap and its options up to and including "--": what is
 * pushed next runs in a mount namespace of its own (a user namespace too where bwrap makes
 * one) whose root holds every entry of the real / at its own path (bound read-write, devices
 * too; a symlink as the same symlink), except one named "cuwheel", and besides project at
 * SANDBOX_CANON_PROJECT and build at SANDBOX_CANON_BUILD (both bound read-write), starting in
 * SANDBOX_CANON_BUILD, with CCACHE_BASEDIR unset (the paths are the same everywhere, so ccache
 * shares them as they are). ro_binds (NULL, or pairs SRC, DEST ending at a NULL SRC): more
 * files bound read-only, after the rest (SRC is the real path, even below a DEST). It is no
 * isolation: a compile's view of the machine, moved. False when / cannot be listed. */
bool sandbox_canon_argv(struct arena *a, const char *bwrap, const char *project, const char *build,
                        const char *const *ro_binds, struct strv *argv);

#endif
