/* test_pool.c: the worker pool (base/pool.h): every index runs exactly once for n = 0, 1 and
 * many and workers = 0, 1, n and more than n; one worker or one job runs inline, in order, on
 * the caller's thread; jobs really run at once (two and four jobs that each wait for all the
 * others complete); done follows its own job on the same thread and never overlaps another; when
 * no thread can start (a default stack larger than the address space) every job still runs, on
 * the caller's thread. No cmocka assertion runs on a worker thread: jobs record, the test checks
 * afterwards. */
#define _GNU_SOURCE /* pthread_getattr_default_np, pthread_setattr_default_np */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "base/pool.h"

struct count {
	atomic_int *runs;  /* per index: how many times fn ran it */
	pthread_t *thread; /* per index: the thread that ran it */
	size_t *order;     /* per index: its place among the jobs started (inline runs only) */
	atomic_size_t seq; /* jobs started so far */
};

static void count_job(void *ctx, size_t i)
{
	struct count *c = ctx;
	atomic_fetch_add(&c->runs[i], 1);
	c->thread[i] = pthread_self();
	c->order[i] = atomic_fetch_add(&c->seq, 1);
}

static void every_index_runs_exactly_once(void **state)
{
	const size_t ns[] = {0, 1, 2, 7, 100};
	for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++) {
		size_t n = ns[a];
		const size_t workers[] = {0, 1, 2, n, n + 1, n + 5, 4};
		for (size_t b = 0; b < sizeof(workers) / sizeof(workers[0]); b++) {
			size_t w = workers[b];
			struct count c = {
			    .runs = calloc(n + 1, sizeof(*c.runs)),
			    .thread = calloc(n + 1, sizeof(*c.thread)),
			    .order = calloc(n + 1, sizeof(*c.order)),
			};
			atomic_init(&c.seq, 0);
			assert_non_null(c.runs);
			assert_non_null(c.thread);
			assert_non_null(c.order);
			size_t took = pool_run(n, w, count_job, &c);
			assert_true(took >= 1);
			assert_true(took <= (w > 1 ? w : 1));
			assert_true(took <= (n > 1 ? n : 1));
			for (size_t i = 0; i < n; i++)
				assert_int_equal(atomic_load(&c.runs[i]), 1);
			assert_int_equal(atomic_load(&c.seq), n);
			if (w <= 1 || n <= 1) { /* inline: the caller's thread, in order */
				assert_int_equal(took, 1);
				for (size_t i = 0; i < n; i++) {
					assert_true(pthread_equal(c.thread[i], pthread_self()));
					assert_int_equal(c.order[i], i);
				}
			}
			free(c.runs);
			free(c.thread);
			free(c.order);
		}
	}
}

static void threads_that_cannot_start_lose_no_job(void **state)
{
	const size_t n = 50;
	struct count c = {
	    .runs = calloc(n, sizeof(*c.runs)),
	    .thread = calloc(n, sizeof(*c.thread)),
	    .order = calloc(n, sizeof(*c.order)),
	};
	atomic_init(&c.seq, 0);
	assert_non_null(c.runs);
	assert_non_null(c.thread);
	assert_non_null(c.order);
	pthread_attr_t old, huge;
	assert_int_equal(pthread_getattr_default_np(&old), 0);
	pthread_attr_init(&huge);
	assert_int_equal(pthread_attr_setstacksize(&huge, (size_t)1 << 62), 0);
	assert_int_equal(pthread_setattr_default_np(&huge), 0);
	size_t took = pool_run(n, 4, count_job, &c); /* every pthread_create fails */
	assert_int_equal(pthread_setattr_default_np(&old), 0);
	pthread_attr_destroy(&huge);
	pthread_attr_destroy(&old);
	assert_int_equal(took, 1);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(atomic_load(&c.runs[i]), 1);
		assert_true(pthread_equal(c.thread[i], pthread_self()));
		assert_int_equal(c.order[i], i);
	}
	free(c.runs);
	free(c.thread);
	free(c.order);
}

/* A rendezvous: each job arrives and waits (at most 20 s, valgrind included) for all. */
struct meet {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t arrived, want;
	bool *met; /* per index: saw all the others arrive in time */
};

static void meet_job(void *ctx, size_t i)
{
	struct meet *m = ctx;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 20;
	pthread_mutex_lock(&m->mu);
	m->arrived++;
	pthread_cond_broadcast(&m->cv);
	int rc = 0;
	while (m->arrived < m->want && rc == 0)
		rc = pthread_cond_timedwait(&m->cv, &m->mu, &until);
	m->met[i] = m->arrived >= m->want;
	pthread_mutex_unlock(&m->mu);
}

static void meet_all(size_t n)
{
	struct meet m = {.want = n, .met = calloc(n, sizeof(bool))};
	assert_non_null(m.met);
	pthread_mutex_init(&m.mu, NULL);
	pthread_cond_init(&m.cv, NULL);
	assert_int_equal(pool_run(n, n, meet_job, &m), n);
	for (size_t i = 0; i < n; i++)
		assert_true(m.met[i]);
	pthread_cond_destroy(&m.cv);
	pthread_mutex_destroy(&m.mu);
	free(m.met);
}

static void jobs_run_at_once(void **state)
{
	meet_all(2);
	meet_all(4);
}

struct each {
	atomic_int *ran, *dones;
	pthread_t *thread;
	atomic_int inside;   /* dones running now */
	atomic_int overlaps; /* a done that found another running */
	atomic_int early;    /* a done before its own job, or on another thread */
};

static void each_job(void *ctx, size_t i)
{
	struct each *e = ctx;
	e->thread[i] = pthread_self();
	atomic_fetch_add(&e->ran[i], 1);
}

static void each_done(void *ctx, size_t i)
{
	struct each *e = ctx;
	if (atomic_fetch_add(&e->inside, 1) != 0)
		atomic_fetch_add(&e->overlaps, 1);
	if (atomic_load(&e->ran[i]) != 1 || !pthread_equal(e->thread[i], pthread_self()))
		atomic_fetch_add(&e->early, 1);
	struct timespec pause = {0, 200 * 1000}; /* long enough for another done to collide */
	nanosleep(&pause, NULL);
	atomic_fetch_add(&e->dones[i], 1);
	atomic_fetch_sub(&e->inside, 1);
}

static void done_follows_its_job_one_at_a_time(void **state)
{
	const size_t n = 64;
	const size_t workers[] = {0, 1, 8, 100};
	for (size_t b = 0; b < sizeof(workers) / sizeof(workers[0]); b++) {
		struct each e = {
		    .ran = calloc(n, sizeof(*e.ran)),
		    .dones = calloc(n, sizeof(*e.dones)),
		    .thread = calloc(n, sizeof(*e.thread)),
		};
		assert_non_null(e.ran);
		assert_non_null(e.dones);
		assert_non_null(e.thread);
		atomic_init(&e.inside, 0);
		atomic_init(&e.overlaps, 0);
		atomic_init(&e.early, 0);
		pool_run_each(n, workers[b], each_job, each_done, &e);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(atomic_load(&e.ran[i]), 1);
			assert_int_equal(atomic_load(&e.dones[i]), 1);
		}
		assert_int_equal(atomic_load(&e.overlaps), 0);
		assert_int_equal(atomic_load(&e.early), 0);
		free(e.ran);
		free(e.dones);
		free(e.thread);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_index_runs_exactly_once),
	    cmocka_unit_test(jobs_run_at_once),
	    cmocka_unit_test(threads_that_cannot_start_lose_no_job),
	    cmocka_unit_test(done_follows_its_job_one_at_a_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
