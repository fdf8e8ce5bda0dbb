/* provision_cross.c: the parts an x86_64 machine needs to build linux_aarch64 wheels, from
 * toolchain/cross.lock.json into <cache>/cross/<platform>/<id>: the cross compiler (Debian's
 * .debs unpacked whole, binutils pointed at their own libraries, gcc and g++ wrapped with the
 * root as sysroot), the target's static CUDA runtime (Debian's arm64 nvidia-cuda-dev or
 * NVIDIA's aarch64 nvidia-cuda-runtime wheel) and the target's Python headers (Debian's arm64
 * libpython3.X-dev). Downloads go through the toolkit sources' code (provision_debian.c,
 * provision_pypi.c); install, marker and removal follow the toolkits'. */
#include "toolchain/provision_cross.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/os-file.h"
#include "base/os-run.h"
#include "base/strbuf.h"
#include "standards/platform.h"
#include "standards/version.h"
#include "standards/wheel_read.h"
#include "toolchain/provision_internal.h"

/* The static libraries a cross CUDA part holds, as <root>/lib64/<name>; the last only where
 * the package has it (Debian's 12.4 does, NVIDIA's 13.x wheel does not). */
static const char *const cuda_libs[] = {"libcudart_static.a", "libcudadevrt.a", "libculibos.a"};
#define CUDA_LIBS_NEEDED 2

static const char *const kind_names[] = {"compiler", "cuda", "python", "torch"};
#define N_KINDS 4

const char *cross_lock_path(struct arena *a, const char *const *env)
{
	return provision_lock_file(a, env, "CUWHEEL_CROSS_LOCK", "cross.lock.json");
}

/* Reads one part (kind) of a target from o: a Debian set (suite, components, arch) or, with
 * "index", a PyPI set. */
static bool read_part(struct arena *a, struct diag *d, const char *path, const char *where,
                      json_t *root, json_t *o, enum cross_kind kind, struct cross_part *p)
{
	struct provision_set *s = &p->set;
	json_t *pkgs = json_object_get(o, "packages");
	const char *ver = provision_jstr(o, "version");
	bool pypi = provision_jstr(o, "index") != NULL;
	p->kind = kind;
	bool ok = json_is_object(o) && provision_set_version(a, s, ver) && json_is_array(pkgs) &&
	          json_array_size(pkgs) > 0;
	if (ok && kind != CROSS_COMPILER) {
		const char *minor = provision_jstr(o, "minor");
		long parts[3];
		ok = minor && version_dotted_parts(minor, parts, 3) == 2;
		if (ok)
			s->minor = arena_strdup(a, minor);
	}
	/* A torch part: the Python its wheel is for, the CUDA its build is. */
	if (ok && kind == CROSS_TORCH) {
		const char *py = provision_jstr(o, "python"), *cuda = provision_jstr(o, "cuda");
		long parts[3];
		ok = py && cuda && version_dotted_parts(py, parts, 3) == 2 &&
		     version_dotted_parts(cuda, parts, 3) == 2 && pypi;
		if (ok) {
			p->python = arena_strdup(a, py);
			p->cuda = arena_strdup(a, cuda);
		}
	}
	if (ok && !pypi) {
		const char *arch = provision_jstr(o, "arch");
		ok = provision_debian_origin(
		         a, provision_jstr(root, "uri"), provision_jstr(root, "keyring"),
		         provision_jstr(o, "suite"), provision_jstr(o, "components"), s) &&
		     provision_is_token(arch, "");
		s->arch = ok && strcmp(arch, "amd64") != 0 ? arena_strdup(a, arch) : NULL;
	} else if (ok) {
		s->source = PROVISION_PYPI;
	}
	if (!ok) {
		diag_path(d, DIAG_ERROR, path,
		          "%s: needs a MAJOR.MINOR.PATCH \"version\"%s, a non-empty \"packages\" "
		          "array and either an \"index\" or a Debian \"suite\", \"components\" and "
		          "\"arch\"%s",
		          where, kind == CROSS_COMPILER ? "" : ", a MAJOR.MINOR \"minor\"",
		          kind == CROSS_TORCH
		              ? " (a torch part: an \"index\", MAJOR.MINOR \"python\" "
		                "and \"cuda\")"
		              : "");
		return false;
	}
	if (!provision_set_pkgs(a, d, path, where, 0, pkgs, !pypi, s))
		return false;
	p->id =
	    arena_printf(a, "%s-%s", kind == CROSS_COMPILER ? "gcc" : kind_names[kind], s->version);
	/* One torch wheel per Python: "torch-2.11.0-cp313". */
	if (kind == CROSS_TORCH) {
		int pm = 0, pn = 0;
		sscanf(p->python, "%d.%d", &pm, &pn);
		p->id = arena_printf(a, "%s-cp%d%d", p->id, pm, pn);
	}
	return true;
}

