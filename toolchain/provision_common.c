/* provision_common.c: what the toolkit sources (provision_pypi.c, provision_debian.c) share
 * with the lock file's reader (provision.c): reading a lock entry's packages and version, the
 * Python that runs pip, and the check that a staged root holds a working nvcc. */
#include "toolchain/provision_internal.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/os-file.h"
#include "base/os-run.h"
#include "standards/version.h"

bool provision_is_token(const char *s, const char *allowed)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(allowed, *s))
			return false;
	return true;
}

static bool is_sha256(const char *s)
{
	if (!s || strlen(s) != 64)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !(*s >= 'a' && *s <= 'f'))
			return false;
	return true;
}

const char *provision_jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The strings end up in a pip requirements file, apt-get's arguments and URLs, so they are held
 * to the characters such names have. */
bool provision_pkg_from_json(struct arena *a, json_t *o, struct provision_pkg *p, bool deb)
{
	const char *name = provision_jstr(o, "name"), *ver = provision_jstr(o, "version");
	const char *file = provision_jstr(o, "filename"), *sha = provision_jstr(o, "sha256");
	/* A .deb's name=version goes to apt-get and its pool path into a URL: Debian's own
	 * characters only, and no way up the tree. */
	if (!provision_is_token(name, deb ? "-+." : "-_.") ||
	    !provision_is_token(ver, deb ? ".+~:-" : ".") ||
	    !provision_is_token(file, deb ? "-_.+~/" : "-_.") || strstr(file, "..") ||
	    !is_sha256(sha))
		return false;
	json_t *size = json_object_get(o, "size");
	p->name = arena_strdup(a, name);
	p->version = arena_strdup(a, ver);
	p->filename = arena_strdup(a, file);
	p->sha256 = arena_strdup(a, sha);
	p->size = json_is_integer(size) ? (int64_t)json_integer_value(size) : -1;
	return true;
}

bool provision_set_pkgs(struct arena *a, struct diag *d, const char *path, const char *section,
                        size_t i, json_t *pkgs, bool deb, struct provision_set *s)
{
	s->n_pkgs = json_array_size(pkgs);
	s->pkgs = arena_calloc(a, s->n_pkgs, sizeof(*s->pkgs));
	for (size_t j = 0; j < s->n_pkgs; j++)
		if (!provision_pkg_from_json(a, json_array_get(pkgs, j), &s->pkgs[j], deb)) {
			diag_path(d, DIAG_ERROR, path,
			          "%s[%zu].packages[%zu]: needs %s, version, %s and a sha256 of 64 "
			          "hex digits",
			          section, i, j, deb ? "a Debian package name" : "name",
			          deb ? "pool filename" : "filename");
			return false;
		}
	return true;
}

bool provision_set_version(struct arena *a, struct provision_set *s, const char *ver)
{
	long parts[3];
	if (!ver || version_dotted_parts(ver, parts, 3) != 3)
		return false;
	s->version = arena_strdup(a, ver);
	s->major = (int)parts[0];
	s->minor_n = (int)parts[1];
	s->minor = arena_printf(a, "%ld.%ld", parts[0], parts[1]);
	return true;
}

const char *provision_python(struct arena *a, const char *const *env)
{
	const char *p = env_nonempty(env, "CUWHEEL_PYTHON");
	if (p)
		return p;
	char *py = os_which(a, env, "python3");
	if (py)
		return py;
	const char *root = env_nonempty(env, "PYENV_ROOT");
	const char *home = env_nonempty(env, "HOME");
	if (!root && home)
		root = os_join(a, home, ".pyenv");
	if (!root)
		return NULL;
	struct strv vers = {0};
	const char *newest = NULL;
	char *dir = os_join(a, root, "versions");
	if (!os_list_dir(a, dir, &vers))
		return NULL;
	for (size_t i = 0; i < vers.n; i++) {
		char *cand = arena_printf(a, "%s/%s/bin/python3", dir, vers.v[i]);
		long parts[3];
		if (version_dotted_parts(vers.v[i], parts, 3) == 3 && os_is_exec(cand) &&
		    (!newest || version_dotted_cmp(vers.v[i], newest) > 0))
			newest = vers.v[i];
	}
	return newest ? arena_printf(a, "%s/%s/bin/python3", dir, newest) : NULL;
}

/* Runs <root>/bin/nvcc --version and checks it reports the pinned version. */
static bool check_nvcc(struct arena *a, struct diag *d, const char *root,
                       const struct provision_set *s)
{
	char *nvcc = os_join(a, root, "bin/nvcc");
	const char *argv[] = {nvcc, "--version", NULL};
	struct os_run r = {.argv = argv, .capture = true};
	struct strbuf out = {0};
	int status;
	if (!os_run(d, &r, &out, &status)) {
		sb_release(&out);
		return false;
	}
	char *want = arena_printf(a, ", V%s", s->version);
	bool ok = status == 0 && strstr(sb_str(&out), want);
	if (!ok) {
		diag_path(d, DIAG_ERROR, nvcc,
		          "the assembled nvcc does not run as CUDA %s "
		          "(exit %d): %s",
		          s->version, status, sb_str(&out));
	}
	sb_release(&out);
	return ok;
}

bool provision_check_root(struct arena *a, struct diag *d, const char *root,
                          const struct provision_set *s, const struct provision_piece *pieces,
                          size_t n)
{
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		char *p = os_join(a, root, pieces[i].path);
		bool there = pieces[i].exec ? os_is_exec(p) : os_exists(p);
		if (there)
			continue;
		const char *ver = "";
		for (size_t j = 0; j < s->n_pkgs; j++)
			if (strcmp(s->pkgs[j].name, pieces[i].package) == 0)
				ver = s->pkgs[j].version;
		diag_msg(d, DIAG_ERROR,
		         "cannot assemble CUDA %s: %s%s is missing (expected from "
		         "%s %s)",
		         s->version, pieces[i].path,
		         pieces[i].exec && os_exists(p) ? " is not executable, or" : "",
		         pieces[i].package, *ver ? ver : "(not in the lock file)");
		ok = false;
	}
	return ok && check_nvcc(a, d, root, s);
}
