/* cmd_internal_nvcc.c: `cuwheel internal nvcc-overlap -- NVCC ARGS...`, the step build.ninja
 * compiles a .cu through: nvcc's own steps (`nvcc --dryrun`), run in chains side by side
 * (toolchain/nvcc_steps.h) so that the host's front end (cudafe++, then the host compile)
 * no longer waits for the device's (cicc), which nvcc runs one after the other. The object
 * is nvcc's, byte for byte; the depfile names what nvcc's -MD would (the headers of the host
 * and of every device pass). A command not read here runs as nvcc itself, whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "base/os-run.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "cli/early.h"
#include "cli/internal.h"
#include "standards/ninja.h"
#include "toolchain/nvcc_steps.h"

/* One compile being run: the steps, each one's argv as run, and each chain's outcome. */
struct overlap {
	struct nvcc_steps s;
	const char ***run;   /* per step: the argv run (a resolved tool, -MD -MF added) */
	const char **dep;    /* per step: the depfile a preprocessing step writes, or NULL */
	struct strbuf *out;  /* per chain: the output of its steps */
	int *status;         /* per chain: 0, or the failed step's exit status */
	size_t *failed;      /* per chain: the step that failed */
	const char **env;    /* nvcc's variables for its tools */
	bool explain;        /* CUWHEEL_NVCC_OVERLAP=explain: the schedule said on stderr */
	long *began, *ended; /* per step: when it last ran, ms after the first step began */
	long start;
};

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Runs step i (argv: how), its output appended to out; its exit status (127: it could not
 * start). */
static int run_step(struct overlap *o, size_t i, const char *const *argv, struct strbuf *out)
{
	struct diag quiet = {0}; /* a tool that cannot start is reported by its status */
	struct os_run r = {.argv = argv, .env = o->env, .capture = out != NULL};
	int status = 127;
	o->began[i] = now_ms() - o->start;
	if (!os_run(&quiet, &r, out, &status))
		status = 127;
	o->ended[i] = now_ms() - o->start;
	return status;
}

/* pool_fn: runs chain k's steps in order until one fails. */
static void chain_job(void *ctx, size_t k)
{
	struct overlap *o = ctx;
	for (size_t i = 0; i < o->s.n && !o->status[k]; i++)
		if (o->s.steps[i].chain == k) {
			o->status[k] = run_step(o, i, o->run[i], &o->out[k]);
			o->failed[k] = i;
		}
}

/* pool_fn (done): chain k's output, as nvcc prints a thread's; a failed chain's waits for
 * run_steps (nvcc stops at its first failed step, so only that one's is shown). */
static void chain_done(void *ctx, size_t k)
{
	struct overlap *o = ctx;
	if (o->out[k].len && !o->status[k])
		fwrite(o->out[k].buf, 1, o->out[k].len, stderr);
}

/* The file at path (NULL when it cannot be read). */
static const char *slurp(struct arena *a, const char *path)
{
	struct diag quiet = {0};
	struct source src;
	return os_read_file(a, &quiet, path, &src) ? src.text : NULL;
}

/* Each device front end wrote its own module id: where it differs from the host front end's,
 * that front end and the rest of its chain run again with the host's id (nvcc's order). */
static int agree_module_ids(struct arena *a, struct overlap *o, size_t *failed)
{
	for (size_t i = 0; i < o->s.n; i++) {
		const struct nvcc_step *st = &o->s.steps[i];
		if (!st->own_id)
			continue;
		const char *own = slurp(a, st->own_id), *shared = slurp(a, st->shared_id);
		if (own && shared && !strcmp(own, shared))
			continue;
		if (o->explain)
			fprintf(stderr,
			        "cuwheel: nvcc step %zu wrote another module id than step "
			        "%zu's: it runs again with that one\n",
			        i, st->id_writer);
		o->run[i] = st->original;
		for (size_t j = i; j < o->s.n; j++) {
			if (o->s.steps[j].chain != st->chain)
				continue;
			int status = run_step(o, j, o->run[j], NULL);
			if (status) {
				*failed = j;
				return status;
			}
		}
	}
	return 0;
}

/* The depfile nvcc's -MD would write: the object, then every header any preprocessing step
 * read, each once. */