/* Reads targets[i] of the lock into t. */
static bool read_target(struct arena *a, struct diag *d, const char *path, json_t *root, json_t *o,
                        size_t i, struct cross_target *t)
{
	const char *plat = provision_jstr(o, "platform"), *trip = provision_jstr(o, "triplet");
	json_t *cuda = json_object_get(o, "cuda"), *py = json_object_get(o, "pythons");
	json_t *torch = json_object_get(o, "torch");
	const struct platform *pf = plat ? platform_find(plat) : NULL;
	if (!pf || pf->windows || !provision_is_token(trip, "-_") || !json_is_array(cuda) ||
	    !json_is_array(py) || (torch && !json_is_array(torch))) {
		diag_path(d, DIAG_ERROR, path,
		          "targets[%zu]: needs a Linux \"platform\" cuwheel knows, a \"triplet\", "
		          "\"cuda\" and \"pythons\" arrays (and \"torch\", when given, an array)",
		          i);
		return false;
	}
	t->platform = arena_strdup(a, plat);
	t->triplet = arena_strdup(a, trip);
	t->n_parts = 0;
	size_t total = 1 + json_array_size(cuda) + json_array_size(py) + json_array_size(torch);
	struct cross_part *parts = arena_calloc(a, total, sizeof(*t->parts));
	t->parts = parts;
	for (size_t k = 0; k < total; k++)
		parts[k].target = t;
	if (!read_part(a, d, path, arena_printf(a, "targets[%zu].compiler", i), root,
	               json_object_get(o, "compiler"), CROSS_COMPILER, &parts[t->n_parts++]))
		return false;
	for (size_t k = 0; k < json_array_size(cuda); k++)
		if (!read_part(a, d, path, arena_printf(a, "targets[%zu].cuda[%zu]", i, k), root,
		               json_array_get(cuda, k), CROSS_CUDA, &parts[t->n_parts++]))
			return false;
	for (size_t k = 0; k < json_array_size(py); k++)
		if (!read_part(a, d, path, arena_printf(a, "targets[%zu].pythons[%zu]", i, k), root,
		               json_array_get(py, k), CROSS_PYTHON, &parts[t->n_parts++]))
			return false;
	for (size_t k = 0; k < json_array_size(torch); k++)
		if (!read_part(a, d, path, arena_printf(a, "targets[%zu].torch[%zu]", i, k), root,
		               json_array_get(torch, k), CROSS_TORCH, &parts[t->n_parts++]))
			return false;
	return true;
}

bool cross_lock_load(struct arena *a, struct diag *d, const char *path, struct cross_lock *out)
{
	memset(out, 0, sizeof(*out));
	out->path = arena_strdup(a, path);
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	if (!root) {
		diag_path(d, DIAG_ERROR, path, "cannot read the cross lock file: %s (line %d)",
		          err.text, err.line);
		return false;
	}
	bool ok = false;
	json_t *schema = json_object_get(root, "schema");
	json_t *targets = json_object_get(root, "targets");
	if (!json_is_integer(schema) || json_integer_value(schema) != 1 ||
	    !json_is_array(targets)) {
		diag_path(d, DIAG_ERROR, path, "not a schema 1 cross lock file with \"targets\"");
		goto done;
	}
	const char *gen = provision_jstr(root, "generated");
	out->generated = arena_strdup(a, gen ? gen : "unknown");
	out->n_targets = json_array_size(targets);
	out->targets = arena_calloc(a, out->n_targets ? out->n_targets : 1, sizeof(*out->targets));
	for (size_t i = 0; i < out->n_targets; i++)
		if (!read_target(a, d, path, root, json_array_get(targets, i), i, &out->targets[i]))
			goto done;
	ok = true;
done:
	json_decref(root);
	return ok;
}

const struct cross_target *cross_target_find(const struct cross_lock *l, const char *platform)
{
	for (size_t i = 0; l && i < l->n_targets; i++)
		if (strcmp(l->targets[i].platform, platform) == 0)
			return &l->targets[i];
	return NULL;
}

const struct cross_part *cross_part_for(const struct cross_target *t, enum cross_kind kind,
                                        const char *minor)
{
	const struct cross_part *best = NULL;
	for (size_t i = 0; t && i < t->n_parts; i++) {
		const struct cross_part *p = &t->parts[i];
		if (p->kind != kind || (minor && strcmp(p->set.minor, minor) != 0))
			continue;
		if (!best || version_dotted_cmp(p->set.version, best->set.version) > 0)
			best = p;
	}
	return best;
}

