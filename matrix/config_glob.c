/* config_glob.c: project-relative globs (with ** for any depth), SPDX syntax, path safety. */
#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <string.h>

#include "base/os-file.h"
#include "matrix/config_internal.h"
#include "standards/spdx.h"

bool config_is_special_file(const char *path)
{
	struct os_stat st;
	return os_stat(path, &st) && st.kind != OS_KIND_FILE;
}

bool config_path_inside(const char *rel)
{
	if (!rel[0] || rel[0] == '/' || rel[0] == '\\')
		return false;
	int depth = 0;
	const char *p = rel;
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 2 && !strncmp(p, "..", 2)) {
			if (--depth < 0)
				return false;
		} else if (n && !(n == 1 && *p == '.')) {
			depth++;
		}
		p += n + (e ? 1 : 0);
	}
	return true;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* A walk of one glob: where it is confined, what it found, the first problem met. */
struct walk {
	struct arena *a;
	const char *root; /* the project dir, resolved */
	struct strv *out;
	struct os_stat stack[64]; /* the directories from the project down to the one read now */
	size_t depth;
	struct os_stat own[2]; /* cuwheel's build dir and dist dir, where they exist */
	size_t n_own;
	const char *err; /* the first loop or escape found, as a message */
};

static bool same_file(const struct os_stat *x, const struct os_stat *y)
{
	return x->dev == y->dev && x->ino == y->ino;
}

/* The build dir and dist dir as they will be (globs run before [tool.cuwheel]'s dirs and the
 * CUWHEEL_* variables are applied, so they are found the same way here). */
static void own_dirs(struct arena *a, const struct config *cfg, struct walk *w)
{
	const char *dirs[2] = {"build/cuwheel", "dist"};
	static const char *const keys[2] = {"build-dir", "dist-dir"};
	static const char *const vars[2] = {"CUWHEEL_BUILD_DIR=", "CUWHEEL_DIST_DIR="};
	const char *base = cfg->base_dir ? cfg->base_dir : cfg->project_dir;
	const struct toml_value *tool = toml_get(toml_get(cfg->root, "tool"), "cuwheel");
	for (size_t i = 0; i < 2; i++) {
		const struct toml_value *v = toml_get(tool, keys[i]);
		const char *dir = v && v->type == TOML_STRING ? v->u.str.s : dirs[i];
		dir = dir[0] == '/' ? dir : os_join(a, base, dir);
		for (size_t k = 0; cfg->env && cfg->env[k]; k++)
			if (!strncmp(cfg->env[k], vars[i], strlen(vars[i])) &&
			    cfg->env[k][strlen(vars[i])])
				dir = os_abspath(a, cfg->env[k] + strlen(vars[i]));
		if (os_stat(dir, &w->own[w->n_own]) && w->own[w->n_own].kind == OS_KIND_DIR)
			w->n_own++;
	}
}

/* True when dir is cuwheel's build or dist dir: a project glob never reaches cuwheel's own
 * files (the scan stubs under build/cuwheel/src, earlier wheels). */
static bool is_own_dir(const struct walk *w, const char *dir)
{
	struct os_stat st;
	if (!w->n_own || !os_stat(dir, &st))
		return false;
	for (size_t i = 0; i < w->n_own; i++)
		if (same_file(&w->own[i], &st))
			return true;
	return false;
}

const char *config_project_shown(struct arena *a, const struct config *cfg)
{
	if (!cfg->sdist_shown)
		return cfg->project_dir;
	const char *top = strrchr(cfg->project_dir, '/');
	return arena_printf(a, "%s!%s/", cfg->sdist_shown, top ? top + 1 : cfg->project_dir);
}

/* Shows a name with its control bytes escaped, so a message stays on one line. */
const char *config_shown(struct arena *a, const char *s)
{
	struct strbuf sb = {0};
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n')
			sb_puts(&sb, "\\n");
		else if (*p == '\r')
			sb_puts(&sb, "\\r");
		else if (*p < 0x20 || *p == 0x7f)
			sb_printf(&sb, "\\x%02x", *p);
		else
			sb_putc(&sb, (char)*p);
	}
	return sb.buf ? sb_to_arena(&sb, a) : "";
}

const char *config_confine(struct arena *a, const char *root, const char *project_dir,
                           const char *rel)
{
	const char *real = os_realpath(a, rel[0] == '/' ? rel : os_join(a, project_dir, rel));
	if (!real)
		return NULL;
	size_t n = strlen(root);
	if (!strncmp(real, root, n) && (real[n] == '/' || !real[n] || !strcmp(root, "/")))
		return NULL;
	return arena_printf(a, "'%s' leads outside the project (to %s)", config_shown(a, rel),
	                    real);
}

