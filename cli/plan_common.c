/* plan_common.c: loading a plan, and printing it as a table or JSON. */
#include "cli/plan_common.h"

#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "base/os-run.h"
#include "base/os-sys.h"
#include "base/sandbox.h"
#include "base/strbuf.h"
#include "cli/init.h"
#include "ci/torch_builds.h"
#include "matrix/discover_project.h"
#include "toolchain/provision.h"
#include "toolchain/provision_cross.h"
#include "toolchain/provision_python.h"
#include "standards/version.h"
#include "standards/toml.h"

bool cli_provision_lock_quiet(struct cli *c, struct provision_lock *lock)
{
	const char *path = provision_lock_path(&c->arena, c->env);
	struct diag warn = cli_diag_as_warnings(c);
	return path && provision_lock_load(&c->arena, &warn, path, lock);
}

/* The CUDA minors the lock file can provision (quietly nothing when there is no lock). */
static void provisionable_minors(struct cli *c, struct matrix_opts *o)
{
	struct provision_lock lock;
	if (!cli_provision_lock_quiet(c, &lock))
		return;
	for (size_t i = 0; i < lock.n_sets; i++)
		if (!strv_contains(&o->provisionable, lock.sets[i].minor)) {
			strv_push(&c->arena, &o->provisionable, lock.sets[i].minor);
			strv_push(&c->arena, &o->provision_sources,
			          provision_source_name(&c->arena, &lock.sets[i]));
		}
}

/* The Python minors the Python lock can provision (quietly nothing when there is no lock). */
static void provisionable_pythons(struct cli *c, struct matrix_opts *o)
{
	const char *path = python_lock_path(&c->arena, c->env);
	struct diag warn = cli_diag_as_warnings(c);
	struct python_lock lock;
	if (!path || !python_lock_load(&c->arena, &warn, path, &lock))
		return;
	for (size_t i = 0; i < lock.n_sets; i++)
		if (!strv_contains(&o->python_provisionable, lock.sets[i].minor))
			strv_push(&c->arena, &o->python_provisionable, lock.sets[i].minor);
	o->python_source = arena_printf(&c->arena, "Debian %s", lock.sets[0].suite);
	o->python_no_freethreaded = lock.freethreaded;
}

/* The cross lock, for the platforms this machine can cross-build for (quietly none when there
 * is no lock). */
static void cross_platforms(struct cli *c, struct matrix_opts *o)
{
	const char *path = cross_lock_path(&c->arena, c->env);
	struct diag warn = cli_diag_as_warnings(c);
	struct cross_lock *lock = arena_alloc(&c->arena, sizeof(*lock));
	if (path && cross_lock_load(&c->arena, &warn, path, lock))
		o->cross = lock;
}

/* Adds the directory of every source in files (not the project dir itself) to in. */
static void add_source_dirs(struct arena *a, const struct strv *files, struct strv *in,
                            struct strv *why)
{
	for (size_t i = 0; i < files->n; i++) {
		const char *slash = strrchr(files->v[i], '/');
		if (!slash)
			continue; /* a source in the project dir: the build dir's usual parent */
		char *dir = arena_strndup(a, files->v[i], (size_t)(slash - files->v[i]));
		if (!strv_contains(in, dir)) {
			strv_push(a, in, dir);
			strv_push(a, why, "the source dir");
		}
	}
}

/* Adds dirs (include dirs) to in. */
static void add_dirs(struct arena *a, const struct strv *dirs, const char *what, struct strv *in,
                     struct strv *why)
{
	for (size_t i = 0; i < dirs->n; i++) {
		strv_push(a, in, dirs->v[i]);
		strv_push(a, why, what);
	}
}

/* The output rule's part that needs the config: the dist dir and the build dir must not lie
 * inside a shipped package, an include dir or a directory of sources (other than the project
 * dir itself), or every wheel would ship the wheels and objects written before it. The error
 * is located at the key (or names the environment variable that set it). */
