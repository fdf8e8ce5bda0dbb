/* early.c: the kernels' compiles started before the scans end (cli/early.h): the early ninja
 * under `cuwheel build`, and the hand-over in `cuwheel internal nvcc-overlap`.
 *
 * In DIR, per object (named by a digest of its path): .lock, held by the early compile while
 * it runs; .key, the digest of its working dir and argv and when it started; .out, what it
 * printed; .d, its depfile; .done, its exit status, written last. The build's edge waits for
 * the lock, takes the result when .done says 0, .key is its own and no file .d names changed
 * after the start, and notes what it did in DIR/adopted.log. */
#include "cli/early.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "base/os-lock.h"
#include "base/os-run.h"
#include "standards/digest.h"
#include "standards/ninja.h"

/* The value of the last `opt VALUE` in cmd, or NULL. */
static const char *arg_after(const char *const *cmd, const char *opt)
{
	const char *v = NULL;
	for (size_t i = 0; cmd[i]; i++)
		if (!strcmp(cmd[i], opt) && cmd[i + 1])
			v = cmd[++i];
	return v;
}

/* The digest of the compile: its working dir and argv, each NUL-ended. */
static const char *compile_key(struct arena *a, const char *const *cmd)
{
	struct strbuf sb = {0};
	char cwd[4096];
	sb_puts(&sb, getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	sb_putc(&sb, '\0');
	for (size_t i = 0; cmd[i]; i++) {
		sb_puts(&sb, cmd[i]);
		sb_putc(&sb, '\0');
	}
	char hex[65];
	mem_sha256_hex(sb.buf, sb.len, hex);
	sb_release(&sb);
	return arena_strdup(a, hex);
}

static const char *base_of(struct arena *a, const char *dir, const char *object)
{
	char hex[65];
	mem_sha256_hex(object, strlen(object), hex);
	hex[24] = '\0';
	return os_join(a, dir, hex);
}

static const char *with(struct arena *a, const char *base, const char *ext)
{
	return arena_printf(a, "%s%s", base, ext);
}

/* The early ninja's compile: the lock taken, the key and the start written, stdout and stderr
 * into .out. EARLY_NONE when any of it cannot be done. */
static enum early_step begin_run(struct cli *c, const char *const *cmd, struct early_run *r)
{
	struct arena *a = &c->arena;
	struct diag quiet = {0};
	const char *lock = with(a, r->base, ".lock");
	int fd = os_lock_open(&quiet, lock, false);
	if (fd < 0)
		return EARLY_NONE;
	if (!os_lock_wait(&quiet, fd, lock)) {
		close(fd);
		return EARLY_NONE;
	}
	os_unlink(with(a, r->base, ".done"));
	/* The clock file times are taken from (Linux's coarse one: a file written after this
	 * has an mtime at or after it). */
	struct timespec now;
#ifdef CLOCK_REALTIME_COARSE
	clock_gettime(CLOCK_REALTIME_COARSE, &now);
#else
	clock_gettime(CLOCK_REALTIME, &now);
#endif
	const char *key = arena_printf(a, "%s\n%lld %ld\n", compile_key(a, cmd),
	                               (long long)now.tv_sec, (long)now.tv_nsec);
	fflush(stdout);
	fflush(stderr);
	if (!os_write_atomic(&quiet, with(a, r->base, ".key"), key, strlen(key), 0644) ||
	    !os_output_to(with(a, r->base, ".out"))) {
		close(fd);
		return EARLY_NONE;
	}
	r->lock = fd;
	return EARLY_RUN;
}

void early_step_end(struct cli *c, struct early_run *r, int status)
{
	struct arena *a = &c->arena;
	struct diag quiet = {0};
	fflush(stdout);
	fflush(stderr);
	if (status == 0 && r->depfile)
		(void)os_copy_file(&quiet, r->depfile, with(a, r->base, ".d"));
	const char *text = arena_printf(a, "%d\n", status);
	(void)os_write_atomic(&quiet, with(a, r->base, ".done"), text, strlen(text), 0644);
	close(r->lock);
}

/* Whether every file depfile text names is there and unchanged since start: an mtime in the
 * start's clock tick counts as a change, as it may be after the start. */
static bool deps_unchanged(struct arena *a, const char *text, int64_t start_ns)
{
	struct strv deps = {0};
	ninja_depfile_prereqs(a, text, strlen(text), &deps);
	for (size_t i = 0; i < deps.n; i++) {
		struct os_stat st;
		if (!os_stat(deps.v[i], &st) || st.mtime_ns >= start_ns)
			return false;
	}
	return deps.n > 0;
}

static const char *read_text(struct arena *a, const char *path)
{
	struct source src;
	struct diag quiet = {0};
	return os_read_file(a, &quiet, path, &src) ? src.text : NULL;
}

/* Why the build's edge cannot take the early result (its lock held now), or NULL. */
static const char *refusal(struct arena *a, const char *const *cmd, const struct early_run *r,
                           const char *object)
{
	const char *done = read_text(a, with(a, r->base, ".done"));
	const char *key = read_text(a, with(a, r->base, ".key"));
	const char *deps = read_text(a, with(a, r->base, ".d"));
	if (!done || !key)
		return "its early compile did not finish";
	if (atoi(done) != 0)
		return "its early compile failed";
	const char *mine = compile_key(a, cmd);
	long long sec = 0;
	long nsec = 0;
	if (strncmp(key, mine, strlen(mine)) != 0 || key[strlen(mine)] != '\n' ||
	    sscanf(key + strlen(mine) + 1, "%lld %ld", &sec, &nsec) != 2)
		return "its early compile ran another command";
	if (!os_exists(object) || (r->depfile && !deps))
		return "its early compile's output is gone";
	if (deps && !deps_unchanged(a, deps, (int64_t)sec * 1000000000 + nsec))
		return "a file it reads changed after its early compile started";
	return NULL;
}

/* The build's edge: waits for the early compile of its object, if any, and takes it. */
static enum early_step adopt(struct cli *c, const char *const *cmd, struct early_run *r,
                             const char *dir, const char *object)
{
	struct arena *a = &c->arena;
	struct diag quiet = {0};
	const char *lock = with(a, r->base, ".lock");
	int fd = os_exists(lock) ? os_lock_open(&quiet, lock, false) : -1;
	if (fd < 0)
		return EARLY_NONE;
	if (!os_lock_wait(&quiet, fd, lock)) {
		close(fd);
		return EARLY_NONE;
	}
	const char *why = refusal(a, cmd, r, object);
	if (!why && r->depfile && !os_copy_file(&quiet, with(a, r->base, ".d"), r->depfile))
		why = "its depfile cannot be written";
	if (!why) {
		const char *out = read_text(a, with(a, r->base, ".out"));
		if (out && *out)
			fputs(out, stdout);
		fflush(stdout);
		/* Written now, as by a compile that ran now: newer than every input of the edge. */
		(void)os_touch(object);
	}
	(void)os_append(os_join(a, dir, "adopted.log"),
	                why ? arena_printf(a, "compiled\t%s\t%s\n", object, why)
	                    : arena_printf(a, "used\t%s\n", object));
	static const char *const exts[] = {".done", ".key", ".out", ".d", ".lock"};
	for (size_t i = 0; i < sizeof(exts) / sizeof(*exts); i++)
		os_unlink(with(a, r->base, exts[i]));
	close(fd);
	return why ? EARLY_NONE : EARLY_ADOPTED;
}

enum early_step early_step_begin(struct cli *c, const char *const *cmd, struct early_run *r)
{
	memset(r, 0, sizeof(*r));
	r->lock = -1;
	const char *v = getenv(EARLY_ENV);
	bool run = v && !strncmp(v, "run:", 4), take = v && !strncmp(v, "adopt:", 6);
	const char *object = arg_after(cmd, "-o");
	if ((!run && !take) || !object)
		return EARLY_NONE;
	const char *dir = v + (run ? 4 : 6);
	r->base = base_of(&c->arena, dir, object);
	r->depfile = arg_after(cmd, "-MF");
	return run ? begin_run(c, cmd, r) : adopt(c, cmd, r, dir, object);
}

bool early_off(const char *const *env)
{
	const char *off = env_value(env, "CUWHEEL_EARLY_KERNELS");
	return off && !strcmp(off, "off");
}

void early_start(struct cli *c, struct early *e, const struct plan *plan,
                 const struct build_opts *bo, const char *ninja, const char *const *env, int jobs,
                 const struct timespec *t0)
{
	memset(e, 0, sizeof(*e));
	struct arena *a = &c->arena;
	const struct config *cfg = plan->cfg;
	struct diag quiet = {0};
	/* What an interrupted build left there is of no use now. */
	(void)os_rm_rf(&quiet, os_join(a, cfg->build_dir, "early"));
	bool torch = false;
	for (size_t i = 0; i < cfg->n_extensions; i++)
		torch |= cfg->extensions[i].kind == EXT_TORCH;
	/* Under ccache a miss runs through the graph's prefix script, nvcc-overlap: the early
	 * compile fills the cache (a later hit is the build's) or is taken over as without it. A
	 * prefix of the user's (distcc) would compile twice: no early compile then. */
	if (early_off(cfg->env) || !torch || bo->imported_archives || !cfg->kernels.files.n ||
	    (bo->ccache && getenv("CCACHE_PREFIX")))
		return;
	struct build_graph g;
	if (!buildgraph_early(a, &quiet, plan, bo, &g) || (bo->ccache && !g.exec_files.n))
		return;
	struct strv targets = {0};
	for (size_t i = 0; i < g.n_steps; i++)
		if (g.steps[i].toolkit >= 0 && g.steps[i].cell < 0 && g.steps[i].rule &&
		    !strcmp(g.steps[i].rule, "nvcc") &&
		    !os_exists(os_join(a, g.build_dir, g.steps[i].output)))
			strv_push(a, &targets, g.steps[i].output);
	if (!targets.n)
		return;
	const char *dir = os_join(a, g.build_dir, "early");
	const char *text = arena_printf(a, "builddir = early\n%s", g.text);
	if (!os_mkdir_p(&quiet, dir) ||
	    !os_write_atomic(&quiet, os_join(a, dir, "build.ninja"), text, strlen(text), 0644))
		return;
	struct strv argv = {0}, envs = {0};
	const char *head[] = {ninja,
	                      "-C",
	                      g.build_dir,
	                      "-f",
	                      "early/build.ninja",
	                      "-j",
	                      arena_printf(a, "%d", jobs > 0 ? jobs : 1)};
	for (size_t i = 0; i < sizeof(head) / sizeof(*head); i++)
		strv_push(a, &argv, head[i]);
	for (size_t i = 0; i < targets.n; i++)
		strv_push(a, &argv, targets.v[i]);
	for (size_t i = 0; env && env[i]; i++)
		strv_push(a, &envs, env[i]);
	strv_push(a, &envs, arena_printf(a, "%s=run:%s", EARLY_ENV, dir));
	struct os_run r = {.argv = (const char *const *)argv.v, .env = (const char *const *)envs.v};
	if (!os_bg_start(&quiet, a, &r, os_join(a, dir, "ninja.out"), &e->pid)) {
		e->pid = 0;
		return;
	}
	e->dir = dir;
	e->targets = targets;
	e->ccache = bo->ccache != NULL;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	printf(
	    "cuwheel: kernels: %zu compile%s started while the sources are scanned (%.1f s after "
	    "the start)\n",
	    targets.n, targets.n == 1 ? "" : "s",
	    (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9);
	fflush(stdout);
}

const char **early_settle(struct cli *c, struct early *e, const struct build_graph *g,
                          const char **env)
{
	struct arena *a = &c->arena;
	if (!e->pid)
		return env;
	bool all = true;
	for (size_t i = 0; i < e->targets.n && all; i++) {
		bool found = false;
		for (size_t s = 0; s < g->n_steps && !found; s++)
			found = g->steps[s].rule && !strcmp(g->steps[s].rule, "nvcc") &&
			        !strcmp(g->steps[s].output, e->targets.v[i]);
		all = found;
	}
	if (all) {
		e->adopt = true;
		struct strv out = {0};
		for (size_t i = 0; env && env[i]; i++)
			strv_push(a, &out, env[i]);
		strv_push(a, &out, arena_printf(a, "%s=adopt:%s", EARLY_ENV, e->dir));
		return (const char **)out.v;
	}
	int status;
	os_bg_end(e->pid, true, &status);
	e->pid = 0;
	const char *bdir = g->build_dir;
	for (size_t i = 0; i < e->targets.n; i++) {
		const char *obj = os_join(a, bdir, e->targets.v[i]);
		os_unlink(obj);
		os_unlink(arena_printf(a, "%s.d", obj));
	}
	printf("cuwheel: kernels: the scans decided other flags than the early compiles had: "
	       "stopped, compiled by the build\n");
	fflush(stdout);
	return env;
}

/* The early compiles that passed and that no edge took over: under ccache, those the build's
 * edges found in the cache. */
static size_t passed_untaken(struct arena *a, const char *dir)
{
	struct strv names = {0};
	size_t n = 0;
	if (!os_list_dir(a, dir, &names))
		return 0;
	for (size_t i = 0; i < names.n; i++) {
		size_t l = strlen(names.v[i]);
		if (l > 5 && !strcmp(names.v[i] + l - 5, ".done")) {
			const char *t = read_text(a, os_join(a, dir, names.v[i]));
			n += t && atoi(t) == 0;
		}
	}
	return n;
}

void early_finish(struct cli *c, struct early *e, bool built)
{
	struct arena *a = &c->arena;
	struct diag quiet = {0};
	if (!e->dir)
		return;
	int status;
	if (e->pid)
		os_bg_end(e->pid, true, &status);
	e->pid = 0;
	const char *log = e->adopt ? read_text(a, os_join(a, e->dir, "adopted.log")) : NULL;
	size_t used = 0;
	for (const char *p = log; p && *p;) {
		const char *nl = strchr(p, '\n');
		if (!strncmp(p, "used\t", 5)) {
			used++;
		} else if (!strncmp(p, "compiled\t", 9)) {
			const char *line =
			    arena_strndup(a, p + 9, nl ? (size_t)(nl - p - 9) : strlen(p + 9));
			char *tab = strchr(line, '\t');
			if (tab) {
				*tab = '\0';
				printf("cuwheel: kernels: %s compiled by the build: %s\n",
				       esc_str(a, ESC_TERM, line), esc_str(a, ESC_TERM, tab + 1));
			}
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
	size_t cached = e->adopt && e->ccache && built ? passed_untaken(a, e->dir) : 0;
	if (e->adopt && built)
		printf("cuwheel: kernels: %zu of %zu compile%s started early used by the build%s\n",
		       used + cached, e->targets.n, e->targets.n == 1 ? "" : "s",
		       cached ? arena_printf(a, " (%zu found in ccache)", cached) : "");
	fflush(stdout);
	(void)os_rm_rf(&quiet, e->dir);
	e->dir = NULL;
}
