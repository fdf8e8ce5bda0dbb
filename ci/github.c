/* github.c: the GitHub Actions workflow of a plan: its legs, the header, and the job list
 * (github_jobs.c writes the jobs). */
#include "ci/github.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "base/strbuf.h"
#include "ci/github_internal.h"
#include "ci/yaml.h"
#include "ci/torch_builds.h"
#include "kernels/kernels_key.h"
#include "standards/platform.h"

/* Where GitHub builds each platform of standards/platform.h; one without a row (win_arm64:
 * NVIDIA ships no CUDA toolkit for it) is left out of the workflow with a warning. */
static const struct platform_info runners[] = {
    {"linux_x86_64", "x86_64", "x86_64", "ubuntu-22.04", "ubuntu-24.04", false, false},
    {"linux_aarch64", "sbsa", "aarch64", "ubuntu-22.04-arm", "ubuntu-24.04-arm", false, false},
    {"win_amd64", "", "", "windows-2022", "windows-2022", true, false},
};
/* [tool.cuwheel.ci] aarch64 = "cross": the linux_aarch64 cells on an x86_64 runner, no
 * container (the cross parts are Debian's and NVIDIA's binaries for an x86_64 glibc host). */
static const struct platform_info cross_aarch64 = {
    "linux_aarch64", "sbsa", "aarch64", "ubuntu-24.04", "ubuntu-24.04", false, true};

/* NVIDIA's packages of a CUDA release, by full version, as its rhel8 and ubuntu2204 network
 * repositories name them (cuda-nvcc-12-4-12.4.131-1, cuda-cudart-devel-12-4-12.4.127-1; on
 * Ubuntu cuda-cudart-dev-12-4=12.4.127-1). The same versions NVIDIA's release builds and the
 * PyTorch/xformers wheel scripts install. Other minors get the minor's newest, with a warning. */
static const struct {
	const char *minor, *nvcc, *cudart;
} cuda_packages[] = {
    {"11.8", "11.8.89", "11.8.89"}, {"12.4", "12.4.131", "12.4.127"},
    {"12.6", "12.6.77", "12.6.77"}, {"12.8", "12.8.93", "12.8.90"},
    {"13.0", "13.0.88", "13.0.96"},
};

/* Returns the short digest (12 hex digits) of the kernel settings that change the archives
 * (sources, flags, archs, cudart, rdc): the flags part of artifact and cache keys. */
static char *ci_kernel_flags_key(struct arena *a, const struct config *cfg)
{
	struct strbuf sb = {0};
	const struct kernels_cfg *k = &cfg->kernels;
	sb_printf(&sb, "ci1\n%s\n", k->archs_text ? k->archs_text : "");
	kernels_key_settings(&sb, k);
	char *hex = kernels_key_digest(a, &sb);
	sb_release(&sb);
	return hex;
}

static const struct platform_info *runner_find(const char *platform)
{
	const struct platform *pl = platform_find(platform);
	for (size_t i = 0; pl && i < sizeof(runners) / sizeof(*runners); i++)
		if (!strcmp(runners[i].platform, pl->tag) && runners[i].windows == pl->windows)
			return &runners[i];
	return NULL;
}

static char *replace_char(struct arena *a, const char *s, char from, const char *to)
{
	struct strbuf sb = {0};
	for (; *s; s++) {
		if (*s == from)
			sb_puts(&sb, to);
		else
			sb_putc(&sb, *s);
	}
	return sb_to_arena(&sb, a);
}

/* The CUDA packages of a Linux leg installed from NVIDIA's rpm or apt repository. */
static const char *leg_packages(struct emit *e, const struct leg *l)
{
	bool rpm = !strcmp(l->toolkit, "rpm");
	for (size_t i = 0; i < sizeof(cuda_packages) / sizeof(*cuda_packages); i++) {
		if (strcmp(cuda_packages[i].minor, l->cuda))
			continue;
		return rpm ? arena_printf(e->a, "cuda-nvcc-%s-%s-1 cuda-cudart-devel-%s-%s-1",
		                          l->dash, cuda_packages[i].nvcc, l->dash,
		                          cuda_packages[i].cudart)
		           : arena_printf(e->a, "cuda-nvcc-%s=%s-1 cuda-cudart-dev-%s=%s-1",
		                          l->dash, cuda_packages[i].nvcc, l->dash,
		                          cuda_packages[i].cudart);
	}
	diag_msg(e->d, DIAG_WARNING,
	         "CUDA %s: no pinned package versions known, the workflow installs the minor's "
	         "newest (cuda-nvcc-%s)",
	         l->cuda, l->dash);
	return arena_printf(e->a, "cuda-nvcc-%s cuda-cudart-%s-%s", l->dash, rpm ? "devel" : "dev",
	                    l->dash);
}