static bool outputs_outside_inputs(struct cli *c, const struct config *cfg)
{
	struct arena *a = &c->arena;
	struct strv in = {0}, why = {0};
	add_dirs(a, &cfg->packages, "the shipped package", &in, &why);
	add_dirs(a, &cfg->kernels.include_dirs, "the include dir", &in, &why);
	add_source_dirs(a, &cfg->kernels.files, &in, &why);
	for (size_t e = 0; e < cfg->n_extensions; e++) {
		add_dirs(a, &cfg->extensions[e].include_dirs, "the include dir", &in, &why);
		add_source_dirs(a, &cfg->extensions[e].files, &in, &why);
	}
	const struct {
		const char *path, *key, *var;
	} outs[] = {{cfg->dist_dir, "dist-dir", "CUWHEEL_DIST_DIR"},
	            {cfg->build_dir, "build-dir", "CUWHEEL_BUILD_DIR"}};
	const struct toml_value *tool = cfg->root ? toml_get(cfg->root, "tool") : NULL;
	tool = tool ? toml_get(tool, "cuwheel") : NULL;
	const char *proj = os_realpath(a, cfg->project_dir);
	bool ok = true;
	for (size_t o = 0; o < 2; o++) {
		for (size_t i = 0; i < in.n; i++) {
			const char *dir =
			    in.v[i][0] == '/' ? in.v[i] : os_join(a, cfg->project_dir, in.v[i]);
			const char *rdir = os_realpath(a, dir);
			if (!rdir || (proj && !strcmp(rdir, proj)))
				continue; /* "." as an include dir: the project dir itself */
			if (!os_path_inside(a, outs[o].path, rdir))
				continue;
			const char *msg = arena_printf(
			    a, "%s '%s' lies inside %s '%s': %s; put it outside", outs[o].key,
			    outs[o].path, why.v[i], in.v[i],
			    !strcmp(why.v[i], "the shipped package")
			        ? "every wheel would ship what was written there before it"
			        : "the build would read its own outputs as sources and headers");
			const struct toml_value *v = tool ? toml_get(tool, outs[o].key) : NULL;
			if (env_value(c->env, outs[o].var))
				diag_msg(&c->diag, DIAG_ERROR, "%s (set by %s)", msg, outs[o].var);
			else if (v)
				diag_at(&c->diag, DIAG_ERROR, &cfg->src, v->line, v->col, "%s",
				        msg);
			else
				diag_path(&c->diag, DIAG_ERROR, cfg->pyproject, "%s (the default)",
				          msg);
			ok = false;
			break;
		}
	}
	return ok;
}

/* Loads, discovers and expands; returns CLI_OK or the exit code to return. */
static int plan_load(struct cli *c, const struct matrix_opts *o, struct plan_ctx *pc,
                     bool torch_files)
{
	memset(pc, 0, sizeof(*pc));
	pc->opts = o ? *o : (struct matrix_opts){0};
	if (!cli_config_load(c, &pc->cfg))
		return CLI_FAIL;
	if (!outputs_outside_inputs(c, &pc->cfg))
		return CLI_FAIL;
	provisionable_minors(c, &pc->opts);
	provisionable_pythons(c, &pc->opts);
	cross_platforms(c, &pc->opts);
	const char *probes = discover_cache_dir(&c->arena, &pc->cfg);
	struct discover_opts dopt = {.torch_files = torch_files};
	if (!discover_with(&c->arena, &c->diag, &pc->cfg, probes, &dopt, &pc->ds))
		return CLI_FAIL;
	if (!matrix_expand(&c->arena, &c->diag, &pc->cfg, &pc->ds, &pc->opts, &pc->plan))
		return pc->plan.only_unmatched && !pc->plan.wheel_clash ? CLI_USAGE : CLI_FAIL;
	/* The cells PyTorch does not publish (ci/torch_builds.def): the ones `ci github` leaves
	 * out, for the same reason. */
	torch_builds_mark(&c->arena, &pc->plan);
	return CLI_OK;
}

int cli_setup(struct cli *c, const struct matrix_opts *o, struct plan_ctx **out)
{
	if (c->setup) {
		*out = c->setup;
		return CLI_OK;
	}
	struct plan_ctx *pc = arena_calloc(&c->arena, 1, sizeof(*pc));
	int rc = CLI_FAIL;
	if (c->needs == CLI_NEEDS_PLAN)
		rc = plan_load(c, o, pc, false);
	else if (c->needs == CLI_NEEDS_CONFIG)
		rc = cli_config_load(c, &pc->cfg) ? CLI_OK : CLI_FAIL;
	else /* a command whose row needs nothing: the table and the command disagree */
		diag_msg(&c->diag, DIAG_ERROR, "internal: this command loads no project");
	if (rc != CLI_OK)
		return rc;
	c->setup = *out = pc;
	return CLI_OK;
}

