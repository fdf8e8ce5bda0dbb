/* provision_pypi.c: the PyPI source: a CUDA 13 toolkit assembled from NVIDIA's pinned wheels
 * (pip downloads them with --require-hashes), laid out like NVIDIA's installers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/os-file.h"
#include "base/os-run.h"
#include "base/strbuf.h"
#include "standards/tags.h"
#include "standards/wheel_read.h"
#include "toolchain/provision_internal.h"

/* What `nvcc -c` and `nvcc -shared -cudart static` need, relative to the toolkit's root, and
 * the wheel that brings each. */
static const struct provision_piece pypi_pieces[] = {
    {"bin/nvcc", "nvidia-cuda-nvcc", true},
    {"bin/nvcc.profile", "nvidia-cuda-nvcc", false},
    {"bin/cudafe++", "nvidia-cuda-nvcc", true},
    {"bin/ptxas", "nvidia-cuda-nvcc", true},
    {"bin/fatbinary", "nvidia-cuda-nvcc", true},
    {"bin/nvlink", "nvidia-cuda-nvcc", true},
    {"bin/crt/link.stub", "nvidia-cuda-nvcc", false},
    {"nvvm/bin/cicc", "nvidia-nvvm", true},
    {"nvvm/libdevice/libdevice.10.bc", "nvidia-nvvm", false},
    {"include/crt/host_config.h", "nvidia-cuda-crt", false},
    {"include/cuda_runtime.h", "nvidia-cuda-runtime", false},
    {"lib64/libcudart_static.a", "nvidia-cuda-runtime", false},
    {"lib64/libcudadevrt.a", "nvidia-cuda-runtime", false},
    {"include/cccl/cuda/std/version", "nvidia-cuda-cccl", false},
    {"include/cccl/thrust/version.h", "nvidia-cuda-cccl", false},
    {"include/cccl/cub/version.cuh", "nvidia-cuda-cccl", false},
};

/* Where a file of the wheels' nvidia/cuNN/ tree goes in a toolkit root: lib/ becomes lib64/
 * (where nvcc.profile's -L points), libnvvm goes to nvvm/lib64/ as in NVIDIA's installers, the
 * packaging scan reports in .metadata/ dirs are dropped. NULL: drop it. */
static char *layout_path(struct arena *a, const char *rel)
{
	if (strncmp(rel, ".metadata/", 10) == 0 || strstr(rel, "/.metadata/"))
		return NULL;
	if (strncmp(rel, "lib/", 4) == 0) {
		const char *rest = rel + 4;
		if (strncmp(rest, "libnvvm", 7) == 0 && !strchr(rest, '/'))
			return arena_printf(a, "nvvm/lib64/%s", rest);
		return arena_printf(a, "lib64/%s", rest);
	}
	return arena_strdup(a, rel);
}

/* Moves the files under src (relative path rel) into the toolkit root, renaming as
 * layout_path says. Two wheels may not bring the same file. */
static bool merge_tree(struct arena *a, struct diag *d, const char *src, const char *rel,
                       const char *root, const char *wheel)
{
	struct strv ents = {0};
	if (!os_list_dir(a, src, &ents)) {
		diag_errno(d, src, "cannot list");
		return false;
	}
	for (size_t i = 0; i < ents.n; i++) {
		char *path = os_join(a, src, ents.v[i]);
		char *r = rel[0] ? os_join(a, rel, ents.v[i]) : arena_strdup(a, ents.v[i]);
		struct os_stat st;
		if (!os_lstat(path, &st)) {
			diag_errno(d, path, "cannot stat");
			return false;
		}
		if (st.kind == OS_KIND_DIR) {
			if (!merge_tree(a, d, path, r, root, wheel))
				return false;
			continue;
		}
		char *to_rel = layout_path(a, r);
		if (!to_rel)
			continue;
		char *to = os_join(a, root, to_rel);
		char *parent = arena_strndup(a, to, (size_t)(strrchr(to, '/') - to));
		if (!os_mkdir_p(d, parent))
			return false;
		if (os_exists(to)) {
			diag_path(d, DIAG_ERROR, wheel,
			          "%s is also in another of the toolkit's "
			          "wheels",
			          r);
			return false;
		}
		if (!os_rename(path, to)) {
			diag_errno(d, to, "cannot move into place");
			return false;
		}
	}
	return true;
}

/* Adds libX.so -> libX.so.N for each versioned library in dir that has no plain name, as
 * NVIDIA's installers do (so that -lcudart and dlopen("libnvvm.so") work). */