/* The newest gcc-toolset of AlmaLinux 8 that nvcc X.Y accepts as its host compiler (its
 * crt/host_config.h): 11.x up to gcc 11, 12.0-12.3 up to 12, 12.4-12.7 up to 13; from 12.8 the
 * image's own (gcc 14). */
static const char *leg_gcc(const struct leg *l)
{
	if (l->major < 12)
		return "11";
	if (l->major == 12 && l->minor < 4)
		return "12";
	if (l->major == 12 && l->minor < 8)
		return "13";
	return "";
}

/* Groups the selected cells by (platform, toolkit), in plan order. */
static bool make_legs(struct emit *e, struct ci_github_stats *st)
{
	const struct plan *p = e->p;
	e->legs = arena_calloc(e->a, p->n_cells + 1, sizeof(*e->legs));
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct cell *c = &p->cells[i];
		if (!c->selected)
			continue;
		const struct platform_info *pi = runner_find(c->platform);
		if (pi && e->o->aarch64_cross && !strcmp(pi->platform, cross_aarch64.platform))
			pi = &cross_aarch64;
		if (pi && pi->cross && !gh_cross_cell(e, c, NULL)) {
			st->n_skipped++;
			continue;
		}
		if (!pi) {
			diag_msg(e->d, DIAG_WARNING,
			         "%s left out of the workflow: NVIDIA ships no CUDA toolkit for %s",
			         c->id, c->platform);
			st->n_skipped++;
			continue;
		}
		struct leg *l = NULL;
		for (size_t k = 0; k < e->n_legs && !l; k++)
			if (e->legs[k].pi == pi && !strcmp(e->legs[k].cuda, c->cuda))
				l = &e->legs[k];
		if (!l) {
			l = &e->legs[e->n_legs++];
			l->pi = pi;
			l->cuda = c->cuda;
			l->nodot = replace_char(e->a, c->cuda, '.', "");
			l->dash = replace_char(e->a, c->cuda, '.', "-");
			l->major = atoi(c->cuda);
			l->minor = strchr(c->cuda, '.') ? atoi(strchr(c->cuda, '.') + 1) : 0;
			l->cells = arena_calloc(e->a, p->n_cells + 1, sizeof(*l->cells));
			l->id = arena_printf(e->a, "cu%s-%s", l->nodot, pi->platform);
			l->gcc = "";
			if (pi->windows)
				l->toolkit = "network";
			else if (pi->cross)
				l->toolkit = "cuwheel"; /* its toolkit lock: PyPI's or Debian's */
			else if (!strcmp(pi->platform, "linux_x86_64") && e->o->pypi_cuda &&
			         strv_contains(e->o->pypi_cuda, c->cuda))
				l->toolkit = "pypi";
			else
				l->toolkit = *e->image ? "rpm" : "apt";
			if (!strcmp(l->toolkit, "rpm") || !strcmp(l->toolkit, "apt"))
				l->packages = leg_packages(e, l);
			if (*e->image && !pi->cross)
				l->gcc = leg_gcc(l);
		}
		if (pi->cross)
			gh_cross_cell(e, c, &l->parts);
		l->cells[l->n++] = i;
		st->n_cells++;
	}
	if (e->n_legs == 0) {
		diag_msg(e->d, DIAG_ERROR, "no selected cell can be built on a GitHub runner");
		return false;
	}
	return true;
}