struct plan_ctx *cli_setup_torch_files(struct cli *c, const struct matrix_opts *o, bool *read)
{
	*read = false;
	if (c->setup || c->needs != CLI_NEEDS_PLAN || c->sdist || cli_needs_capture(c))
		return NULL;
	struct diag own = c->diag;
	struct diag_kept kept;
	diag_keep(&c->diag, &kept, &c->arena);
	struct plan_ctx *pc = arena_calloc(&c->arena, 1, sizeof(*pc));
	int rc = plan_load(c, o, pc, true);
	c->diag = own;
	if (rc != CLI_OK)
		return NULL; /* cli_setup says why */
	for (size_t i = 0; i < pc->ds.n_pythons; i++) {
		const struct torch_info *ti = &pc->ds.pythons[i].torch;
		if (ti->from_files && ti->unread)
			return NULL;
		*read = *read || ti->from_files;
	}
	if (!*read) {
		diag_pass(&kept, &c->diag);
		c->setup = pc;
	}
	return pc;
}

/* Installs the CUDA toolkits of the selected cells that the toolkit lock pins and this
 * machine lacks; adds to *any when it did. */
static int provision_toolkits(struct cli *c, struct plan_ctx *pc, bool *any)
{
	struct plan *p = &pc->plan;
	struct strv need = {0};
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct cell *cl = &p->cells[i];
		const struct toolkit_plan *tp = &p->toolkits[cl->toolkit];
		/* A cross cell's kernels are compiled by the host's toolkit of its CUDA. */
		bool host_missing = tp->platform && !discover_toolkit(&pc->ds, cl->cuda) &&
		                    strv_contains(&pc->opts.provisionable, cl->cuda);
		if (cl->selected && (tp->provisionable || host_missing) &&
		    (!strcmp(cl->platform, p->host_platform) || tp->platform) &&
		    !strv_contains(&need, tp->cuda))
			strv_push(&c->arena, &need, tp->cuda);
	}
	if (need.n == 0)
		return CLI_OK;
	struct provision_lock lock;
	const char *path = provision_lock_path(&c->arena, c->env);
	if (!path || !provision_lock_load(&c->arena, &c->diag, path, &lock))
		return CLI_FAIL;
	struct provision_opts po = {.cache_dir = cuwheel_cache_dir(&c->arena, c->env),
	                            .env = c->env};
	const char *wheels = env_nonempty(c->env, "CUWHEEL_TOOLKIT_WHEELS");
	if (wheels)
		po.wheels_dir = wheels;
	for (size_t i = 0; i < need.n; i++) {
		const struct provision_set *set =
		    provision_resolve(&c->arena, &c->diag, &lock, need.v[i]);
		if (!set)
			return CLI_FAIL;
		/* A progress line: the download and assembly take minutes. */
		fprintf(stderr, "cuwheel: provisioning CUDA %s (nvcc %s) from %s into %s\n",
		        need.v[i], set->version, provision_source_name(&c->arena, set),
		        po.cache_dir);
		const char *root;
		if (provision_install(&c->arena, &c->diag, &po, set, &root) == PROVISION_FAILED)
			return CLI_FAIL;
	}
	*any = true;
	return CLI_OK;
}

/* Installs the Pythons of the selected cells that the Python lock pins and discovery did not
 * find (not for torch cells: their interpreter is a venv with that torch; not free-threaded:
 * the lock has none); adds to *any when it did. */
static int provision_pythons(struct cli *c, struct plan_ctx *pc, bool *any)
{
	struct plan *p = &pc->plan;
	struct strv need = {0};
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct cell *cl = &p->cells[i];
		if (cl->selected && !cl->abi3 && !cl->torch &&
		    !strcmp(cl->platform, p->host_platform) &&
		    strv_contains(&pc->opts.python_provisionable, cl->python) &&
		    !discover_python_torch(&pc->ds, cl->python, NULL) &&
		    !strv_contains(&need, cl->python))
			strv_push(&c->arena, &need, cl->python);
	}
	if (need.n == 0)
		return CLI_OK;
	struct python_lock lock;
	const char *path = python_lock_path(&c->arena, c->env);
	if (!path || !python_lock_load(&c->arena, &c->diag, path, &lock))
		return CLI_FAIL;
	struct provision_opts po = {.cache_dir = cuwheel_cache_dir(&c->arena, c->env),
	                            .env = c->env};
	for (size_t i = 0; i < need.n; i++) {
		const struct provision_set *set =
		    python_resolve(&c->arena, &c->diag, &lock, need.v[i]);
		if (!set)
			return CLI_FAIL;
		fprintf(stderr, "cuwheel: provisioning Python %s (%s) from Debian %s into %s\n",
		        need.v[i], set->version, set->suite, po.cache_dir);
		const char *root;
		if (python_install(&c->arena, &c->diag, &po, set, &root) == PROVISION_FAILED)
			return CLI_FAIL;
	}
	*any = true;
	return CLI_OK;
}

/* Adds the cross part name ("gcc", "cuda-13.0", "python-3.13") to need when t pins it and it
 * is not installed. */
