/* pool.h: the worker pool, the one place cuwheel starts threads: n independent jobs, each an
 * index, run on a few threads with the caller's own among them. A job keeps its results in the
 * caller's arrays at its index; the pool shares nothing with the jobs but its own counter.
 * POSIX threads in pool-posix.c. */
#ifndef CUWHEEL_BASE_POOL_H
#define CUWHEEL_BASE_POOL_H

#include <stddef.h>

/* One job, or the report on one: called with the ctx given to pool_run and the job's index. */
typedef void pool_fn(void *ctx, size_t i);

/* Runs fn(ctx, i) exactly once for every i in [0, n), handing the indices out in increasing
 * order to up to workers threads (the caller's thread is one of them), and returns when every
 * job has returned. workers <= 1 or n <= 1: all on the caller's thread, in order. A thread that
 * cannot start leaves its share to those that did (the caller at least): no job is lost.
 * Returns how many threads took part (1: the caller's alone). */
size_t pool_run(size_t n, size_t workers, pool_fn *fn, void *ctx);

/* As pool_run, and after each fn(ctx, i) calls done(ctx, i) on the thread that ran it, never two
 * dones at once (progress, a log line), in the order the jobs finish. */
size_t pool_run_each(size_t n, size_t workers, pool_fn *fn, pool_fn *done, void *ctx);

#endif