static void header(struct emit *e, struct ci_github_stats *st)
{
	struct strbuf *sb = &e->sb;
	const struct config *cfg = e->p->cfg;
	sb_printf(
	    sb,
	    "# Written by `cuwheel ci github` for %s %s: %zu cells in %zu legs (one per OS\n"
	    "# and CUDA toolkit). Regenerate it rather than edit it. Each leg is its own "
	    "chain:\n"
	    "#   Linux:   kernels-LEG -> wheels-LEG%s\n"
	    "#   Windows: wingraph-LEG (Linux) -> winbuild-LEG (Windows) -> winpack-LEG "
	    "(Linux)\n"
	    "#            -> wintest-LEG (Windows)\n"
	    "# so a failing leg loses only its own cells. The index job runs after every leg\n"
	    "# whatever it did: it publishes the wheels that exist, lists the missing cells\n"
	    "# and why, and then fails the run if any cell is missing.\n",
	    cfg->project.name, cfg->project.version, st->n_cells, e->n_legs,
	    e->o->gpu_label ? " -> test-LEG (GPU)" : "");
	sb_puts(sb, "#\n# Actions are pinned by commit; the comment beside each is its tag.\n");
	sb_puts(sb, "name: wheels\n\non:\n");
	sb_puts(sb, "  # Pushes to the default branch save the compile caches that tags and pull\n"
	            "  # requests restore (a run restores caches of its own ref or the default "
	            "branch).\n");
	sb_puts(sb, "  push:\n    branches:\n      - main\n      - master\n    tags:\n"
	            "      - \"v*\"\n  pull_request:\n  workflow_dispatch:\n\n"
	            "permissions: {}\n\n"
	            "concurrency:\n  group: \"${{ github.workflow_ref }}\"\n"
	            "  cancel-in-progress: ${{ github.event_name == 'pull_request' }}\n\n");
	sb_puts(sb, "env:\n");
	yaml_comment(sb, 2,
	             "The CUDA axis as expanded when this file was written (\"13.*\" matches");
	yaml_comment(sb, 2,
	             "what a runner has installed; pin it so every runner plans the same cells).");
	struct strbuf cu = {0};
	for (size_t i = 0; i < e->p->n_toolkits; i++)
		sb_printf(&cu, "%s%s", i ? " " : "", e->p->toolkits[i].cuda);
	yaml_kv(sb, 2, "CUWHEEL_MATRIX_CUDA", sb_to_arena(&cu, e->a));
	for (size_t i = 0; i < e->o->n_pins; i++) {
		if (!i) {
			yaml_comment(sb, 2,
			             "The overrides the environment of `cuwheel ci github` set, so "
			             "every job");
			yaml_comment(
			    sb, 2, "plans the cells, wheels and flags this file was written for.");
		}
		yaml_kv(sb, 2, e->o->pins[i].name, e->o->pins[i].value);
	}
	const struct ci_cuwheel *cw = &e->o->cuwheel;
	if (cw->git) {
		yaml_comment(sb, 2,
		             "cuwheel, built in each job from its repository at this commit");
		yaml_comment(sb, 2, "([tool.cuwheel.ci] cuwheel = {git = URL, rev = COMMIT}).");
		yaml_kv(sb, 2, "CUWHEEL_GIT", cw->git);
		yaml_kv(sb, 2, "CUWHEEL_REV", cw->rev);
	} else {
		yaml_comment(sb, 2, "cuwheel's wheel, installed only if its sha256 matches");
		yaml_comment(sb, 2, "([tool.cuwheel.ci] cuwheel = {url = URL, sha256 = DIGEST}).");
		yaml_kv(sb, 2, "CUWHEEL_WHEEL", cw->url);
		yaml_kv(sb, 2, "CUWHEEL_SHA256", cw->sha256);
	}
	yaml_kv(sb, 2, "NINJA_VERSION", CI_NINJA_VERSION);
	const struct ci_source *src = &e->o->src;
	yaml_comment(sb, 2, "The project, relative to the repository's root: its directory, the");
	yaml_comment(sb, 2, "config beside it (--config), the sdist it is built from, the wheels.");
	yaml_kv(sb, 2, "PROJECT", src->project);
	yaml_kv(sb, 2, "CONFIG", src->config ? src->config : "");
	yaml_kv(sb, 2, "SDIST", src->sdist ? src->sdist : "");
	yaml_kv(sb, 2, "DIST", src->dist);
	if (src->sdist && !src->sdist_committed) {
		yaml_comment(
		    sb, 2,
		    "The sdist comes from this index (PEP 503), checked against its sha256.");
		yaml_kv(sb, 2, "SDIST_INDEX", CI_PYPI_SIMPLE);
		yaml_kv(sb, 2, "SDIST_PROJECT", src->sdist_proj);
		yaml_kv(sb, 2, "SDIST_FILE", src->sdist_name);
		yaml_kv(sb, 2, "SDIST_SHA256", src->sdist_sha256);
	}
	if (e->torch) {
		yaml_comment(sb, 2, "torch: PyPI for each release's default CUDA build, PyTorch's");
		yaml_comment(sb, 2, "per-CUDA index for the others (ci/torch_builds.def).");
		yaml_kv(sb, 2, "PYPI_INDEX", CI_PYPI_SIMPLE);
		yaml_kv(sb, 2, "TORCH_INDEX", CI_TORCH_INDEX);
	}
	yaml_comment(
	    sb, 2, "Two generations of every leg's compile cache fit the 10 GB repository quota.");
	yaml_kv(sb, 2, "CCACHE_MAXSIZE", e->ccache_max);
	sb_puts(sb, "\ndefaults:\n  run:\n    shell: bash\n\njobs:\n");
}

/* A remote URL with a user or password must not be written into the repository. */
static bool has_credentials(const char *url)
{
	const char *auth = strstr(url, "://");
	auth = auth ? auth + 3 : url;
	size_t n = strcspn(auth, "/|");
	return memchr(auth, '@', n) != NULL || strstr(url, "password") != NULL;
}

