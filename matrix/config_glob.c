/* config_glob.c: project-relative globs (with ** for any depth), SPDX syntax, path safety. */
#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <string.h>
#include <sys/stat.h>

#include "base/os.h"
#include "matrix/config_internal.h"

bool config_is_special_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
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

/* Matches the segments seg[i..] below dir (rel is dir relative to the project). */
static void glob_walk(struct arena *a, const char *dir, const char *rel, char **seg, size_t nseg,
                      size_t i, struct strv *out, int depth)
{
	if (depth > 64)
		return;
	if (i == nseg) {
		struct stat st;
		if (stat(dir, &st) == 0 && S_ISREG(st.st_mode) && !strv_contains(out, rel))
			strv_push(a, out, rel);
		return;
	}
	if (!strcmp(seg[i], "**")) {
		glob_walk(a, dir, rel, seg, nseg, i + 1, out, depth + 1);
		struct strv names = {0};
		if (!os_list_dir(a, dir, &names))
			return;
		for (size_t k = 0; k < names.n; k++) {
			if (names.v[k][0] == '.')
				continue;
			char *sub = os_join(a, dir, names.v[k]);
			if (!os_is_dir(sub))
				continue;
			char *srel =
			    rel[0] ? os_join(a, rel, names.v[k]) : arena_strdup(a, names.v[k]);
			glob_walk(a, sub, srel, seg, nseg, i, out, depth + 1);
		}
		return;
	}
	if (!strpbrk(seg[i], "*?[")) {
		char *sub = os_join(a, dir, seg[i]);
		char *srel = rel[0] ? os_join(a, rel, seg[i]) : arena_strdup(a, seg[i]);
		if (os_exists(sub))
			glob_walk(a, sub, srel, seg, nseg, i + 1, out, depth + 1);
		return;
	}
	struct strv names = {0};
	if (!os_list_dir(a, dir, &names))
		return;
	for (size_t k = 0; k < names.n; k++) {
		if (fnmatch(seg[i], names.v[k], FNM_PERIOD) != 0)
			continue;
		char *sub = os_join(a, dir, names.v[k]);
		char *srel = rel[0] ? os_join(a, rel, names.v[k]) : arena_strdup(a, names.v[k]);
		glob_walk(a, sub, srel, seg, nseg, i + 1, out, depth + 1);
	}
}

bool config_glob(struct cfg_reader *r, struct config *cfg, const struct toml_value *at,
                 const char *pattern, struct strv *out)
{
	if (!config_path_inside(pattern) || strstr(pattern, "..")) {
		cfg_error(r, at, "'%s' reaches outside the project directory", pattern);
		diag_msg(r->d, DIAG_HINT, "sources and files must live under %s", cfg->project_dir);
		return false;
	}
	char *copy = arena_strdup(r->a, pattern);
	char *seg[128];
	size_t nseg = 0;
	for (char *s = strtok(copy, "/"); s && nseg < 128; s = strtok(NULL, "/"))
		if (strcmp(s, "."))
			seg[nseg++] = s;
	size_t first = out->n;
	glob_walk(r->a, cfg->project_dir, "", seg, nseg, 0, out, 0);
	if (out->n == first) {
		cfg_error(r, at, "'%s' matches no file in %s", pattern, cfg->project_dir);
		return false;
	}
	qsort(out->v + first, out->n - first, sizeof(char *), cmp_str);
	return true;
}

/* SPDX expression: ids ([A-Za-z0-9.-]+ with optional '+'), LicenseRef-*, AND/OR/WITH, (). */
static const char *spdx_skip(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

static const char *spdx_expr(const char *p, int depth);

static const char *spdx_term(const char *p, int depth)
{
	p = spdx_skip(p);
	if (*p == '(') {
		if (depth > 32)
			return NULL;
		p = spdx_expr(p + 1, depth + 1);
		if (!p)
			return NULL;
		p = spdx_skip(p);
		return *p == ')' ? p + 1 : NULL;
	}
	const char *s = p;
	while (isalnum((unsigned char)*p) || *p == '.' || *p == '-')
		p++;
	if (p == s)
		return NULL;
	size_t n = (size_t)(p - s);
	if ((n == 3 && (!strncmp(s, "AND", 3))) || (n == 2 && !strncmp(s, "OR", 2)) ||
	    (n == 4 && !strncmp(s, "WITH", 4)))
		return NULL;
	if (*p == '+')
		p++;
	p = spdx_skip(p);
	if (!strncmp(p, "WITH ", 5)) {
		p = spdx_skip(p + 5);
		const char *e = p;
		while (isalnum((unsigned char)*p) || *p == '.' || *p == '-')
			p++;
		if (p == e)
			return NULL;
	}
	return p;
}

static const char *spdx_expr(const char *p, int depth)
{
	p = spdx_term(p, depth);
	while (p) {
		p = spdx_skip(p);
		if (!strncmp(p, "AND ", 4))
			p = spdx_term(p + 4, depth);
		else if (!strncmp(p, "OR ", 3))
			p = spdx_term(p + 3, depth);
		else
			break;
	}
	return p;
}

bool config_spdx_valid(const char *s)
{
	const char *p = spdx_expr(s, 0);
	return p && *spdx_skip(p) == '\0';
}
