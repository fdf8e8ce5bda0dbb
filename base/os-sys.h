/* os-sys.h: what the system says of this process: CPUs online, the running executable;
 * sleeping. POSIX in base/os-proc-posix.c. */
#ifndef CUWHEEL_BASE_OS_SYS_H
#define CUWHEEL_BASE_OS_SYS_H

#include "base/arena.h"

/* Returns the number of CPUs online (at least 1). */
int os_cpu_count(void);
/* Returns the absolute path of the running cuwheel executable, or NULL (errno set). */
char *os_self_exe(struct arena *a);
/* Sleeps for ms milliseconds (resumed after a signal handler returns). */
void os_sleep_ms(long ms);

#endif
