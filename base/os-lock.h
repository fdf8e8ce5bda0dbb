/* os-lock.h: exclusive lock files (the build dir's, the provisioning cache's) and the pid of
 * their holder. POSIX in base/os-file-posix.c. */
#ifndef CUWHEEL_BASE_OS_LOCK_H
#define CUWHEEL_BASE_OS_LOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

/* Opens (creating) a lock file; inherit keeps it open across exec so child processes hold the
 * lock too. Returns the fd, or -1 + diagnostic. */
int os_lock_open(struct diag *d, const char *path, bool inherit);
/* Takes an exclusive lock on fd without waiting; false when another process holds it. */
bool os_lock_try(int fd);
/* Waits for an exclusive lock on fd (retrying on EINTR); false + diagnostic naming path. */
bool os_lock_wait(struct diag *d, int fd, const char *path);
/* Writes this process's pid as the whole content of the lock file open on fd (best effort). */
void os_lock_set_holder(int fd);
/* Reads the pid a holder wrote into the lock file open on fd into buf (n bytes with the NUL);
 * "" when there is none. */
void os_lock_holder(int fd, char *buf, size_t n);

#endif