const struct cross_part *cross_torch_part(const struct cross_target *t, const char *torch,
                                          const char *python, bool at_least)
{
	const struct cross_part *best = NULL;
	for (size_t i = 0; t && i < t->n_parts; i++) {
		const struct cross_part *p = &t->parts[i];
		if (p->kind != CROSS_TORCH || strcmp(p->set.minor, torch) != 0)
			continue;
		int c = version_dotted_cmp(p->python, python);
		if (at_least ? c < 0 : c != 0)
			continue;
		if (!best || version_dotted_cmp(p->python, best->python) < 0 ||
		    (!strcmp(p->python, best->python) &&
		     version_dotted_cmp(p->set.version, best->set.version) > 0))
			best = p;
	}
	return best;
}

const struct cross_part *cross_resolve(struct arena *a, struct diag *d,
                                       const struct cross_target *t, const char *name)
{
	if (strcmp(name, "gcc") == 0)
		return cross_part_for(t, CROSS_COMPILER, NULL);
	for (size_t i = 0; i < t->n_parts; i++)
		if (strcmp(t->parts[i].id, name) == 0)
			return &t->parts[i];
	for (int k = CROSS_CUDA; k <= CROSS_TORCH; k++) {
		size_t n = strlen(kind_names[k]);
		if (strncmp(name, kind_names[k], n) == 0 && name[n] == '-') {
			const struct cross_part *p =
			    cross_part_for(t, (enum cross_kind)k, name + n + 1);
			if (p)
				return p;
		}
	}
	struct strbuf sb = {0};
	for (size_t i = 0; i < t->n_parts; i++)
		sb_printf(&sb, "%s%s", i ? ", " : "", t->parts[i].id);
	diag_msg(d, DIAG_ERROR, "the cross lock pins no '%s' for %s: it has %s", name, t->platform,
	         sb_str(&sb));
	sb_release(&sb);
	return NULL;
}

/* Runs argv capturing its output; false + an error naming what (with the output's tail). */
static bool run_checked(struct arena *a, struct diag *d, const char *const *argv, const char *what)
{
	struct os_run r = {.argv = argv, .capture = true, .timeout_s = 600};
	struct strbuf out = {0};
	int status;
	bool ok = os_run(d, &r, &out, &status);
	if (ok && status != 0) {
		const char *t = sb_str(&out);
		size_t len = strlen(t);
		diag_msg(d, DIAG_ERROR, "%s failed (exit %d): %s", what, status,
		         os_argv_str(a, argv));
		diag_msg(d, DIAG_NOTE, "it said:\n%s", len > 2000 ? t + len - 2000 : t);
		ok = false;
	}
	sb_release(&out);
	return ok;
}

static struct provision_deb_for deb_for(struct arena *a, const struct cross_target *t,
                                        const struct cross_part *p)
{
	return (struct provision_deb_for){
	    .what =
	        arena_printf(a, "the %s %s %s", t->platform, kind_names[p->kind], p->set.version),
	    .lock = "the cross lock",
	    .regen = "tools/update-cross-lock",
	    .elsewhere = "run on a Debian or Ubuntu machine",
	};
}

/* Returns qemu-user for t's machine on PATH (qemu-aarch64-static: Debian's qemu-user-static),
 * which runs the target's interpreter here, or NULL. */
static const char *cross_qemu(struct arena *a, const char *const *env, const struct cross_target *t)
{
	const char *cpu = strchr(t->platform, '_') ? strchr(t->platform, '_') + 1 : t->platform;
	return os_which(a, env, arena_printf(a, "qemu-%s-static", cpu));
}

/* The wrapper that makes the unpacked compiler use the root as its sysroot (its C library,
 * headers and linker scripts live there, under usr/<triplet>). */
static bool write_wrapper(struct arena *a, struct diag *d, const char *staging,
                          const struct cross_target *t, const char *tool, const char *real)
{
	char *text = arena_printf(a,
	                          "#!/bin/sh\n"
	                          "# Written by cuwheel: %s with its own root as the sysroot.\n"
	                          "root=$(cd \"$(dirname \"$0\")/..\" && pwd)\n"
	                          "exec \"$root/usr/bin/%s\" --sysroot=\"$root\" \"$@\"\n",
	                          real, real);
	return os_write_atomic(d, arena_printf(a, "%s/bin/%s-%s", staging, t->triplet, tool), text,
	                       strlen(text), 0755);
}

/* binutils' programs load libbfd and libopcodes of their own package, which Debian puts in
 * /usr/lib/x86_64-linux-gnu: point them at the root's copy. */
