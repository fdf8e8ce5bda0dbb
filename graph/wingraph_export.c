/* wingraph_export.c: the Windows graph's export directory: the project sources it copies,
 * listed before anything is written, then build.ninja, probe.py, the sources and the staged
 * packages, renamed into place as a whole (buildgraph_win.h). */
#include "graph/buildgraph_win.h"

#include <string.h>
#include <unistd.h>

#include "base/os-file.h"
#include "packager/stage.h"
#include "standards/ninja.h"

/* Directories a source walk never descends into: the export being written, the final export,
 * the build and dist dirs (an include dir of "." would otherwise copy them into themselves). */
struct copy_skip {
	const char *v[4];
};

static bool skipped(struct arena *a, const struct copy_skip *skip, const char *path)
{
	const char *real = os_realpath(a, path);
	for (size_t i = 0; real && i < 4; i++)
		if (skip->v[i] && !strcmp(real, skip->v[i]))
			return true;
	return false;
}

/* Adds every file under project-relative dir (recursively; dot files, __pycache__ and the
 * skipped directories left out) to out. */
static bool list_tree(struct arena *a, struct diag *d, const char *proj, const char *dir,
                      const struct copy_skip *skip, struct strv *out)
{
	struct strv names = {0};
	if (!os_list_dir(a, os_join(a, proj, dir), &names)) {
		diag_path(d, DIAG_ERROR, os_join(a, proj, dir), "cannot list the directory");
		return false;
	}
	for (size_t i = 0; i < names.n; i++) {
		if (names.v[i][0] == '.' || !strcmp(names.v[i], "__pycache__"))
			continue;
		char *rel = os_join(a, dir, names.v[i]);
		char *abs = os_join(a, proj, rel);
		if (!os_is_dir(abs))
			strv_push(a, out, rel);
		else if (!skipped(a, skip, abs) && !list_tree(a, d, proj, rel, skip, out))
			return false;
	}
	return true;
}

/* The resolve step of an export: the project-relative files DIR/src/ holds (the kernels and
 * their include dirs, each extension's files and include dirs), read from the project before
 * anything is written. final is the export dir (skipped by the walk). False + diagnostic. */
static bool wingraph_sources(struct arena *a, struct diag *d, const struct plan *plan,
                             const char *final, struct strv *out)
{
	const struct config *cfg = plan->cfg;
	const char *proj = cfg->project_dir;
	struct copy_skip skip = {{NULL}};
	const char *dirs[3] = {final, cfg->build_dir, cfg->dist_dir};
	for (size_t i = 0; i < 3; i++)
		skip.v[i] = os_realpath(a, dirs[i]);
	const struct strv *lists[] = {&cfg->kernels.files, &cfg->kernels.include_dirs};
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const char *rel = lists[l]->v[i];
			if (!os_is_dir(os_join(a, proj, rel)))
				strv_push(a, out, rel);
			else if (!list_tree(a, d, proj, rel, &skip, out))
				return false;
		}
	for (size_t e = 0; e < cfg->n_extensions; e++) {
		const struct extension_cfg *xe = &cfg->extensions[e];
		for (size_t i = 0; i < xe->files.n; i++)
			strv_push(a, out, xe->files.v[i]);
		for (size_t i = 0; i < xe->include_dirs.n; i++)
			if (!list_tree(a, d, proj, xe->include_dirs.v[i], &skip, out))
				return false;
	}
	return true;
}

/* Copies project-relative file rel into root/src/rel. */
static bool copy_src(struct arena *a, struct diag *d, const char *proj, const char *root,
                     const char *rel)
{
	char *dest = arena_printf(a, "%s/src/%s", root, rel);
	char *slash = strrchr(dest, '/');
	*slash = '\0';
	bool ok = os_mkdir_p(d, dest);
	*slash = '/';
	return ok && os_copy_file(d, os_join(a, proj, rel), dest);
}

/* The write step: root (a fresh temp dir) gets build.ninja, probe.py, the listed sources and
 * the staged packages of each cell. */
static bool write_dir(struct arena *a, struct diag *d, const struct plan *plan, const char *root,
                      const struct strv *sources, const struct win_export *x)
{
	const struct config *cfg = plan->cfg;
	if (!os_mkdir_p(d, root) ||
	    !os_write_atomic(d, os_join(a, root, "build.ninja"), x->ninja, strlen(x->ninja),
	                     0644) ||
	    !os_write_atomic(d, os_join(a, root, "probe.py"), x->probe, strlen(x->probe), 0755))
		return false;
	for (size_t i = 0; i < sources->n; i++)
		if (!copy_src(a, d, cfg->project_dir, root, sources->v[i]))
			return false;
	struct stage_file *pyf = arena_calloc(a, cfg->python_files.n + 1, sizeof(*pyf));
	for (size_t f = 0; f < cfg->python_files.n; f++)
		pyf[f] =
		    (struct stage_file){os_join(a, cfg->project_dir, cfg->python_files.v[f].value),
		                        cfg->python_files.v[f].key};
	for (size_t i = 0; i < x->cells.n; i++)
		if (!stage_tree(a, d, cfg->project_dir,
		                arena_printf(a, "%s/stage/%s", root, x->cells.v[i]), &cfg->packages,
		                cfg->ship_hidden, pyf, cfg->python_files.n))
			return false;
	return true;
}

/* True when dir holds a build.ninja this file wrote. */
static bool is_export(struct arena *a, const char *dir)
{
	struct source s;
	struct diag quiet = {0};
	return os_read_file(a, &quiet, os_join(a, dir, "build.ninja"), &s) &&
	       strncmp(s.text, WIN_HEADER, strlen(WIN_HEADER)) == 0;
}

bool wingraph_export(struct arena *a, struct diag *d, const struct plan *plan, const char *dir,
                     const struct win_export *x)
{
	if (!ninja_path_ok(dir)) {
		diag_path(d, DIAG_ERROR, dir, "a path with a newline cannot be exported to");
		return false;
	}
	struct strv sources = {0};
	if (!wingraph_sources(a, d, plan, dir, &sources))
		return false;
	if (os_exists(dir) && !is_export(a, dir)) {
		struct strv names = {0};
		if (!os_is_dir(dir) || !os_list_dir(a, dir, &names) || names.n) {
			diag_path(
			    d, DIAG_ERROR, dir,
			    "exists and is not a Windows graph cuwheel exported: not replaced");
			return false;
		}
	}
	char *tmp = arena_printf(a, "%s.tmp-%ld", dir, (long)getpid());
	char *old = arena_printf(a, "%s.old-%ld", dir, (long)getpid());
	bool ok = write_dir(a, d, plan, tmp, &sources, x);
	if (ok && os_exists(dir) && !os_rename(dir, old)) {
		diag_path(d, DIAG_ERROR, dir, "cannot move the previous export aside");
		ok = false;
	}
	if (ok && !os_rename(tmp, dir)) {
		diag_path(d, DIAG_ERROR, dir, "cannot rename the new export into place");
		os_rename(old, dir);
		ok = false;
	}
	if (!ok)
		os_rm_rf(d, tmp);
	if (os_exists(old))
		os_rm_rf(d, old);
	return ok;
}
