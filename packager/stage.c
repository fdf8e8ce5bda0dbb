/* stage.c: building the staged tree of a cell. */
#include "packager/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/os-file.h"

/* Whether the package walk leaves the entry name out: a hidden one (unless hidden), Python's
 * bytecode caches (__pycache__, *.pyc). */
static bool left_out(const char *n, bool hidden)
{
	size_t len = strlen(n);
	return (n[0] == '.' && !hidden) || !strcmp(n, "__pycache__") ||
	       (len > 4 && !strcmp(n + len - 4, ".pyc"));
}

/* The walk stage_dir makes, without copying: the first entry it would refuse. */
static const char *tree_problem(struct arena *a, const char *src, const char *rel, bool hidden,
                                int depth)
{
	if (depth > 64)
		return arena_printf(a, "'%s' is nested more than 64 directories deep",
		                    esc_str(a, ESC_TERM, rel));
	struct strv names = {0};
	if (!os_list_dir(a, src, &names))
		return arena_printf(a, "'%s' cannot be listed", esc_str(a, ESC_TERM, rel));
	for (size_t i = 0; i < names.n; i++) {
		const char *n = names.v[i];
		if (left_out(n, hidden))
			continue;
		char *s = os_join(a, src, n), *r = os_join(a, rel, n);
		struct os_stat st;
		if (!os_lstat(s, &st))
			return arena_printf(a, "'%s' cannot be read: %s", esc_str(a, ESC_TERM, r),
			                    strerror(errno));
		if (st.kind == OS_KIND_LINK)
			return arena_printf(a,
			                    "'%s' in the package is a symbolic link, which a wheel "
			                    "cannot hold (replace it with a copy of its target)",
			                    esc_str(a, ESC_TERM, r));
		const char *why = NULL;
		if (st.kind == OS_KIND_DIR)
			why = tree_problem(a, s, r, hidden, depth + 1);
		else if (st.kind != OS_KIND_FILE)
			why = arena_printf(a, "'%s' in the package is not a regular file",
			                   esc_str(a, ESC_TERM, r));
		else if (!os_can_read(s))
			why = arena_printf(a, "'%s' in the package cannot be read: %s",
			                   esc_str(a, ESC_TERM, r), strerror(errno));
		if (why)
			return why;
	}
	return NULL;
}

const char *stage_package_problem(struct arena *a, const char *project_dir, const char *rel,
                                  bool hidden)
{
	return tree_problem(a, os_join(a, project_dir, rel), rel, hidden, 0);
}

static bool stage_dir(struct arena *a, struct diag *d, const char *src, const char *dest,
                      bool hidden, int depth)
{
	if (depth > 64) {
		diag_path(d, DIAG_ERROR, src, "package tree is nested too deeply");
		return false;
	}
	if (!os_mkdir_p(d, dest))
		return false;
	struct strv names = {0};
	if (!os_list_dir(a, src, &names)) {
		diag_errno(d, src, "cannot list");
		return false;
	}
	for (size_t i = 0; i < names.n; i++) {
		const char *n = names.v[i];
		if (left_out(n, hidden))
			continue;
		char *s = os_join(a, src, n), *t = os_join(a, dest, n);
		struct os_stat st;
		if (!os_lstat(s, &st)) {
			diag_errno(d, s, "cannot stat");
			return false;
		}
		if (st.kind == OS_KIND_LINK) {
			diag_path(d, DIAG_ERROR, s,
			          "symbolic links are not staged into wheels "
			          "(wheels cannot hold them); replace it with a file");
			return false;
		}
		bool ok = st.kind == OS_KIND_DIR ? stage_dir(a, d, s, t, hidden, depth + 1)
		                                 : os_copy_file(d, s, t);
		if (!ok)
			return false;
	}
	return true;
}

/* Why name (a path whose first component is what the wheel holds at its root) cannot be
 * staged: a *.data or *.dist-info name (any case), or '', '.', '..'; NULL when it can. */
static const char *stage_root_name_problem(const char *name)
{
	size_t n = strcspn(name, "/");
	static const char *const reserved[] = {".data", ".dist-info"};
	for (size_t i = 0; i < 2; i++) {
		size_t k = strlen(reserved[i]);
		if (n >= k && !strncasecmp(name + n - k, reserved[i], k))
			return i == 0
			           ? "is named like the wheel's install-scheme directory (*.data), "
			             "which cuwheel never writes: installers would put its "
			             "scripts/ into the environment's bin/"
			           : "is named like the wheel's .dist-info directory, which only "
			             "cuwheel writes";
	}
	if (n == 0 || (n == 1 && name[0] == '.') || (n == 2 && !strncmp(name, "..", 2)))
		return "is not a name inside the wheel";
	return NULL;
}

bool stage_tree(struct arena *a, struct diag *d, const char *project_dir, const char *out_dir,
                const struct strv *packages, bool hidden, const struct stage_file *files,
                size_t n_files)
{
	/* What the wheel holds at its root is the packages' names and the modules' first
	 * components: never a .data or .dist-info directory, whoever asked for one. */
	for (size_t i = 0; i < packages->n + n_files; i++) {
		const char *rel = i < packages->n ? packages->v[i] : files[i - packages->n].dest;
		size_t len = strlen(rel);
		while (i < packages->n && len > 1 && rel[len - 1] == '/')
			len--;
		const char *base = rel;
		if (i < packages->n)
			for (const char *p = rel; p < rel + len; p++)
				if (*p == '/')
					base = p + 1;
		size_t rn = i < packages->n ? (size_t)(rel + len - base) : strcspn(rel, "/");
		const char *root = arena_strndup(a, base, rn);
		const char *why = stage_root_name_problem(root);
		if (why) {
			diag_path(d, DIAG_ERROR, rel,
			          "cannot be staged: '%s' at the wheel's root %s",
			          esc_str(a, ESC_TERM, root), why);
			return false;
		}
	}
	if (!os_rm_rf(d, out_dir) || !os_mkdir_p(d, out_dir))
		return false;
	bool ok = true;
	for (size_t i = 0; ok && i < packages->n; i++) {
		const char *rel = packages->v[i];
		const char *base = strrchr(rel, '/');
		base = base ? base + 1 : rel;
		char *src = rel[0] == '/' ? arena_strdup(a, rel) : os_join(a, project_dir, rel);
		ok = stage_dir(a, d, src, os_join(a, out_dir, base), hidden, 0);
	}
	for (size_t i = 0; ok && i < n_files; i++) {
		char *dest = os_join(a, out_dir, files[i].dest);
		char *slash = strrchr(dest, '/');
		*slash = '\0';
		ok = os_mkdir_p(d, dest);
		*slash = '/';
		ok = ok && os_copy_file(d, files[i].src, dest);
	}
	if (!ok) {
		struct diag quiet = {0};
		os_rm_rf(&quiet, out_dir);
	}
	return ok;
}