static bool point_binutils(struct arena *a, struct diag *d, const struct provision_opts *o,
                           const char *staging, const struct cross_target *t)
{
	if (!os_which(a, o->env, "patchelf")) {
		diag_msg(d, DIAG_ERROR,
		         "cannot provision the %s compiler: patchelf is not on PATH (Debian's "
		         "patchelf package; tools/install-deps installs it)",
		         t->platform);
		return false;
	}
	char *bin = os_join(a, staging, "usr/bin");
	struct strv ents = {0};
	if (!os_list_dir(a, bin, &ents)) {
		diag_errno(d, bin, "cannot list");
		return false;
	}
	static const char *const tools[] = {"as",      "ld.bfd",  "ar",      "ranlib", "nm",
	                                    "objcopy", "objdump", "readelf", "strip"};
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char *exe = arena_printf(a, "%s/%s-%s", bin, t->triplet, tools[i]);
		const char *argv[] = {"patchelf", "--set-rpath", "$ORIGIN/../lib/x86_64-linux-gnu",
		                      exe, NULL};
		if (!run_checked(a, d, argv, arena_printf(a, "pointing %s at its libraries", exe)))
			return false;
	}
	return true;
}

/* Compiles and links a C++ program that uses threads with the staged compiler: the check that
 * the root is whole. */
static bool check_compiler(struct arena *a, struct diag *d, const char *staging,
                           const struct cross_target *t)
{
	static const char prog[] = "#include <string>\n#include <thread>\n"
	                           "int main() { std::string s(\"x\"); std::thread th([] {});\n"
	                           "  th.join(); return (int)s.size() - 1; }\n";
	char *src = os_join(a, staging, ".check.cpp"), *out = os_join(a, staging, ".check");
	if (!os_write_atomic(d, src, prog, sizeof(prog) - 1, 0644))
		return false;
	const char *cxx = arena_printf(a, "%s/bin/%s-g++", staging, t->triplet);
	const char *argv[] = {cxx, "-O2", "-fPIC", "-pthread", src, "-o", out, NULL};
	bool ok = run_checked(
	    a, d, argv,
	    arena_printf(a, "compiling a test program with the %s compiler", t->platform));
	os_unlink(src);
	os_unlink(out);
	return ok;
}

static bool assemble_compiler(struct arena *a, struct diag *d, const struct provision_opts *o,
                              const struct cross_target *t, const struct cross_part *p,
                              const char *staging)
{
	struct provision_deb_for f = deb_for(a, t, p);
	const char **files;
	if (!provision_debian_fetch(a, d, o, &p->set, &f, &files))
		return false;
	for (size_t i = 0; i < p->set.n_pkgs; i++) {
		const char *argv[] = {"dpkg-deb", "-x", files[i], staging, NULL};
		if (!run_checked(a, d, argv,
		                 arena_printf(a, "unpacking %s %s", p->set.pkgs[i].name,
		                              p->set.pkgs[i].version)))
			return false;
	}
	const char *major = arena_strndup(a, p->set.version, strcspn(p->set.version, "."));
	if (!os_mkdir_p(d, os_join(a, staging, "bin")) ||
	    !write_wrapper(a, d, staging, t, "gcc",
	                   arena_printf(a, "%s-gcc-%s", t->triplet, major)) ||
	    !write_wrapper(a, d, staging, t, "g++",
	                   arena_printf(a, "%s-g++-%s", t->triplet, major)) ||
	    !point_binutils(a, d, o, staging, t) || !check_compiler(a, d, staging, t))
		return false;
	for (size_t i = 0; i < p->set.n_pkgs; i++)
		os_unlink(files[i]);
	return true;
}

/* Moves <from>/<name> into <staging>/lib64 for each of cuda_libs; false + an error naming
 * what when one is missing. */
static bool take_cuda_libs(struct arena *a, struct diag *d, const char *from, const char *staging,
                           const char *what)
{
	char *lib = os_join(a, staging, "lib64");
	if (!os_mkdir_p(d, lib))
		return false;
	for (size_t i = 0; i < sizeof(cuda_libs) / sizeof(cuda_libs[0]); i++) {
		char *src = os_join(a, from, cuda_libs[i]);
		if (!os_exists(src) && i >= CUDA_LIBS_NEEDED)
			continue;
		if (!os_exists(src)) {
			diag_path(d, DIAG_ERROR, what, "brought no %s", cuda_libs[i]);
			return false;
		}
		if (!os_rename(src, os_join(a, lib, cuda_libs[i]))) {
			diag_errno(d, src, "cannot move into place");
			return false;
		}
	}
	return true;
}

