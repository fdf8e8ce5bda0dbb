/* pool-posix.c: the POSIX implementation of pool.h: pthreads taking indices from one atomic
 * counter, a mutex around the done callbacks. */
#include "base/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

struct pool {
	pool_fn *fn, *done;
	void *ctx;
	size_t n;
	atomic_size_t next; /* the next index to hand out; never moves past n */
	pthread_mutex_t done_lock;
	bool locked; /* done_lock is initialised: threads were started */
};

/* Takes the next index, or returns false when all are taken. */
static bool pool_take(struct pool *p, size_t *i)
{
	size_t k = atomic_load(&p->next);
	while (k < p->n)
		if (atomic_compare_exchange_weak(&p->next, &k, k + 1)) {
			*i = k;
			return true;
		}
	return false;
}

/* Runs jobs until none is left to take. */
static void pool_drain(struct pool *p)
{
	size_t i;
	while (pool_take(p, &i)) {
		p->fn(p->ctx, i);
		if (!p->done)
			continue;
		if (p->locked)
			pthread_mutex_lock(&p->done_lock);
		p->done(p->ctx, i);
		if (p->locked)
			pthread_mutex_unlock(&p->done_lock);
	}
}

static void *pool_thread(void *arg)
{
	pool_drain(arg);
	return NULL;
}

size_t pool_run_each(size_t n, size_t workers, pool_fn *fn, pool_fn *done, void *ctx)
{
	struct pool p = {.fn = fn, .done = done, .ctx = ctx, .n = n};
	atomic_init(&p.next, 0);
	if (workers > n)
		workers = n;
	size_t extra = workers > 1 ? workers - 1 : 0; /* threads besides the caller's */
	pthread_t *th = extra ? calloc(extra, sizeof(*th)) : NULL;
	if (th && done && pthread_mutex_init(&p.done_lock, NULL) != 0) {
		free(th);
		th = NULL;
	}
	p.locked = th && done;
	size_t started = 0;
	while (th && started < extra && pthread_create(&th[started], NULL, pool_thread, &p) == 0)
		started++;
	pool_drain(&p); /* the caller works too, and alone when no thread started */
	for (size_t t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	free(th);
	if (p.locked)
		pthread_mutex_destroy(&p.done_lock);
	return started + 1;
}

size_t pool_run(size_t n, size_t workers, pool_fn *fn, void *ctx)
{
	return pool_run_each(n, workers, fn, NULL, ctx);
}
