/* cross_venv.c: a venv of another architecture's CPython, run by qemu-user (cross_venv.h). */
#include "wheeltest/cross_venv.h"

#include <stdio.h>
#include <string.h>

#include "base/os-file.h"
#include "base/os-run.h"
#include "standards/tags.h"
#include "standards/version.h"

struct interp *cross_interps(struct arena *a, const struct discovery *ds, const char *arch,
                             size_t *n)
{
	const char *plat = arena_printf(a, "linux_%s", arch);
	struct interp *v = arena_calloc(a, ds->n_cross + 1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < ds->n_cross; i++) {
		const struct cross_installed *p = &ds->cross[i];
		int major = 0, minor = 0;
		if (p->kind != CROSS_PYTHON || strcmp(p->platform, plat) ||
		    sscanf(p->minor, "%d.%d", &major, &minor) != 2)
			continue;
		struct interp *ip = &v[*n];
		ip->path = arena_printf(a, "%s/usr/bin/python%d.%d", p->root, major, minor);
		ip->version = p->version;
		ip->major = major;
		ip->minor = minor;
		ip->implementation = "cpython";
		ip->abiflags = "";
		ip->platform = plat;
		ip->found_by = "cross";
		ip->torch.cxx11_abi = -1;
		ip->torch.openmp = -1;
		/* Oldest first, as the build's abi3 cell takes the oldest. */
		size_t k = (*n)++;
		while (k > 0 && (v[k - 1].major > major ||
		                 (v[k - 1].major == major && v[k - 1].minor > minor))) {
			struct interp t = v[k - 1];
			v[k - 1] = v[k];
			v[k] = t;
			k--;
		}
	}
	return v;
}

const char *cross_qemu(struct arena *a, const char *const *env, const char *arch)
{
	const char *q = os_which(a, env, arena_printf(a, "qemu-%s-static", arch));
	return q ? q : os_which(a, env, arena_printf(a, "qemu-%s", arch));
}

/* The interpreter's root: its path less "/usr/bin/python3.X". */
static char *interp_root(struct arena *a, const struct interp *py)
{
	char *root = arena_strdup(a, py->path);
	for (int up = 0; up < 3; up++) {
		char *sl = strrchr(root, '/');
		if (!sl)
			return NULL;
		*sl = '\0';
	}
	return root;
}

/* s as one word of sh: in single quotes, each ' written as '\''. */
static void sh_quote(struct strbuf *sb, const char *s)
{
	sb_putc(sb, '\'');
	for (; *s; s++)
		if (*s == '\'')
			sb_puts(sb, "'\\''");
		else
			sb_putc(sb, *s);
	sb_putc(sb, '\'');
}

bool cross_venv_create(struct arena *a, const char *venv, const char *qemu, const struct interp *py,
                       struct strbuf *out)
{
	struct diag quiet = {0};
	char *root = interp_root(a, py);
	char *exe = arena_printf(a, "python%d.%d", py->major, py->minor);
	char *bin = os_join(a, venv, "bin");
	char *site = arena_printf(a, "%s/lib/%s/site-packages", venv, exe);
	if (!root || !os_mkdir_p(&quiet, bin) || !os_mkdir_p(&quiet, site)) {
		sb_printf(out, "cannot create the venv %s\n", venv);
		return false;
	}
	/* home: the interpreter's own dir, so that its prefix (the root's /usr) and stdlib are
	 * found from there; the venv's site-packages alone on the path. */
	char *cfg = arena_printf(a,
	                         "home = %s/usr/bin\ninclude-system-site-packages = false\n"
	                         "version = %s\nexecutable = %s\n",
	                         root, py->version, py->path);
	struct strbuf sh = {0};
	sb_puts(&sh,
	        "#!/bin/sh\n# The venv's interpreter is an aarch64 program: qemu-user runs it.\n"
	        "exec ");
	sh_quote(&sh, qemu);
	sb_puts(&sh, " -L ");
	sh_quote(&sh, root);
	sb_putc(&sh, ' ');
	sh_quote(&sh, os_join(a, bin, exe));
	sb_puts(&sh, " \"$@\"\n");
	char *python = os_join(a, bin, "python");
	bool ok = os_write_atomic(&quiet, os_join(a, venv, "pyvenv.cfg"), cfg, strlen(cfg), 0644) &&
	          os_symlink(py->path, os_join(a, bin, exe)) &&
	          os_write_atomic(&quiet, python, sh.buf, sh.len, 0755) &&
	          os_symlink("python", os_join(a, bin, "python3"));
	sb_release(&sh);
	if (!ok)
		sb_printf(out, "cannot write the venv %s\n", venv);
	return ok;
}

void cross_pip_options(struct arena *a, struct strv *args, const char *venv,
                       const struct interp *py, const char *plat)
{
	strv_push(a, args, "--target");
	strv_push(a, args,
	          arena_printf(a, "%s/lib/python%d.%d/site-packages", venv, py->major, py->minor));
	strv_push(a, args, "--python-version");
	strv_push(a, args, arena_printf(a, "%d.%d", py->major, py->minor));
	strv_push(a, args, "--implementation");
	strv_push(a, args, "cp");
	strv_push(a, args, "--abi");
	strv_push(a, args, arena_printf(a, "cp%d%d", py->major, py->minor));
	strv_push(a, args, "--only-binary");
	strv_push(a, args, ":all:");
	/* pip takes --platform as exact tags: every manylinux tag up to the wheel's glibc, which
	 * the interpreter's root has (the audit tagged the wheel for it). */
	int gmaj = 2, gmin = 17;
	const char *arch = NULL;
	if (!tag_manylinux_parse(a, plat, &gmaj, &gmin, &arch) || gmaj != 2 || gmin < 17) {
		gmin = 17;
		tag_platform_os(a, plat, &arch);
	}
	strv_push(a, args, "--platform");
	strv_push(a, args, arena_printf(a, "manylinux2014_%s", arch ? arch : "aarch64"));
	for (int m = 17; m <= gmin; m++) {
		strv_push(a, args, "--platform");
		strv_push(a, args,
		          arena_printf(a, "manylinux_2_%d_%s", m, arch ? arch : "aarch64"));
	}
	strv_push(a, args, "--platform");
	strv_push(a, args, plat);
}

const char *const *cross_compile_argv(struct arena *a, const struct discovery *ds, const char *venv,
                                      const struct interp *py)
{
	const struct interp *host = NULL;
	for (size_t i = 0; i < ds->n_pythons && !host; i++) {
		const struct interp *h = &ds->pythons[i];
		if (h->major == py->major && h->minor == py->minor && !h->freethreaded &&
		    !(h->abiflags && strchr(h->abiflags, 't')) &&
		    (!h->implementation || !strcmp(h->implementation, "cpython")))
			host = h;
	}
	char *root = interp_root(a, py);
	if (!host || !root)
		return NULL;
	const char **v = arena_calloc(a, 8, sizeof(*v));
	size_t n = 0;
	v[n++] = host->path;
	v[n++] = "-m";
	v[n++] = "compileall";
	v[n++] = "-qq";
	v[n++] = arena_printf(a, "%s/lib/python%d.%d/site-packages", venv, py->major, py->minor);
	/* The root's: written once, then found up to date. */
	v[n++] = arena_printf(a, "%s/usr/lib/python%d.%d", root, py->major, py->minor);
	return v;
}