static bool assemble_cuda(struct arena *a, struct diag *d, const struct provision_opts *o,
                          const struct cross_target *t, const struct cross_part *p,
                          const char *staging)
{
	const struct provision_set *s = &p->set;
	if (s->source == PROVISION_DEBIAN) {
		struct provision_deb_for f = deb_for(a, t, p);
		const char **files;
		if (!provision_debian_fetch(a, d, o, s, &f, &files))
			return false;
		const char *members[3], *to[3];
		for (size_t i = 0; i < 3; i++) {
			members[i] = arena_printf(a, "usr/lib/%s/%s", t->triplet, cuda_libs[i]);
			to[i] = arena_printf(a, "lib64/%s", cuda_libs[i]);
		}
		if (!provision_debian_extract(a, d, &s->pkgs[0], files[0], staging, members, to, 3))
			return false;
		/* 0.9 GB for 1.3 MB of runtime: not kept. */
		os_unlink(files[0]);
		return true;
	}
	const char *python = o->python ? o->python : provision_python(a, o->env);
	if (!python) {
		diag_msg(d, DIAG_ERROR,
		         "cannot provision the %s CUDA %s runtime: no python3 with pip found to "
		         "download the wheel",
		         t->platform, s->version);
		return false;
	}
	char *wheels = os_join(a, staging, ".wheels"), *unpack = os_join(a, staging, ".unpack");
	char *whl = os_join(a, wheels, s->pkgs[0].filename);
	if (!os_mkdir_p(d, wheels) ||
	    !provision_pip_download(a, d, o, s, python, os_join(a, staging, ".req.txt"), wheels))
		return false;
	if (!wheel_extract(a, d, whl, unpack, NULL))
		return false;
	char *lib = arena_printf(a, "%s/nvidia/cu%d/lib", unpack, s->major);
	if (!take_cuda_libs(a, d, lib, staging, s->pkgs[0].filename))
		return false;
	return os_rm_rf(d, unpack) && os_rm_rf(d, wheels) &&
	       os_rm_rf(d, os_join(a, staging, ".req.txt"));
}

/* Runs the root's interpreter under qemu-user, when this machine has it: the check that the
 * root is whole enough to test wheels in (a root serves builds without it too). */
static bool check_python(struct arena *a, struct diag *d, const struct provision_opts *o,
                         const struct cross_target *t, const struct provision_set *s,
                         const char *staging)
{
	const char *qemu = cross_qemu(a, o->env, t);
	if (!qemu)
		return true;
	const char *argv[] = {qemu,
	                      "-L",
	                      staging,
	                      arena_printf(a, "%s/usr/bin/python%s", staging, s->minor),
	                      "-I",
	                      "-c",
	                      "import ssl, venv, ensurepip, sqlite3, zlib, ctypes",
	                      NULL};
	return run_checked(
	    a, d, argv,
	    arena_printf(a, "running the %s Python %s under %s", t->platform, s->version, qemu));
}

static bool assemble_python(struct arena *a, struct diag *d, const struct provision_opts *o,
                            const struct cross_target *t, const struct cross_part *p,
                            const char *staging)
{
	const struct provision_set *s = &p->set;
	struct provision_deb_for f = deb_for(a, t, p);
	const char **files;
	if (!provision_debian_fetch(a, d, o, s, &f, &files))
		return false;
	for (size_t i = 0; i < s->n_pkgs; i++) {
		const char *argv[] = {"dpkg-deb", "-x", files[i], staging, NULL};
		if (!run_checked(
		        a, d, argv,
		        arena_printf(a, "unpacking %s %s", s->pkgs[i].name, s->pkgs[i].version)))
			return false;
	}
	/* The packages assume a merged /usr; the loader is looked for at /lib. */
	static const char *const merged[] = {"lib", "bin", "sbin"};
	for (size_t i = 0; i < sizeof(merged) / sizeof(merged[0]); i++) {
		char *link = os_join(a, staging, merged[i]);
		if (!os_exists(link) && !os_symlink(arena_printf(a, "usr/%s", merged[i]), link)) {
			diag_errno(d, link, "cannot create symlink");
			return false;
		}
	}
	/* Debian's pyconfig.h includes <TRIPLET/python3.X/pyconfig.h>: make it the real one, so
	 * -I <root>/usr/include/python3.X alone suffices. */
	char *inc = arena_printf(a, "%s/usr/include/python%s", staging, s->minor);
	char *real =
	    arena_printf(a, "%s/usr/include/%s/python%s/pyconfig.h", staging, t->triplet, s->minor);
	struct source src;
	if (!os_exists(os_join(a, inc, "Python.h")) || !os_exists(real)) {
		diag_msg(d, DIAG_ERROR, "cannot assemble the %s Python %s: no %s or no %s",
		         t->platform, s->version, os_join(a, inc, "Python.h"), real);
		return false;
	}
	if (!os_read_file(a, d, real, &src) ||
	    !os_write_atomic(d, os_join(a, inc, "pyconfig.h"), src.text, src.len, 0644) ||
	    !check_python(a, d, o, t, s, staging))
		return false;
	for (size_t i = 0; i < s->n_pkgs; i++)
		os_unlink(files[i]);
	return true;
}