static bool add_dev_links(struct arena *a, struct diag *d, const char *dir)
{
	struct strv ents = {0};
	if (!os_list_dir(a, dir, &ents))
		return true;
	for (size_t i = 0; i < ents.n; i++) {
		const char *so = strstr(ents.v[i], ".so.");
		if (!so || strchr(so + 4, '.'))
			continue; /* only libX.so.N, the soname */
		char *plain = arena_strndup(a, ents.v[i], (size_t)(so - ents.v[i]) + 3);
		char *link = os_join(a, dir, plain);
		if (os_exists(link))
			continue;
		if (!os_symlink(ents.v[i], link)) {
			diag_errno(d, link, "cannot create symlink");
			return false;
		}
	}
	return true;
}

bool provision_pip_download(struct arena *a, struct diag *d, const struct provision_opts *o,
                            const struct provision_set *s, const char *python, const char *req,
                            const char *dest)
{
	struct strbuf rq = {0};
	int64_t total = 0;
	for (size_t i = 0; i < s->n_pkgs; i++) {
		sb_printf(&rq, "%s==%s --hash=sha256:%s\n", s->pkgs[i].name, s->pkgs[i].version,
		          s->pkgs[i].sha256);
		total += s->pkgs[i].size > 0 ? s->pkgs[i].size : 0;
	}
	bool ok = os_write_atomic(d, req, rq.buf, rq.len, 0644);
	sb_release(&rq);
	if (!ok)
		return false;
	struct strv argv = {0};
	const char *fixed[] = {python,
	                       "-m",
	                       "pip",
	                       "download",
	                       "--no-deps",
	                       "--only-binary=:all:",
	                       "--require-hashes",
	                       "--progress-bar",
	                       "off",
	                       "--disable-pip-version-check",
	                       "--dest",
	                       dest,
	                       "-r",
	                       req};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		strv_push(a, &argv, fixed[i]);
	/* The platform tags are the pinned files' own, so pip takes exactly those files whatever
	 * the host (and whichever manylinux tags NVIDIA uses next). */
	struct strv plats = {0};
	for (size_t i = 0; i < s->n_pkgs; i++) {
		const char *f = s->pkgs[i].filename, *dash = strrchr(f, '-');
		size_t n = strlen(f);
		if (!dash || n < 4 || strcmp(f + n - 4, ".whl") != 0)
			continue;
		char *tags = arena_strndup(a, dash + 1, (size_t)(f + n - 4 - dash - 1));
		for (char *sv, *t = strtok_r(tags, ".", &sv); t; t = strtok_r(NULL, ".", &sv))
			if (!strv_contains(&plats, t)) {
				strv_push(a, &plats, t);
				strv_push(a, &argv, "--platform");
				strv_push(a, &argv, t);
			}
	}
	/* A CPython wheel (torch's cp313-cp313): pip takes its Python and ABI as given, not the
	 * interpreter's that runs it. */
	for (size_t i = 0; i < s->n_pkgs; i++) {
		struct wheel_name wn;
		const char *err;
		struct python_tag pt;
		if (!wheel_filename_parse(a, s->pkgs[i].filename, &wn, &err) || !wn.n_tags ||
		    !tag_python_parse(wn.tags[0].python, &pt) || pt.kind != 'c' || pt.minor < 0)
			continue;
		const char *fixed_py[] = {"--python-version",
		                          arena_printf(a, "%d.%d", pt.major, pt.minor),
		                          "--implementation",
		                          "cp",
		                          "--abi",
		                          wn.tags[0].abi};
		for (size_t k = 0; k < sizeof(fixed_py) / sizeof(*fixed_py); k++)
			strv_push(a, &argv, fixed_py[k]);
		break;
	}
	if (o->wheels_dir) {
		strv_push(a, &argv, "--no-index");
		strv_push(a, &argv, "--find-links");
		strv_push(a, &argv, o->wheels_dir);
	}
	strv_push(a, &argv, NULL);
	diag_msg(d, DIAG_NOTE, "downloading %zu wheels (%.0f MB) for %s %s from %s", s->n_pkgs,
	         (double)total / 1e6, strcmp(s->pkgs[0].name, "torch") ? "CUDA" : "torch",
	         s->version, o->wheels_dir ? o->wheels_dir : "PyPI");
	struct os_run r = {.argv = argv.v, .capture = true};
	struct strbuf out = {0};
	int status;
	ok = os_run(d, &r, &out, &status);
	if (ok && status != 0) {
		/* pip's own explanation is in its last lines (hash mismatch, no such version). */
		const char *text = sb_str(&out);
		const char *tail = text + out.len;
		for (int lines = 0; tail > text; tail--)
			if (tail[-1] == '\n' && ++lines > 12)
				break;
		diag_msg(d, DIAG_ERROR, "pip could not download the CUDA %s wheels (exit %d): %s",
		         s->version, status, os_argv_str(a, argv.v));
		diag_msg(d, DIAG_NOTE, "pip said:\n%s", tail);
		ok = false;
	}
	sb_release(&out);
	return ok;
}