static void need_cross(struct cli *c, const struct plan_ctx *pc, const struct cross_target *t,
                       enum cross_kind kind, const char *minor, struct strv *need)
{
	const struct cross_part *p = cross_part_for(t, kind, minor);
	if (!p)
		return;
	for (size_t i = 0; i < pc->ds.n_cross; i++)
		if (!strcmp(pc->ds.cross[i].platform, t->platform) &&
		    !strcmp(pc->ds.cross[i].id, p->id))
			return;
	const char *name = kind == CROSS_COMPILER ? "gcc"
	                   : kind == CROSS_CUDA   ? arena_printf(&c->arena, "cuda-%s", minor)
	                                          : arena_printf(&c->arena, "python-%s", minor);
	if (!strv_contains(need, name))
		strv_push(&c->arena, need, name);
}

/* Adds torch part p (an id: one wheel per Python) to need when it is not installed. */
static void need_torch(struct cli *c, const struct plan_ctx *pc, const struct cross_target *t,
                       const struct cross_part *p, struct strv *need)
{
	for (size_t i = 0; i < pc->ds.n_cross; i++)
		if (!strcmp(pc->ds.cross[i].platform, t->platform) &&
		    !strcmp(pc->ds.cross[i].id, p->id))
			return;
	if (!strv_contains(need, p->id))
		strv_push(&c->arena, need, p->id);
}

/* The Python part a cross cell takes: its own minor, or for abi3 the oldest pinned at or above
 * its baseline. */
static const char *cross_python_minor(const struct cross_target *t, const struct cell *cl)
{
	const char *best = NULL;
	for (size_t i = 0; i < t->n_parts; i++) {
		const char *m = t->parts[i].set.minor;
		if (t->parts[i].kind != CROSS_PYTHON)
			continue;
		if (cl->abi3 ? version_dotted_cmp(m, cl->python) >= 0 &&
		                   (!best || version_dotted_cmp(m, best) < 0)
		             : !strcmp(m, cl->python))
			best = m;
	}
	return best;
}

/* Installs the cross parts (compiler, CUDA runtime, Python headers) that the selected cells of
 * cross platforms need and the cross lock pins; adds to *any when it did. */
static int provision_cross(struct cli *c, struct plan_ctx *pc, bool *any)
{
	struct plan *p = &pc->plan;
	struct strv need = {0};
	const struct cross_target *t = NULL;
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct cell *cl = &p->cells[i];
		const struct toolkit_plan *tp = &p->toolkits[cl->toolkit];
		const struct cross_target *ct = cross_target_find(pc->opts.cross, cl->platform);
		if (!cl->selected || !tp->platform || !ct || !discover_toolkit(&pc->ds, cl->cuda))
			continue;
		t = ct;
		need_cross(c, pc, t, CROSS_COMPILER, NULL, &need);
		need_cross(c, pc, t, CROSS_CUDA, cl->cuda, &need);
		/* A torch cell: the target's torch wheel for its Python, and that Python. */
		const struct cross_part *tw =
		    cl->torch ? cross_torch_part(t, cl->torch, cl->python, cl->abi3) : NULL;
		if (tw) {
			need_torch(c, pc, t, tw, &need);
			need_cross(c, pc, t, CROSS_PYTHON, tw->python, &need);
			continue;
		}
		if (cl->torch)
			continue;
		const char *pm = cross_python_minor(t, cl);
		if (pm)
			need_cross(c, pc, t, CROSS_PYTHON, pm, &need);
	}
	if (need.n == 0)
		return CLI_OK;
	struct provision_opts po = {.cache_dir = cuwheel_cache_dir(&c->arena, c->env),
	                            .env = c->env};
	for (size_t i = 0; i < need.n; i++) {
		const struct cross_part *part = cross_resolve(&c->arena, &c->diag, t, need.v[i]);
		if (!part)
			return CLI_FAIL;
		fprintf(stderr, "cuwheel: provisioning the %s %s (%s) into %s\n", t->platform,
		        need.v[i], part->set.version, po.cache_dir);
		const char *root;
		if (cross_install(&c->arena, &c->diag, &po, part, &root) == PROVISION_FAILED)
			return CLI_FAIL;
	}
	*any = true;
	return CLI_OK;
}