/* What <root>/torch/version.py says: __version__ ("2.11.0+cu130") and cuda ("13.0"; NULL: a CPU
 * build), each a quoted string on its own `NAME = '...'` or `NAME: T = '...'` line. */
static bool torch_version_py(struct arena *a, struct diag *d, const char *path,
                             const char **version, const char **cuda)
{
	struct source src;
	*version = *cuda = NULL;
	if (!os_read_file(a, d, path, &src))
		return false;
	for (const char *l = src.text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		const char **slot = !strncmp(l, "__version__", 11) ? version
		                    : !strncmp(l, "cuda", 4) && strchr(" :=", l[4]) && l[4] ? cuda
		                                                                            : NULL;
		const char *eq = memchr(l, '=', n);
		if (slot && eq) {
			const char *q = eq + 1;
			while (q < l + n && *q == ' ')
				q++;
			const char *end = q < l + n && (*q == '\'' || *q == '"')
			                      ? memchr(q + 1, *q, (size_t)(l + n - q - 1))
			                      : NULL;
			if (end)
				*slot = arena_strndup(a, q + 1, (size_t)(end - q - 1));
		}
		l = nl ? nl + 1 : NULL;
	}
	if (!*version)
		diag_path(d, DIAG_ERROR, path, "names no __version__");
	return *version != NULL;
}

/* Moves from/name to to/name, making to; false + an error naming what when from/name is
 * missing. */
static bool take(struct arena *a, struct diag *d, const char *from, const char *to,
                 const char *name, const char *what)
{
	char *src = os_join(a, from, name);
	if (!os_exists(src)) {
		diag_path(d, DIAG_ERROR, what, "brought no %s", name);
		return false;
	}
	if (!os_mkdir_p(d, to) || !os_rename(src, os_join(a, to, name))) {
		diag_errno(d, src, "cannot move into place");
		return false;
	}
	return true;
}

/* torch's wheel for the target (its headers, libraries and version.py: what a binding compiles
 * and links against; torch's Python code is not kept) and the shared CUDA runtime a torch
 * binding links (NVIDIA's nvidia-cuda-runtime wheel: its libcudart.so.N, whose soname the
 * module records; at run time torch's own runtime package provides it). */
static bool assemble_torch(struct arena *a, struct diag *d, const struct provision_opts *o,
                           const struct cross_target *t, const struct cross_part *p,
                           const char *staging)
{
	const struct provision_set *s = &p->set;
	const char *python = o->python ? o->python : provision_python(a, o->env);
	if (!python) {
		diag_msg(d, DIAG_ERROR,
		         "cannot provision the %s torch %s: no python3 with pip found to download "
		         "the wheel",
		         t->platform, s->version);
		return false;
	}
	char *wheels = os_join(a, staging, ".wheels"), *unpack = os_join(a, staging, ".unpack");
	if (!os_mkdir_p(d, wheels) ||
	    !provision_pip_download(a, d, o, s, python, os_join(a, staging, ".req.txt"), wheels))
		return false;
	int cmaj = atoi(p->cuda);
	for (size_t i = 0; i < s->n_pkgs; i++) {
		const struct provision_pkg *k = &s->pkgs[i];
		char *dest = arena_printf(a, "%s/%zu", unpack, i);
		if (!wheel_extract(a, d, os_join(a, wheels, k->filename), dest, NULL))
			return false;
		bool ok;
		if (!strcmp(k->name, "torch")) {
			char *from = os_join(a, dest, "torch"), *to = os_join(a, staging, "torch");
			ok = take(a, d, from, to, "include", k->filename) &&
			     take(a, d, from, to, "lib", k->filename) &&
			     take(a, d, from, to, "version.py", k->filename);
		} else if (!strcmp(k->name, "nvidia-cuda-runtime")) {
			char *sub = arena_printf(a, "nvidia/cu%d/lib", cmaj);
			ok = take(a, d, os_join(a, dest, sub), os_join(a, staging, sub),
			          arena_printf(a, "libcudart.so.%d", cmaj), k->filename);
		} else {
			diag_path(d, DIAG_ERROR, k->filename,
			          "cuwheel does not know how to assemble it into a torch part");
			ok = false;
		}
		if (!ok || !os_rm_rf(d, dest))
			return false;
	}
	const char *version, *cuda;
	char *vpy = os_join(a, staging, "torch/version.py");
	if (!torch_version_py(a, d, vpy, &version, &cuda))
		return false;
	size_t vn = strlen(s->version);
	if (strncmp(version, s->version, vn) != 0 || (version[vn] && version[vn] != '+') || !cuda ||
	    strcmp(cuda, p->cuda) != 0) {
		diag_path(d, DIAG_ERROR, vpy,
		          "says torch %s for CUDA %s; the cross lock pins torch %s for CUDA %s",
		          version, cuda ? cuda : "none", s->version, p->cuda);
		return false;
	}
	return os_rm_rf(d, unpack) && os_rm_rf(d, wheels) &&
	       os_rm_rf(d, os_join(a, staging, ".req.txt"));
}