static bool write_depfile(struct cli *c, struct overlap *o, const char *depfile, const char *object)
{
	struct arena *a = &c->arena;
	struct strv deps = {0};
	for (size_t i = 0; i < o->s.n; i++) {
		struct diag quiet = {0};
		struct source src;
		if (!o->dep[i])
			continue;
		if (!os_read_file(a, &quiet, o->dep[i], &src)) {
			diag_errno(&c->diag, o->dep[i], "cannot read the preprocessor's depfile");
			return false;
		}
		ninja_depfile_prereqs(a, src.text, src.len, &deps);
	}
	struct strbuf sb = {0};
	ninja_depfile_path(&sb, object);
	sb_puts(&sb, " :");
	for (size_t i = 0; i < deps.n; i++) {
		sb_puts(&sb, i ? " \\\n    " : " ");
		ninja_depfile_path(&sb, deps.v[i]);
	}
	sb_putc(&sb, '\n');
	bool ok = os_write_atomic(&c->diag, depfile, sb.buf, sb.len, 0644);
	sb_release(&sb);
	return ok;
}

/* Each step's argv as run: its tool found on the PATH nvcc gives its tools, and a
 * preprocessing step's depfile. False when a tool is not found (nvcc then runs whole). */
static bool prepare(struct arena *a, struct overlap *o, const char **why)
{
	size_t n = o->s.n, nc = o->s.nchains ? o->s.nchains : 1;
	o->env = o->s.env.v;
	o->run = arena_calloc(a, n, sizeof(*o->run));
	o->dep = arena_calloc(a, n, sizeof(*o->dep));
	o->out = arena_calloc(a, nc, sizeof(*o->out));
	o->status = arena_calloc(a, nc, sizeof(*o->status));
	o->failed = arena_calloc(a, nc, sizeof(*o->failed));
	o->began = arena_calloc(a, n, sizeof(*o->began));
	o->ended = arena_calloc(a, n, sizeof(*o->ended));
	for (size_t i = 0; i < n; i++) {
		struct nvcc_step *st = &o->s.steps[i];
		char *tool = os_which(a, o->env, st->argv[0]);
		if (!tool) {
			*why = arena_printf(a, "its step '%s' is not on nvcc's PATH", st->argv[0]);
			return false;
		}
		o->run[i] = nvcc_steps_with_depfile(a, st->argv, &o->dep[i]);
		if (o->run[i] == st->argv) { /* a copy, to give it the resolved tool */
			size_t m = 0;
			while (st->argv[m])
				m++;
			o->run[i] = arena_calloc(a, m + 1, sizeof(char *));
			memcpy(o->run[i], st->argv, m * sizeof(char *));
		}
		o->run[i][0] = tool;
		if (st->original)
			st->original[0] = tool;
		if (o->dep[i])
			strv_push(a, &o->s.temps, o->dep[i]);
	}
	return true;
}

/* Runs the steps: the chains side by side (the worker pool), the module ids compared, then
 * the joining steps in order. The exit status of the first step that failed (named on
 * stderr after its own output), or 0. */
static int run_steps(struct arena *a, struct overlap *o)
{
	size_t nc = o->s.nchains, failed = 0;
	int status = 0;
	if (nc)
		pool_run_each(nc, nc, chain_job, chain_done, o);
	/* The failed chain whose step comes first in nvcc's order: the host's and a device's
	 * front end read the same source, and both would print its error. */
	size_t first = nc;
	for (size_t k = 0; k < nc; k++)
		if (o->status[k] && (first == nc || o->failed[k] < o->failed[first]))
			first = k;
	if (first < nc) {
		status = o->status[first];
		failed = o->failed[first];
		fwrite(o->out[first].buf ? o->out[first].buf : "", 1, o->out[first].len, stderr);
	}
	if (!status)
		status = agree_module_ids(a, o, &failed);
	for (size_t i = 0; !status && i < o->s.n; i++)
		if (o->s.steps[i].chain == NVCC_JOIN) {
			status = run_step(o, i, o->run[i], NULL);
			failed = i;
		}
	if (status)
		fprintf(stderr, "cuwheel: nvcc's step %s failed (exit status %d)\n",
		        esc_str(a, ESC_TERM, o->run[failed][0]), status);
	return status;
}