int plan_provision(struct cli *c, struct plan_ctx *pc)
{
	bool any = false;
	int rc;
	if ((rc = provision_toolkits(c, pc, &any)) != CLI_OK ||
	    (rc = provision_pythons(c, pc, &any)) != CLI_OK)
		return rc;
	/* The cross cells use the host's toolkit: it is rediscovered first when it was just
	 * provisioned. */
	if (any) {
		const char *probes = discover_cache_dir(&c->arena, &pc->cfg);
		if (!discover(&c->arena, &c->diag, &pc->cfg, probes, &pc->ds) ||
		    !matrix_expand(&c->arena, &c->diag, &pc->cfg, &pc->ds, &pc->opts, &pc->plan))
			return CLI_FAIL;
	}
	if ((rc = provision_cross(c, pc, &any)) != CLI_OK)
		return rc;
	if (!any)
		return CLI_OK;
	/* Discover again so the new toolkits and Pythons are found like any other, with their
	 * real versions. */
	const char *probes = discover_cache_dir(&c->arena, &pc->cfg);
	if (!discover(&c->arena, &c->diag, &pc->cfg, probes, &pc->ds))
		return CLI_FAIL;
	if (!matrix_expand(&c->arena, &c->diag, &pc->cfg, &pc->ds, &pc->opts, &pc->plan))
		return CLI_FAIL;
	torch_builds_mark(&c->arena, &pc->plan);
	return CLI_OK;
}

static char *arch_list(struct arena *a, const struct arch *v, size_t n)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++) {
		sb_printf(&sb, "%s%s", i ? " " : "", cuda_arch_name(a, &v[i], false));
		if (v[i].ptx)
			sb_printf(&sb, "+PTX");
	}
	return sb_to_arena(&sb, a);
}

/* True when the table shows the torch decisions: a selected, buildable cell has torch, and a
 * torch-kind extension or kernels that may include torch headers decide something. */
static bool plan_shows_torch(const struct plan_ctx *pc)
{
	bool torch_ext = false, torch_cell = false;
	for (size_t e = 0; e < pc->cfg.n_extensions; e++)
		torch_ext |= pc->cfg.extensions[e].kind == EXT_TORCH;
	for (size_t i = 0; i < pc->plan.n_cells; i++)
		torch_cell |= pc->plan.cells[i].selected && pc->plan.cells[i].buildable &&
		              pc->plan.cells[i].py->torch.present;
	return torch_cell && (torch_ext || (pc->cfg.kernels.uses_torch == TRI_AUTO &&
	                                    pc->cfg.kernels.files.n != 0));
}