/* A torch part's facts for its marker: version.py's, whether its libraries use the C++11 ABI
 * (libc10.so's symbols name std::__cxx11) and whether torch brings its OpenMP runtime
 * (torch/lib/libgomp.so.1: a build with OpenMP, as parallel_info() would say). */
static bool torch_marker(struct arena *a, struct diag *d, const char *staging, json_t *m)
{
	const char *version, *cuda;
	struct source c10;
	if (!torch_version_py(a, d, os_join(a, staging, "torch/version.py"), &version, &cuda) ||
	    !os_read_file_max(a, d, os_join(a, staging, "torch/lib/libc10.so"), (size_t)256 << 20,
	                      "torch's libc10.so", &c10))
		return false;
	bool cxx11 = false;
	for (size_t i = 0; !cxx11 && i + 10 <= c10.len; i++)
		cxx11 = c10.text[i] == 'S' && memcmp(c10.text + i, "St7__cxx11", 10) == 0;
	bool omp = os_exists(os_join(a, staging, "torch/lib/libgomp.so.1"));
	json_object_set_new(m, "torch", json_string(version));
	json_object_set_new(m, "cxx11_abi", json_integer(cxx11 ? 1 : 0));
	json_object_set_new(m, "openmp", json_integer(omp ? 1 : -1));
	return true;
}