/* CUWHEEL_NVCC_OVERLAP=explain: each step's chain and when it ran, on stderr. */
static void explain(struct arena *a, const struct overlap *o)
{
	for (size_t i = 0; i < o->s.n; i++) {
		const struct nvcc_step *st = &o->s.steps[i];
		const char *base = strrchr(o->run[i][0], '/');
		char chain[48];
		if (st->chain == NVCC_JOIN)
			snprintf(chain, sizeof(chain), "after the chains");
		else
			snprintf(chain, sizeof(chain), "chain %zu", st->chain);
		fprintf(stderr, "cuwheel: nvcc step %zu, %s: %s%s, %.1f-%.1f s\n", i,
		        esc_str(a, ESC_TERM, base ? base + 1 : o->run[i][0]), chain,
		        st->own_id ? ", its own module id" : "", o->began[i] / 1000.0,
		        o->ended[i] / 1000.0);
	}
}

/* nvcc itself, the command as given. */
static int run_whole(struct cli *c, const char *const *cmd, const char *why)
{
	const char *mode = getenv("CUWHEEL_NVCC_OVERLAP");
	if (why && mode && !strcmp(mode, "explain"))
		fprintf(stderr, "cuwheel: nvcc runs whole: %s\n",
		        esc_str(&c->arena, ESC_TERM, why));
	struct os_run r = {.argv = cmd};
	int status = 1;
	if (!os_run(&c->diag, &r, NULL, &status))
		return CLI_FAIL;
	return status;
}

/* The steps of the compile cmd, read from `nvcc --dryrun`: false, with *why, when they are
 * not read here. */
static bool dry_run(struct cli *c, const struct strv *dry, struct nvcc_steps *s, const char *object,
                    const char **why)
{
	struct arena *a = &c->arena;
	struct strv argv = *dry;
	strv_push(a, &argv, "--dryrun");
	struct os_run r = {.argv = argv.v, .capture = true};
	struct strbuf out = {0};
	struct diag quiet = {0};
	int status = 1;
	bool ran = os_run(&quiet, &r, &out, &status);
	const char *text = sb_to_arena(&out, a);
	if (!ran || status != 0) {
		*why = "its dry run failed";
		return false;
	}
	return nvcc_steps_parse(a, text, s, why) && nvcc_steps_schedule(a, s, object, why);
}

/* The compile cmd, through nvcc's steps or whole. */
static int overlap_run(struct cli *c, const char *const *cmd)
{
	struct arena *a = &c->arena;
	const char *mode = getenv("CUWHEEL_NVCC_OVERLAP");
	if (mode && !strcmp(mode, "off"))
		return run_whole(c, cmd, NULL);
	struct strv dry = {0};
	const char *depfile, *object, *why = NULL;
	struct overlap o = {0};
	if (!nvcc_steps_args(a, cmd, &dry, &depfile, &object, &why) ||
	    !dry_run(c, &dry, &o.s, object, &why) || !prepare(a, &o, &why))
		return run_whole(c, cmd, why);
	for (size_t i = 0; i < o.s.notes.n; i++)
		fprintf(stderr, "%s\n", esc_str(a, ESC_LOG, o.s.notes.v[i]));
	o.explain = mode && !strcmp(mode, "explain");
	o.start = now_ms();
	int status = run_steps(a, &o);
	if (o.explain)
		explain(a, &o);
	if (!status && depfile && !write_depfile(c, &o, depfile, object))
		status = CLI_FAIL;
	for (size_t i = 0; i < o.s.temps.n; i++)
		os_unlink(o.s.temps.v[i]);
	for (size_t k = 0; k < o.s.nchains; k++)
		sb_release(&o.out[k]);
	return status;
}

int internal_nvcc_overlap(struct cli *c, int argc, char **argv)
{
	int first = argc > 1 && !strcmp(argv[1], "--") ? 2 : 1;
	if (first >= argc)
		return cli_usage(c, "internal", "nvcc-overlap needs a command: -- NVCC ARGS...");
	const char *const *cmd = (const char *const *)argv + first;
	/* Under `cuwheel build`, a compile its early ninja runs, or the build's edge of one. */
	struct early_run er;
	switch (early_step_begin(c, cmd, &er)) {
	case EARLY_ADOPTED:
		return CLI_OK;
	case EARLY_RUN: {
		int status = overlap_run(c, cmd);
		early_step_end(c, &er, status);
		return status;
	}
	case EARLY_NONE:
		break;
	}
	return overlap_run(c, cmd);
}