/* Matches the segments seg[i..] below dir (rel is dir relative to the project). */
static void glob_walk(struct walk *w, const char *dir, const char *rel, char **seg, size_t nseg,
                      size_t i)
{
	struct arena *a = w->a;
	if (w->err)
		return;
	if (i == nseg) {
		struct os_stat st;
		if (os_stat(dir, &st) && st.kind == OS_KIND_FILE && !strv_contains(w->out, rel)) {
			w->err = config_confine(a, w->root, w->root, rel);
			if (!w->err)
				strv_push(a, w->out, rel);
		}
		return;
	}
	/* Every directory entered is checked against those above it: a symlink back up (ln -s
	 * .. kern/loop) is a loop, reported rather than walked 64 levels deep. */
	struct os_stat here;
	if (!os_stat(dir, &here) || (rel[0] && is_own_dir(w, dir)))
		return;
	for (size_t k = 0; k < w->depth; k++) {
		if (same_file(&w->stack[k], &here)) {
			w->err = arena_printf(a,
			                      "'%s' is a symbolic link loop (it leads back to a "
			                      "directory above it)",
			                      config_shown(a, rel));
			return;
		}
	}
	if (w->depth == sizeof(w->stack) / sizeof(*w->stack)) {
		w->err = arena_printf(a, "'%s' is nested more than 64 directories deep",
		                      config_shown(a, rel));
		return;
	}
	w->stack[w->depth++] = here;
	if (!strcmp(seg[i], "**")) {
		w->depth--; /* ** matching nothing stays in this directory */
		glob_walk(w, dir, rel, seg, nseg, i + 1);
		w->depth++;
		struct strv names = {0};
		if (os_list_dir(a, dir, &names)) {
			for (size_t k = 0; k < names.n && !w->err; k++) {
				if (names.v[k][0] == '.')
					continue;
				char *sub = os_join(a, dir, names.v[k]);
				if (!os_is_dir(sub))
					continue;
				char *srel = rel[0] ? os_join(a, rel, names.v[k])
				                    : arena_strdup(a, names.v[k]);
				glob_walk(w, sub, srel, seg, nseg, i);
			}
		}
	} else if (!strpbrk(seg[i], "*?[")) {
		char *sub = os_join(a, dir, seg[i]);
		char *srel = rel[0] ? os_join(a, rel, seg[i]) : arena_strdup(a, seg[i]);
		if (os_exists(sub))
			glob_walk(w, sub, srel, seg, nseg, i + 1);
	} else {
		struct strv names = {0};
		if (os_list_dir(a, dir, &names)) {
			for (size_t k = 0; k < names.n && !w->err; k++) {
				if (fnmatch(seg[i], names.v[k], FNM_PERIOD) != 0)
					continue;
				char *sub = os_join(a, dir, names.v[k]);
				char *srel = rel[0] ? os_join(a, rel, names.v[k])
				                    : arena_strdup(a, names.v[k]);
				glob_walk(w, sub, srel, seg, nseg, i + 1);
			}
		}
	}
	w->depth--;
}

/* Why a pattern naming one path (no wildcard) matched nothing although something is there. */
static const char *why_not_file(struct arena *a, const char *path, const char *rel)
{
	struct os_stat st;
	if (!os_lstat(path, &st))
		return NULL;
	if (st.kind == OS_KIND_LINK && !os_stat(path, &st))
		return arena_printf(a, "'%s' is a symbolic link to a file that does not exist",
		                    config_shown(a, rel));
	if (st.kind == OS_KIND_DIR) {
		char *dir = arena_strdup(a, config_shown(a, rel));
		size_t n = strlen(dir);
		while (n > 1 && dir[n - 1] == '/')
			dir[--n] = '\0';
		return arena_printf(a,
		                    "'%s' is a directory, not a file (a glob such as '%s/*' "
		                    "names its files)",
		                    config_shown(a, rel), dir);
	}
	if (st.kind == OS_KIND_FIFO)
		return arena_printf(a, "'%s' is a FIFO, not a regular file", config_shown(a, rel));
	if (st.kind != OS_KIND_FILE)
		return arena_printf(a, "'%s' is not a regular file", config_shown(a, rel));
	return NULL;
}