/* The marker: the set's own, plus the platform, triplet and kind. */
static bool write_marker(struct arena *a, struct diag *d, const char *staging,
                         const struct cross_target *t, const struct cross_part *p)
{
	const char *src = p->set.source == PROVISION_PYPI
	                      ? "pypi"
	                      : arena_printf(a, "debian %s %s", p->set.suite,
	                                     p->set.arch ? p->set.arch : "amd64");
	if (!provision_write_marker(a, d, staging, CROSS_MARKER, &p->set, src))
		return false;
	char *path = os_join(a, staging, CROSS_MARKER);
	json_error_t err;
	json_t *m = json_load_file(path, JSON_PRESERVE_ORDER, &err);
	if (!m) {
		diag_path(d, DIAG_ERROR, path, "cannot read back: %s", err.text);
		return false;
	}
	json_object_set_new(m, "platform", json_string(t->platform));
	json_object_set_new(m, "triplet", json_string(t->triplet));
	json_object_set_new(m, "kind", json_string(kind_names[p->kind]));
	json_object_set_new(m, "id", json_string(p->id));
	if (p->kind == CROSS_TORCH) {
		json_object_set_new(m, "python", json_string(p->python));
		json_object_set_new(m, "cuda", json_string(p->cuda));
		if (!torch_marker(a, d, staging, m)) {
			json_decref(m);
			return false;
		}
	}
	char *text = json_dumps(m, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(m);
	bool ok = text && os_write_atomic(d, path, text, strlen(text), 0644);
	free(text);
	return ok;
}

const struct cross_part *cross_part_of(const struct provision_set *s)
{
	return (const struct cross_part *)(const void *)s;
}

enum provision_result cross_install(struct arena *a, struct diag *d, const struct provision_opts *o,
                                    const struct cross_part *p, const char **root)
{
	const struct cross_target *t = p->target;
#if !defined(__linux__) || !defined(__x86_64__)
	diag_msg(d, DIAG_ERROR,
	         "cannot provision the %s %s: the cross lock pins what an x86_64 Linux machine "
	         "runs",
	         t->platform, p->id);
	return PROVISION_FAILED;
#endif
	char *dir =
	    provision_cache_subdir(a, d, o->cache_dir, arena_printf(a, "cross/%s", t->platform));
	if (!dir)
		return PROVISION_FAILED;
	int lock = provision_lock_dir(a, d, dir, "build");
	if (lock < 0)
		return PROVISION_FAILED;
	char *final = os_join(a, dir, p->id);
	*root = final;
	enum provision_result res = PROVISION_FAILED;
	if (os_exists(os_join(a, final, CROSS_MARKER))) {
		res = PROVISION_ALREADY;
		goto out;
	}
	provision_remove_stale(a, d, dir);
	char *staging = arena_printf(a, "%s/.tmp-%s-%ld", dir, p->id, (long)getpid());
	if (!os_mkdir_p(d, staging))
		goto out;
	bool ok = p->kind == CROSS_COMPILER ? assemble_compiler(a, d, o, t, p, staging)
	          : p->kind == CROSS_CUDA   ? assemble_cuda(a, d, o, t, p, staging)
	          : p->kind == CROSS_TORCH  ? assemble_torch(a, d, o, t, p, staging)
	                                    : assemble_python(a, d, o, t, p, staging);
	if (!ok || !write_marker(a, d, staging, t, p)) {
		os_rm_rf(d, staging);
		goto out;
	}
	if (os_exists(final) && !provision_set_aside(a, d, dir, p->id, final)) {
		os_rm_rf(d, staging);
		goto out;
	}
	if (!provision_move_into_place(d, dir, staging, final, "cannot move the part into place"))
		goto out;
	res = PROVISION_INSTALLED;
out:
	close(lock);
	return res;
}

bool cross_list(struct arena *a, struct diag *d, const char *cache_dir,
                struct cross_installed **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	char *top = os_join(a, cache_dir, "cross");
	struct strv plats = {0};
	if (!os_is_dir(top))
		return true;
	if (!os_list_dir(a, top, &plats)) {
		diag_errno(d, top, "cannot list");
		return false;
	}
	size_t cap = 0;
	for (size_t i = 0; i < plats.n; i++) {
		char *dir = os_join(a, top, plats.v[i]);
		struct strv ents = {0};
		if (plats.v[i][0] == '.' || !os_is_dir(dir) || !os_list_dir(a, dir, &ents))
			continue;
		for (size_t k = 0; k < ents.n; k++) {
			char *marker = arena_printf(a, "%s/%s/%s", dir, ents.v[k], CROSS_MARKER);
			json_error_t err;
			json_t *m = ents.v[k][0] == '.' || !os_exists(marker)
			                ? NULL
			                : json_load_file(marker, 0, &err);
			const char *kind = m ? provision_jstr(m, "kind") : NULL;
			int ki = -1;
			for (int j = 0; kind && j < N_KINDS; j++)
				if (strcmp(kind, kind_names[j]) == 0)
					ki = j;
			if (ki < 0 || !provision_jstr(m, "version") ||
			    !provision_jstr(m, "triplet")) {
				json_decref(m);
				continue;
			}
			if (*n == cap) {
				size_t ncap = cap ? cap * 2 : 8;
				*out = arena_realloc(a, *out, cap, ncap, sizeof(**out));
				cap = ncap;
			}
			struct cross_installed *c = &(*out)[(*n)++];
			c->platform = arena_strdup(a, plats.v[i]);
			c->triplet = arena_strdup(a, provision_jstr(m, "triplet"));
			c->kind = (enum cross_kind)ki;
			c->id = arena_strdup(a, ents.v[k]);
			c->version = arena_strdup(a, provision_jstr(m, "version"));
			const char *minor = provision_jstr(m, "minor");
			c->minor = arena_strdup(a, minor ? minor : "");
			const char *py = provision_jstr(m, "python"),
			           *tv = provision_jstr(m, "torch"),
			           *cu = provision_jstr(m, "cuda");
			c->python = arena_strdup(a, py ? py : "");
			c->torch_version = arena_strdup(a, tv ? tv : "");
			c->cuda = arena_strdup(a, cu ? cu : "");
			json_t *abi = json_object_get(m, "cxx11_abi"),
			       *omp = json_object_get(m, "openmp");
			c->cxx11_abi = json_is_integer(abi) ? (int)json_integer_value(abi) : -1;
			c->openmp = json_is_integer(omp) ? (int)json_integer_value(omp) : -1;
			char *root = os_join(a, dir, ents.v[k]);
			char *real = os_realpath(a, root);
			c->root = real ? real : root;
			json_decref(m);
		}
	}
	return true;
}

const char *cross_cc(struct arena *a, const struct cross_installed *p, bool cxx)
{
	return arena_printf(a, "%s/bin/%s-%s", p->root, p->triplet, cxx ? "g++" : "gcc");
}

bool cross_remove(struct arena *a, struct diag *d, const char *cache_dir, const char *id,
                  const char **removed)
{
	struct cross_installed *in;
	size_t n;
	if (!cross_list(a, d, cache_dir, &in, &n))
		return false;
	const struct cross_installed *hit = NULL;
	for (size_t i = 0; i < n; i++)
		if (strcmp(in[i].id, id) == 0)
			hit = &in[i];
	if (!hit) {
		diag_msg(d, DIAG_ERROR, "no cross part '%s' is installed in %s/cross", id,
		         cache_dir);
		return false;
	}
	char *dir = arena_printf(a, "%s/cross/%s", cache_dir, hit->platform);
	char *root = os_join(a, dir, id);
	int lock = provision_lock_dir(a, d, dir, "build");
	if (lock < 0)
		return false;
	bool ok = provision_set_aside(a, d, dir, id, root);
	close(lock);
	if (ok)
		*removed = root;
	return ok;
}
