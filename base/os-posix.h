/* os-posix.h: what the os-*-posix.c files share beyond base/os-*.h (not for use outside base/). */
#ifndef CUWHEEL_BASE_OS_POSIX_H
#define CUWHEEL_BASE_OS_POSIX_H

#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/os-file.h"
#include "base/os-run.h"
#include "base/os-tmp.h"

extern char **environ;

/* os-file-posix.c */
/* Reads the regular file open on fd (not closed), by its size and again while reading at most
 * max bytes: false + "not a regular file", "N bytes is over the max-byte limit for what" or
 * "more than max bytes: over the limit for what", naming name (also src->path). */
bool os_read_regular_fd(struct arena *a, struct diag *d, int fd, const char *name, size_t max,
                        const char *what, struct source *src);

/* os-tmp-posix.c: the registries the signal handler reads. */
/* Registers a temp file that must vanish on error or signal (os_tmp_forget after the final
 * rename); a full registry leaves it unregistered. */
void os_tmp_register(const char *path);
/* Registers a running child (the leader of its own process group) for the handler to signal. */
void os_child_register(pid_t pid);
/* Forgets a child that was reaped. */
void os_child_forget(pid_t pid);

/* os-spawn-posix.c */
/* posix_spawnp with the attributes every child gets (its own process group, default signal
 * dispositions), registering the child before a signal can be handled. Returns the errno. */
int os_spawn_registered(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        char *const *argv, char *const *envp);
/* Reaps pid (blocking or not) and forgets it in one step the signal handler cannot split;
 * returns waitpid's value (errno kept). */
pid_t os_reap(pid_t pid, int *ws, bool block);

#endif