bool config_glob(struct cfg_reader *r, struct config *cfg, const struct toml_value *at,
                 const char *pattern, struct strv *out)
{
	if (!config_path_inside(pattern) || strstr(pattern, "..")) {
		cfg_error(r, at, "'%s' reaches outside the project directory",
		          config_shown(r->a, pattern));
		diag_msg(r->d, DIAG_HINT, "sources and files must live under %s",
		         config_project_shown(r->a, cfg));
		return false;
	}
	char *copy = arena_strdup(r->a, pattern);
	char *seg[128];
	size_t nseg = 0;
	for (char *s = strtok(copy, "/"); s && nseg < 128; s = strtok(NULL, "/"))
		if (strcmp(s, "."))
			seg[nseg++] = s;
	size_t first = out->n;
	const char *root = os_realpath(r->a, cfg->project_dir);
	struct walk w = {.a = r->a, .root = root ? root : cfg->project_dir, .out = out};
	own_dirs(r->a, cfg, &w);
	glob_walk(&w, cfg->project_dir, "", seg, nseg, 0);
	if (w.err) {
		cfg_error(r, at, "%s", w.err);
		if (strstr(w.err, "leads outside"))
			diag_msg(r->d, DIAG_HINT, "sources and files must live under %s",
			         config_project_shown(r->a, cfg));
		out->n = first;
		return false;
	}
	if (out->n == first) {
		const char *why =
		    strpbrk(pattern, "*?[")
		        ? NULL
		        : why_not_file(r->a, os_join(r->a, cfg->project_dir, pattern), pattern);
		if (why)
			cfg_error(r, at, "%s", why);
		else
			cfg_error(r, at, "'%s' matches no file in %s", config_shown(r->a, pattern),
			          config_project_shown(r->a, cfg));
		return false;
	}
	qsort(out->v + first, out->n - first, sizeof(char *), cmp_str);
	return true;
}

static bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80             ? 0
		        : (*p & 0xE0) == 0xC0 ? 1
		        : (*p & 0xF0) == 0xE0 ? 2
		        : (*p & 0xF8) == 0xF0 ? 3
		                              : -1;
		if (n < 0 || (n == 1 && *p < 0xC2))
			return false;
		p++;
		for (int i = 0; i < n; i++, p++)
			if ((*p & 0xC0) != 0x80)
				return false;
	}
	return true;
}

/* Walks a package directory as staging will (skipping __pycache__ and dot entries); the first
 * problem found, or NULL. */
static const char *package_walk(struct walk *w, const char *dir, const char *rel)
{
	struct os_stat here;
	if (!os_stat(dir, &here))
		return NULL;
	for (size_t k = 0; k < w->depth; k++)
		if (same_file(&w->stack[k], &here))
			return arena_printf(w->a,
			                    "'%s' is a symbolic link loop (it leads back to a "
			                    "directory above it)",
			                    config_shown(w->a, rel));
	if (w->depth == sizeof(w->stack) / sizeof(*w->stack))
		return arena_printf(w->a, "'%s' is nested more than 64 directories deep",
		                    config_shown(w->a, rel));
	w->stack[w->depth++] = here;
	struct strv names = {0};
	const char *why = NULL;
	if (os_list_dir(w->a, dir, &names)) {
		for (size_t k = 0; k < names.n && !why; k++) {
			const char *n = names.v[k];
			if (!strcmp(n, "__pycache__") || n[0] == '.')
				continue;
			char *sub = os_join(w->a, dir, n);
			char *srel = os_join(w->a, rel, n);
			const char *bad = ninja_arg_refusal(n, ARG_PATH);
			if (!bad && !utf8_valid(n))
				bad = "bytes that are not UTF-8 (a wheel's member names are UTF-8)";
			if (bad)
				why = arena_printf(w->a,
				                   "'%s' in the package has a name that holds %s",
				                   config_shown(w->a, srel), bad);
			else if ((why = config_confine(w->a, w->root, w->root, srel)))
				;
			else if (os_is_dir(sub))
				why = package_walk(w, sub, srel);
		}
	}
	w->depth--;
	return why;
}

const char *config_package_problem(struct arena *a, const char *project_dir, const char *rel)
{
	const char *root = os_realpath(a, project_dir);
	struct walk w = {.a = a, .root = root ? root : project_dir};
	return package_walk(&w, os_join(a, project_dir, rel), rel);
}

bool config_spdx_valid(const char *s)
{
	return spdx_valid(s);
}