static bool pypi_assemble(struct arena *a, struct diag *d, const struct provision_opts *o,
                          const struct provision_set *s, const char *staging)
{
	const char *python = o->python ? o->python : provision_python(a, o->env);
	if (!python) {
		diag_msg(d, DIAG_ERROR,
		         "cannot provision CUDA %s: no python3 with pip found to "
		         "download the wheels",
		         s->version);
		diag_msg(d, DIAG_HINT, "set CUWHEEL_PYTHON to a python that has pip");
		return false;
	}
	char *wheels = os_join(a, staging, ".wheels");
	char *unpack = os_join(a, staging, ".unpack");
	char *req = os_join(a, staging, ".requirements.txt");
	if (!os_mkdir_p(d, wheels) || !provision_pip_download(a, d, o, s, python, req, wheels))
		return false;
	char *sub = arena_printf(a, "nvidia/cu%d", s->major);
	for (size_t i = 0; i < s->n_pkgs; i++) {
		char *whl = os_join(a, wheels, s->pkgs[i].filename);
		char *dest = arena_printf(a, "%s/%zu", unpack, i);
		if (!os_exists(whl)) {
			diag_path(d, DIAG_ERROR, whl, "pip did not download the pinned wheel");
			return false;
		}
		if (!wheel_extract(a, d, whl, dest, NULL))
			return false;
		char *tree = os_join(a, dest, sub);
		if (!os_is_dir(tree)) {
			diag_path(d, DIAG_ERROR, s->pkgs[i].filename,
			          "has no %s/ tree; cuwheel "
			          "does not know how to assemble it",
			          sub);
			return false;
		}
		if (!merge_tree(a, d, tree, "", staging, s->pkgs[i].filename))
			return false;
	}
	if (!os_rm_rf(d, unpack) || !os_rm_rf(d, wheels) || !os_rm_rf(d, req))
		return false;
	/* NVIDIA's installers keep lib -> lib64 too; nvcc.profile names $(TOP)/lib in
	 * LD_LIBRARY_PATH and $(TOP)/lib64 in -L. The stock nvcc.profile is already relative to
	 * nvcc ($(_HERE_)) and needs no change once the layout is the installers'. */
	char *lib = os_join(a, staging, "lib");
	if (!os_exists(lib) && !os_symlink("lib64", lib)) {
		diag_errno(d, lib, "cannot create symlink");
		return false;
	}
	if (!add_dev_links(a, d, os_join(a, staging, "lib64")) ||
	    !add_dev_links(a, d, os_join(a, staging, "nvvm/lib64")))
		return false;
	return provision_check_root(a, d, staging, s, pypi_pieces,
	                            sizeof(pypi_pieces) / sizeof(pypi_pieces[0]));
}

/* The lock's top-level "toolkits" array: each {version, packages: [wheel...]}. */
static bool pypi_lock_read(struct arena *a, struct diag *d, const char *path, json_t *root,
                           struct provision_lock *out)
{
	json_t *sets = json_object_get(root, "toolkits");
	if (!json_is_array(sets)) {
		diag_path(d, DIAG_ERROR, path, "\"toolkits\" must be an array");
		return false;
	}
	size_t n = json_array_size(sets);
	out->sets = arena_realloc(a, out->sets, out->n_sets, out->n_sets + n, sizeof(*out->sets));
	for (size_t i = 0; i < n; i++) {
		json_t *t = json_array_get(sets, i);
		struct provision_set *s = &out->sets[out->n_sets];
		json_t *pkgs = json_object_get(t, "packages");
		if (!provision_set_version(a, s, provision_jstr(t, "version")) ||
		    !json_is_array(pkgs) || json_array_size(pkgs) == 0) {
			diag_path(d, DIAG_ERROR, path,
			          "toolkits[%zu]: needs a MAJOR.MINOR.PATCH "
			          "\"version\" and a non-empty \"packages\" array",
			          i);
			return false;
		}
		s->source = PROVISION_PYPI;
		if (!provision_set_pkgs(a, d, path, "toolkits", i, pkgs, false, s))
			return false;
		out->n_sets++;
	}
	return true;
}

static const char *pypi_name(struct arena *a, const struct provision_set *s)
{
	return "PyPI";
}

static const char *pypi_marker(struct arena *a, const struct provision_opts *o,
                               const struct provision_set *s)
{
	return o->wheels_dir ? o->wheels_dir : "pypi";
}

const struct provision_source_ops provision_pypi = {
    .id = PROVISION_PYPI,
    .lock_read = pypi_lock_read,
    .name = pypi_name,
    .marker = pypi_marker,
    .assemble = pypi_assemble,
};