/* The jobs install torch (each cell's build); pybind11 they do not. */
static void warn_site_packages(struct emit *e)
{
	const struct config *cfg = e->p->cfg;
	bool pybind11 = false;
	for (size_t i = 0; i < cfg->n_extensions; i++)
		pybind11 |= cfg->extensions[i].kind == EXT_PYBIND11;
	if (!pybind11)
		return;
	diag_msg(e->d, DIAG_WARNING,
	         "the workflow installs no pybind11 on the runners: its wheel jobs build with the "
	         "runners' Pythons as they come");
	diag_msg(e->d, DIAG_HINT,
	         "add a step before `cuwheel build` in the wheel (and kernel) jobs that installs "
	         "pybind11 for each Python");
}

bool ci_github_emit(struct arena *a, struct diag *d, const struct plan *p,
                    const struct ci_github_opts *o, char **out, struct ci_github_stats *st)
{
	memset(st, 0, sizeof(*st));
	struct emit e = {.a = a, .d = d, .p = p, .o = o};
	e.key = ci_kernel_flags_key(a, p->cfg);
	e.image = o->container ? o->container : CI_DEFAULT_CONTAINER;
	e.dist = o->src.dist;
	const char *remote = p->cfg->cache.remote;
	if (remote && *remote) {
		if (has_credentials(remote)) {
			diag_msg(
			    d, DIAG_WARNING,
			    "[tool.cuwheel.cache] remote holds credentials: the workflow reads "
			    "it from the secret CUWHEEL_CCACHE_REMOTE instead");
			diag_msg(d, DIAG_HINT,
			         "gh secret set CUWHEEL_CCACHE_REMOTE, and keep the "
			         "URL out of pyproject.toml");
			e.remote = "${{ secrets.CUWHEEL_CCACHE_REMOTE }}";
		} else {
			/* The secret, when set, wins: a public repository may not want its
			 * cache host in the file. */
			char *quoted = replace_char(a, remote, '\'', "''");
			e.remote =
			    arena_printf(a, "${{ secrets.CUWHEEL_CCACHE_REMOTE || '%s' }}", quoted);
		}
	}
	if (!make_legs(&e, st))
		return false;
	for (size_t i = 0; i < e.n_legs; i++) {
		struct leg *l = &e.legs[i];
		for (size_t k = 0; k < l->n; k++)
			l->torch |= p->cells[l->cells[k]].torch != NULL;
		e.torch |= l->torch;
		if (o->per_cell && !l->pi->windows && l->n > CI_GITHUB_MAX_MATRIX) {
			diag_msg(
			    d, DIAG_ERROR,
			    "leg %s has %zu cells: --per-cell would make a matrix of %zu jobs, "
			    "GitHub runs at most %d per matrix",
			    l->id, l->n, l->n, CI_GITHUB_MAX_MATRIX);
			diag_msg(d, DIAG_HINT, "drop --per-cell (one wheel job per leg)");
			return false;
		}
	}
	warn_site_packages(&e);
	/* GitHub evicts a repository's caches past 10 GB: each Linux leg keeps its newest entry
	 * and the one being replaced within 9 GiB, at most 2 GiB each. */
	size_t n_linux = 0;
	for (size_t i = 0; i < e.n_legs; i++)
		n_linux += !e.legs[i].pi->windows;
	size_t mib = n_linux ? 9 * 1024 / (2 * n_linux) : 2048;
	e.ccache_max = arena_printf(a, "%zuM", mib > 2048 ? (size_t)2048 : mib);
	st->n_legs = e.n_legs;
	header(&e, st);
	for (size_t i = 0; i < e.n_legs; i++) {
		if (e.legs[i].pi->windows)
			gh_windows_leg(&e, &e.legs[i]);
		else {
			gh_linux_leg(&e, &e.legs[i]);
			gh_shared_tests(&e, &e.legs[i]);
		}
	}
	gh_index_job(&e);
	gh_publish_jobs(&e);
	st->n_jobs = e.n_jobs;
	*out = sb_to_arena(&e.sb, a);
	size_t bytes = strlen(*out);
	if (bytes > CI_GITHUB_MAX_BYTES) {
		diag_msg(d, DIAG_ERROR,
		         "the workflow would be %zu bytes (%zu cells, %zu jobs): GitHub does not "
		         "start a workflow file over %d bytes",
		         bytes, st->n_cells, st->n_jobs, CI_GITHUB_MAX_BYTES);
		diag_msg(d, DIAG_HINT,
		         "write one workflow per platform or toolkit (CUWHEEL_MATRIX_PLATFORM=... "
		         "or CUWHEEL_MATRIX_CUDA=... with -o .github/workflows/wheels-NAME.yml)%s",
		         o->per_cell ? ", or drop --per-cell" : "");
		return false;
	}
	return true;
}
