/* os-tmp.h: temp files and dirs that vanish on error or signal, the signal policy, and the
 * temp-beside-then-rename of every whole-file write. POSIX in base/os-tmp-posix.c and
 * base/os-file-posix.c. */
#ifndef CUWHEEL_BASE_OS_TMP_H
#define CUWHEEL_BASE_OS_TMP_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/diag.h"

/* Temp directories (`index`'s .site.new.*) that must vanish on error or signal: register after
 * creating; the signal handlers installed by os_install_signal_cleanup remove them with
 * everything in them. */
void os_tmp_register_dir(const char *path);
/* Creates a unique directory from tmpl (ending in XXXXXX, filled in place) and registers it as
 * above, with signals blocked in between so none can leave it behind; false + diagnostic. */
bool os_mkdtemp_registered(struct diag *d, char *tmpl);
void os_tmp_forget(const char *path);
/* Removes every registered temp file and dir (also called from the signal handler). */
void os_tmp_cleanup(void);
/* Opens each of fds 0-2 that is closed on /dev/null (stdin read-only, stdout and stderr
 * write-only), so no file cuwheel opens later (the build dir's lock) becomes its output. */
void os_std_fds_open(void);
/* Installs the signal policy: SIGINT/SIGTERM/SIGHUP, and SIGPIPE (a closed reader of cuwheel's
 * output) as SIGTERM, are forwarded to every child running (each in a process group of its
 * own), waited for (SIGKILL after OS_CHILD_GRACE_S seconds),
 * then the temp files are removed and cuwheel dies of the signal, so nothing it started
 * outlives it and nothing is written after it; SIGXFSZ is ignored, so a write past
 * `ulimit -f` fails with EFBIG ("File too large") and is reported like any write error. */
void os_install_signal_cleanup(void);
enum { OS_CHILD_GRACE_S = 10 };
/* Creates a unique temp file next to `final` (same directory, hidden name) and registers it.
 * Returns the open fd and stores the path in *tmp_path; -1 + diagnostic on error. */
int os_tmp_beside(struct arena *a, struct diag *d, const char *final, char **tmp_path);
/* fsyncs fd, closes it, renames tmp over final and forgets tmp; false + diagnostic (and unlink). */
bool os_commit_tmp(struct diag *d, int fd, const char *tmp, const char *final);

#endif