int plan_ccache(struct cli *c, const struct config *cfg, struct diag *d, const char **ccache)
{
	*ccache = NULL;
	if (cfg->cache.ccache == TRI_OFF)
		return CLI_OK;
	*ccache = os_which(&c->arena, c->env, "ccache");
	if (!*ccache && cfg->cache.ccache == TRI_ON) {
		diag_msg(d, DIAG_ERROR, "ccache = \"on\" but ccache is not on PATH");
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* True when path (project-relative, or absolute) has a ".." component: it may lie outside the
 * project, where the fixed path of the project does not reach. */
static bool has_dotdot(const char *path)
{
	for (const char *p = path; p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL)
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
			return true;
	return false;
}

/* True when one of files is a .cu source. */
static bool any_cu(const struct strv *files)
{
	for (size_t i = 0; i < files->n; i++) {
		const char *dot = strrchr(files->v[i], '.');
		if (dot && !strcmp(dot, ".cu"))
			return true;
	}
	return false;
}

/* Why a compile with device line info of paths (project-relative, or absolute) cannot see them
 * below the project's fixed path: one leads out of the project ('..'), or (own: a torch
 * extension's, whose flags do not map them) names the project by its own absolute path. NULL
 * when none does. */
static const char *li_outside(struct cli *c, const char *project, const struct strv *paths,
                              bool own)
{
	size_t n = strlen(project);
	for (size_t i = 0; i < paths->n; i++) {
		const char *p = paths->v[i];
		if (has_dotdot(p))
			return arena_printf(&c->arena, "'%s' may lie outside the project", p);
		if (own && !strncmp(p, project, n) && (p[n] == '/' || !p[n]))
			return arena_printf(&c->arena, "'%s' names the project by its own path", p);
	}
	return NULL;
}

/* What has device line info, for plan's line ("kernels", "the .cu sources of extension
 * 'pkg._C'", both), into *what, and why those compiles cannot be at fixed paths into *why
 * (NULL when they can). False when nothing has line info. */
static bool line_info_users(struct cli *c, const struct config *cfg, const char **what,
                            const char **why)
{
	const struct kernels_cfg *k = &cfg->kernels;
	struct strbuf sb = {0};
	*why = NULL;
	if (any_cu(&k->files) && torchplan_line_info(k)) {
		sb_puts(&sb, "kernels");
		*why = li_outside(c, cfg->project_dir, &k->files, false);
		if (!*why)
			*why = li_outside(c, cfg->project_dir, &k->include_dirs, false);
	}
	struct strv mods = {0};
	for (size_t e = 0; e < cfg->n_extensions; e++) {
		const struct extension_cfg *x = &cfg->extensions[e];
		if (x->kind != EXT_TORCH || !any_cu(&x->files) || !torchplan_ext_line_info(cfg, x))
			continue;
		strv_push(&c->arena, &mods, x->module);
		if (!*why)
			*why = li_outside(c, cfg->project_dir, &x->files, true);
		if (!*why)
			*why = li_outside(c, cfg->project_dir, &x->include_dirs, true);
	}
	for (size_t i = 0; i < mods.n; i++) {
		if (i == 0)
			sb_printf(&sb, "%sthe .cu sources of extension%s ", sb.len ? " and " : "",
			          mods.n > 1 ? "s" : "");
		sb_printf(&sb, "%s'%s'", i ? ", " : "", mods.v[i]);
	}
	*what = sb.len ? sb_to_arena(&sb, &c->arena) : NULL;
	sb_release(&sb);
	return *what != NULL;
}

void plan_line_info(struct cli *c, struct plan_ctx *pc)
{
	const char *what, *why;
	if (pc->li_note || !line_info_users(c, &pc->cfg, &what, &why))
		return;
	struct sandbox s = {0};
	if (!why && !sandbox_probe(&c->arena, c->env, &s))
		why = s.error;
	if (!why) {
		pc->li_bwrap = s.bwrap;
		pc->li_note = arena_printf(&c->arena,
		                           "%s compiled with the project at " SANDBOX_CANON_PROJECT
		                           " and the build dir at " SANDBOX_CANON_BUILD
		                           " (%s, %s): the wheels' bytes do not depend on where "
		                           "either is",
		                           what, s.version, s.bwrap);
	} else {
		pc->li_note = arena_printf(&c->arena,
		                           "%s name the project by its own path (%s), so the "
		                           "wheels' bytes depend on where it is (not on the build "
		                           "dir): no fixed paths: %s",
		                           what, pc->cfg.project_dir, why);
	}
}

int plan_resolve(struct cli *c, struct plan_ctx *pc, struct graph_plan *gp, char **text)
{
	/* `cuwheel plan` fails on none of the build's missing tools: it says what it found. */
	struct diag warn = cli_diag_as_warnings(c);
	const char *ccache;
	plan_ccache(c, &pc->cfg, &warn, &ccache);
	/* build's defaults; the Python-free proofs are run, as the build runs them before it
	 * keeps a decision (no proof object is named: --dry-run's document). */
	struct build_opts bo = {.jobs = os_cpu_count(),
	                        .ccache = ccache,
	                        .cuwheel = os_self_exe(&c->arena),
	                        .bwrap = (plan_line_info(c, pc), pc->li_bwrap),
	                        .run_tests = true,
	                        .no_proof_objects = true,
	                        .no_write = true};
	if (!buildgraph_resolve(&c->arena, &c->diag, &pc->plan, &bo, gp) ||
	    !(*text = buildgraph_plan_text(&c->arena, &c->diag, gp)))
		return CLI_FAIL;
	pc->tp = plan_shows_torch(pc) ? &gp->tp : NULL;
	pc->decided = &gp->tp;
	return CLI_OK;
}

/* One line saying why a torch binding source is compiled where it is. */
static const char *torch_src_line(struct arena *a, const struct binding_decision *bd)
{
	const char *via = bd->python_via ? bd->python_via : "Python.h";
	const char *base = strrchr(via, '/');
	if (!bd->python && bd->pyfree == PYFREE_PROVEN)
		return arena_printf(
		    a,
		    "shared: once per (toolkit, torch, flags); Python-free by proof: "
		    "it includes %s%s, but expands to the same text and compiles "
		    "without Python's headers",
		    base ? base + 1 : via, bd->torch_ext ? " (via torch/extension.h)" : "");
	if (!bd->python)
		return "shared: once per (toolkit, torch, flags); no Python.h or pybind11 in "
		       "its include closure";
	const char *pf = "";
	if (bd->pyfree == PYFREE_OFF)
		pf = "; python-free = \"off\"";
	else if (bd->pyfree != PYFREE_NONE)
		pf = arena_printf(a, "; python-free %s: %s", pyfree_state_name(bd->pyfree),
		                  bd->pyfree_why);
	return arena_printf(a, "per Python: its closure includes %s%s%s; pch %s%s%s",
	                    base ? base + 1 : via, bd->torch_ext ? " (via torch/extension.h)" : "",
	                    pf, pch_state_name(bd->pch), bd->pch_why ? ": " : "",
	                    bd->pch_why ? bd->pch_why : "");
}

static void print_torch(const struct plan_ctx *pc, struct arena *a, FILE *f)
{
	const struct torch_plan *tp = pc->tp;
	fprintf(f, "\nTorch (decided by the preprocessor with the real flags)\n");
	fprintf(f, "  kernels: %s (%s)\n",
	        tp->kernels_use_torch ? "built against torch" : "torch-free", tp->kernels_why);
	if (tp->kernels_pyfree)
		fprintf(f, "  kernels: a .cu that includes Python's headers is proven Python-free: "
		           "compiled once, with the stand-ins first\n");
	for (size_t i = 0; i < tp->n_exts; i++) {
		const struct torch_plan_ext *te = &tp->exts[i];
		const struct extension_cfg *x = &pc->cfg.extensions[te->ext];
		if (!te->torch)
			continue; /* print_plain's */
		fprintf(f, "  %s, torch %s (flags of %s):\n", x->module, te->torch, te->rep->id);
		size_t w = 0;
		for (size_t k = 0; k < x->files.n; k++)
			w = strlen(x->files.v[k]) > w ? strlen(x->files.v[k]) : w;
		for (size_t k = 0; k < x->files.n; k++)
			fprintf(f, "    %-*s  %s\n", (int)w, x->files.v[k],
			        torch_src_line(a, &te->srcs[k]));
	}
}

/* The sources of the extensions of other kinds than torch that the preprocessor decided: a .cu
 * or a kernel .c/.cpp compiled once per (toolkit, flags), or per Python. */
static void print_plain(const struct plan_ctx *pc, struct arena *a, FILE *f)
{
	const struct torch_plan *tp = pc->decided;
	bool head = false;
	for (size_t i = 0; tp && i < tp->n_exts; i++) {
		const struct torch_plan_ext *te = &tp->exts[i];
		const struct extension_cfg *x = &pc->cfg.extensions[te->ext];
		if (te->torch)
			continue;
		if (!head)
			fprintf(f, "\nSources (decided by the preprocessor with the real flags)\n");
		head = true;
		fprintf(f, "  %s, CUDA %s (flags of %s):\n", esc_str(a, ESC_TERM, x->module),
		        pc->plan.toolkits[te->toolkit].cuda, te->rep->id);
		size_t w = 0;
		for (size_t k = 0; k < x->files.n; k++)
			w = strlen(x->files.v[k]) > w ? strlen(x->files.v[k]) : w;
		for (size_t k = 0; k < x->files.n; k++) {
			const struct binding_decision *bd = &te->srcs[k];
			const char *via = bd->python_via ? strrchr(bd->python_via, '/') : NULL;
			fprintf(f, "    %-*s  %s%s\n", (int)w, esc_str(a, ESC_TERM, x->files.v[k]),
			        bd->python ? "per Python: its closure includes "
			                   : "shared: once per (toolkit, flags); no Python.h or "
			                     "pybind11 in its include closure",
			        !bd->python      ? ""
			        : via            ? esc_str(a, ESC_TERM, via + 1)
			        : bd->python_via ? esc_str(a, ESC_TERM, bd->python_via)
			                         : "Python.h");
		}
	}
}

void plan_print_table(const struct plan_ctx *pc, FILE *f)
{
	struct arena a = {0};
	const struct plan *p = &pc->plan;
	/* Names and versions may come from an sdist's PKG-INFO, roots and versions from a probe:
	 * each is escaped for the terminal (base/escape). */
#define E(s) esc_str(&a, ESC_TERM, (s))
	fprintf(f, "%s %s: %zu cells, %zu selected, %zu buildable on this machine (%s)\n\n",
	        E(pc->cfg.project.name), E(pc->cfg.project.version), p->n_cells, p->n_selected,
	        p->n_buildable, p->host_platform);
	if (pc->cfg.config_file) {
		/* Built with a config beside the project: say where each metadata field is from. */
		fprintf(
		    f, "Project   %s%s%s%s\nConfig    %s\nMetadata  (field: where it comes from)\n",
		    E(pc->cfg.project_dir), pc->cfg.sdist ? " (unpacked from " : "",
		    pc->cfg.sdist ? E(pc->cfg.sdist) : "", pc->cfg.sdist ? ")" : "",
		    E(pc->cfg.config_file));
		for (size_t i = 0; i < pc->cfg.meta_origin.n; i++)
			fprintf(f, "  %-26s %s\n", E(pc->cfg.meta_origin.v[i].key),
			        E(pc->cfg.meta_origin.v[i].value));
		fprintf(f, "  %-26s %s, with each cell's local label (below)\n", "Version (wheel)",
		        E(pc->cfg.project.version));
		fputc('\n', f);
	}
	if (pc->cfg.packages_found) {
		fputs("Packages  (find: top-level directories with __init__.py)", f);
		for (size_t i = 0; i < pc->cfg.packages.n; i++)
			fprintf(f, " %s", E(pc->cfg.packages.v[i]));
		fputs("\n\n", f);
	}
	if (pc->cfg.python_files.n) {
		struct strv roots = {0};
		for (size_t i = 0; i < pc->cfg.python_files.n; i++) {
			const char *k = pc->cfg.python_files.v[i].key;
			const char *r = arena_strndup(&a, k, strcspn(k, "/"));
			if (!strv_contains(&roots, r))
				strv_push(&a, &roots, r);
		}
		fprintf(f, "Python files  %zu (python-files), under", pc->cfg.python_files.n);
		for (size_t i = 0; i < roots.n; i++)
			fprintf(f, " %s", E(roots.v[i]));
		fputs("\n\n", f);
	}
	fprintf(f, "Kernels (compiled once per toolkit; requested: %s)\n",
	        pc->cfg.kernels.archs_text);
	for (size_t i = 0; i < p->n_toolkits; i++) {
		const struct toolkit_plan *tp = &p->toolkits[i];
		if (!tp->tk && tp->provisionable) {
			fprintf(
			    f, "  CUDA %-6s not installed: `cuwheel build` provisions it from %s\n",
			    tp->cuda, tp->provision_source ? tp->provision_source : "PyPI");
			continue;
		}
		if (!tp->tk && tp->platform) {
			fprintf(f, "  CUDA %-6s for %s: not buildable here yet (see the cells)\n",
			        tp->cuda, tp->platform);
			continue;
		}
		if (!tp->tk) {
			fprintf(
			    f, "  CUDA %-6s not on this machine: archs decided where it is built\n",
			    tp->cuda);
			continue;
		}
		if (tp->platform)
			fprintf(f, "  CUDA %-6s for %s, cross-compiled with this machine's nvcc\n",
			        tp->cuda, tp->platform);
		fprintf(f, "  CUDA %-6s %s (nvcc %s): %s\n", tp->cuda, E(tp->tk->root),
		        E(tp->tk->version), arch_list(&a, tp->archs, tp->n_archs));
		const struct host_compiler *hc = &tp->tk->host;
		if (hc->error)
			fprintf(f, "               host compiler: none: %s\n",
			        esc_str(&a, ESC_LOG, hc->error));
		else
			fprintf(f, "               host compiler: %s (gcc %s%s)\n", E(hc->cxx),
			        hc->version ? hc->version : "?",
			        hc->max_gcc ? arena_printf(&a, "; CUDA %s accepts gcc <= %d",
			                                   tp->cuda, hc->max_gcc)
			                    : "");
		for (size_t k = 0; k < tp->n_dropped; k++)
			fprintf(f, "               dropped %s: %s\n",
			        cuda_arch_name(&a, &tp->dropped[k].arch, tp->dropped[k].arch.ptx),
			        tp->dropped[k].why);
	}
	if (pc->li_note)
		fprintf(f, "  line info: %s\n", esc_str(&a, ESC_LOG, pc->li_note));
	size_t wid = 2, wwheel = 5;
	for (size_t i = 0; i < p->n_cells; i++) {
		size_t n = strlen(p->cells[i].id), w = strlen(p->cells[i].wheel);
		wid = n > wid ? n : wid;
		wwheel = w > wwheel ? w : wwheel;
	}
	fprintf(f, "\n%-*s  %-*s  %s\n", (int)wid, "ID", (int)wwheel, "WHEEL", "STATUS");
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct cell *c = &p->cells[i];
		const char *status;
		if (!c->selected)
			status = arena_printf(&a, "not selected (%s)", c->unselected_by);
		else if (c->buildable)
			status = arena_printf(&a, "build (Python %s at %s)", c->py->version,
			                      c->py->path);
		else
			status = arena_printf(&a, "cannot build here: %s", c->why_not);
		fprintf(f, "%-*s  %-*s  %s\n", (int)wid, c->id, (int)wwheel, E(c->wheel),
		        esc_str(&a, ESC_LOG, status));
	}
	if (pc->tp)
		print_torch(pc, &a, f);
	print_plain(pc, &a, f);
	fprintf(f,
	        "\nThe platform tag linux_* is replaced by the manylinux tag the audit finds.\n");
#undef E
	arena_free(&a);
}
