/* github.c: writes the GitHub Actions workflow of a plan as YAML, by hand, deterministically:
 * every scalar that YAML could read as something else is double-quoted. */
#include "ci/github.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "base/strbuf.h"
#include "matrix/kernels_key.h"

/* Pinned to major versions (or, for actions without a major tag, to a release). */
#define ACT_CHECKOUT "actions/checkout@v4"
#define ACT_PYTHON   "actions/setup-python@v5"
#define ACT_UPLOAD   "actions/upload-artifact@v4"
#define ACT_DOWNLOAD "actions/download-artifact@v4"
#define ACT_CACHE    "actions/cache@v4"
#define ACT_MSVC     "ilammy/msvc-dev-cmd@v1"
#define ACT_CUDA_WIN "Jimver/cuda-toolkit@v0.2.36"

/* Where each platform's cells are built. Linux runners are Ubuntu 22.04: glibc 2.35, so the
 * audit stamps manylinux_2_35 at best (NVIDIA's apt repository has 11.8 to 13.x for it). */
struct platform_info {
	const char *platform, *runner, *apt_arch;
	bool windows;
};
static const struct platform_info platforms[] = {
    {"linux_x86_64", "ubuntu-22.04", "x86_64", false},
    {"linux_aarch64", "ubuntu-22.04-arm", "sbsa", false},
    {"win_amd64", "windows-2022", "", true},
};

/* The newest release of each CUDA minor that Jimver/cuda-toolkit's network installer knows. */
static const struct {
	const char *minor, *full;
} windows_cuda[] = {
    {"11.8", "11.8.0"}, {"12.0", "12.0.1"}, {"12.1", "12.1.1"}, {"12.2", "12.2.2"},
    {"12.3", "12.3.2"}, {"12.4", "12.4.1"}, {"12.5", "12.5.1"}, {"12.6", "12.6.3"},
    {"12.8", "12.8.1"}, {"12.9", "12.9.1"}, {"13.0", "13.0.1"}, {"13.1", "13.1.2"},
    {"13.2", "13.2.2"}, {"13.3", "13.3.1"},
};

/* One (platform, toolkit): one kernels job; its cells. */
struct group {
	const struct platform_info *pi;
	const char *cuda, *nodot, *dash;
	int major, minor;
	size_t *cells;
	size_t n;
	const char *artifact; /* kernels artifact */
	const char *toolkit;  /* "apt", "pypi" or "network" */
};

struct emit {
	struct arena *a;
	struct diag *d;
	const struct plan *p;
	const struct ci_github_opts *o;
	struct strbuf sb;
	struct group *groups;
	size_t n_groups;
	const char *key;    /* kernel flags key */
	const char *remote; /* the CUWHEEL_CACHE_REMOTE expression, or NULL */
	const char *dist;   /* dist dir relative to the project */
	bool any_windows;   /* some group builds on Windows */
};

char *ci_kernel_flags_key(struct arena *a, const struct config *cfg)
{
	struct strbuf sb = {0};
	const struct kernels_cfg *k = &cfg->kernels;
	sb_printf(&sb, "ci1\n%s\n", k->archs_text ? k->archs_text : "");
	kernels_key_settings(&sb, k);
	char *hex = kernels_key_digest(a, &sb);
	sb_release(&sb);
	return hex;
}

/* YAML 1.1 and 1.2 read these plain words as booleans or null. */
static bool y_reserved(const char *s)
{
	static const char *const words[] = {"y",   "n",    "yes",   "no",   "on",
	                                    "off", "true", "false", "null", "~"};
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (!strcasecmp(s, words[i]))
			return true;
	return false;
}

/* Plain only for words that start with a letter and hold [A-Za-z0-9_./@-]: never a number,
 * a boolean, an alias, a comment or a mapping. */
static bool y_plain_ok(const char *s)
{
	if (!s[0] || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || strchr("_./@-", *c)))
			return false;
	return !y_reserved(s);
}

static void y_scalar(struct strbuf *sb, const char *s)
{
	if (y_plain_ok(s)) {
		sb_puts(sb, s);
		return;
	}
	sb_putc(sb, '"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			sb_printf(sb, "\\%c", *c);
		else if (*c == '\n')
			sb_puts(sb, "\\n");
		else if (*c == '\t')
			sb_puts(sb, "\\t");
		else if (*c < 0x20 || *c == 0x7f)
			sb_printf(sb, "\\x%02x", *c);
		else
			sb_putc(sb, (char)*c);
	}
	sb_putc(sb, '"');
}

/* "key: value" at indent ind (spaces). */
static void y_kv(struct strbuf *sb, int ind, const char *key, const char *val)
{
	sb_printf(sb, "%*s%s: ", ind, "", key);
	y_scalar(sb, val);
	sb_putc(sb, '\n');
}

/* "key: value" with value written as is: numbers and booleans. */
static void y_kv_raw(struct strbuf *sb, int ind, const char *key, const char *val)
{
	sb_printf(sb, "%*s%s: %s\n", ind, "", key, val);
}

static void y_key(struct strbuf *sb, int ind, const char *key)
{
	sb_printf(sb, "%*s%s:\n", ind, "", key);
}

static void y_comment(struct strbuf *sb, int ind, const char *text)
{
	sb_printf(sb, "%*s# %s\n", ind, "", text);
}

/* "run: |" and the script, one line per line, indented under the key. */
static void y_run(struct strbuf *sb, int ind, const char *script)
{
	sb_printf(sb, "%*srun: |\n", ind, "");
	const char *p = script;
	while (*p) {
		size_t n = strcspn(p, "\n");
		if (n)
			sb_printf(sb, "%*s%.*s\n", ind + 2, "", (int)n, p);
		else
			sb_putc(sb, '\n');
		p += n;
		if (*p == '\n')
			p++;
	}
}

/* "- name: NAME" opening a step at indent ind; its keys go at ind + 2. */
static void step(struct strbuf *sb, int ind, const char *name)
{
	sb_printf(sb, "%*s- name: ", ind, "");
	y_scalar(sb, name);
	sb_putc(sb, '\n');
}

static const struct platform_info *platform_find(const char *platform)
{
	for (size_t i = 0; i < sizeof(platforms) / sizeof(*platforms); i++)
		if (!strcmp(platforms[i].platform, platform))
			return &platforms[i];
	return NULL;
}

static const char *windows_full(struct arena *a, const char *minor)
{
	for (size_t i = 0; i < sizeof(windows_cuda) / sizeof(*windows_cuda); i++)
		if (!strcmp(windows_cuda[i].minor, minor))
			return windows_cuda[i].full;
	return arena_printf(a, "%s.0", minor);
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

/* Groups the selected cells by (platform, toolkit), in plan order. */
static bool make_groups(struct emit *e, struct ci_github_stats *st)
{
	const struct plan *p = e->p;
	e->groups = arena_calloc(e->a, p->n_cells + 1, sizeof(*e->groups));
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct cell *c = &p->cells[i];
		if (!c->selected)
			continue;
		const struct platform_info *pi = platform_find(c->platform);
		if (!pi) {
			diag_msg(e->d, DIAG_WARNING,
			         "%s left out of the workflow: NVIDIA ships no CUDA toolkit for %s",
			         c->id, c->platform);
			st->n_skipped++;
			continue;
		}
		struct group *g = NULL;
		for (size_t k = 0; k < e->n_groups && !g; k++)
			if (e->groups[k].pi == pi && !strcmp(e->groups[k].cuda, c->cuda))
				g = &e->groups[k];
		if (!g) {
			g = &e->groups[e->n_groups++];
			g->pi = pi;
			g->cuda = c->cuda;
			g->nodot = replace_char(e->a, c->cuda, '.', "");
			g->dash = replace_char(e->a, c->cuda, '.', "-");
			g->major = atoi(c->cuda);
			g->minor = strchr(c->cuda, '.') ? atoi(strchr(c->cuda, '.') + 1) : 0;
			g->cells = arena_calloc(e->a, p->n_cells + 1, sizeof(*g->cells));
			g->artifact = arena_printf(e->a, "kernels-cu%s-%s-%s", g->nodot,
			                           pi->platform, e->key);
			if (pi->windows)
				g->toolkit = "network";
			else if (!strcmp(pi->platform, "linux_x86_64") && e->o->pypi_cuda &&
			         strv_contains(e->o->pypi_cuda, c->cuda))
				g->toolkit = "pypi";
			else
				g->toolkit = "apt";
		}
		g->cells[g->n++] = i;
		st->n_cells++;
	}
	if (e->n_groups == 0) {
		diag_msg(e->d, DIAG_ERROR, "no selected cell can be built on a GitHub runner");
		return false;
	}
	return true;
}

/* The Pythons of some cells of a group, in plan order, newline-separated for setup-python. */
static const char *pythons_of(struct emit *e, const struct group *g, const size_t *cells, size_t n)
{
	struct strv seen = {0};
	struct strbuf sb = {0};
	(void)g;
	for (size_t i = 0; i < n; i++) {
		const char *py = e->p->cells[cells[i]].python;
		if (strv_contains(&seen, py))
			continue;
		strv_push(e->a, &seen, py);
		sb_printf(&sb, "%s%s", seen.n > 1 ? "\n" : "", py);
	}
	return sb_to_arena(&sb, e->a);
}

/* The matrix keys every job of a group shares (the toolkit and how to install it). */
static void group_keys(struct emit *e, const struct group *g, int ind)
{
	struct strbuf *sb = &e->sb;
	y_kv(sb, ind, "platform", g->pi->platform);
	y_kv(sb, ind, "runner", g->pi->runner);
	y_kv(sb, ind, "cuda", g->cuda);
	y_kv(sb, ind, "cuda_nodot", g->nodot);
	y_kv(sb, ind, "cuda_dash", g->dash);
	y_kv(sb, ind, "toolkit", g->toolkit);
	y_kv(sb, ind, "apt_arch", g->pi->apt_arch);
	y_kv(sb, ind, "cuda_full", g->pi->windows ? windows_full(e->a, g->cuda) : "");
	/* CUDA 13 moved the compiler's headers (crt/host_config.h) out of nvcc's package. */
	y_kv(sb, ind, "cuda_subpackages",
	     !g->pi->windows  ? ""
	     : g->major >= 13 ? "[\"nvcc\", \"cudart\", \"crt\"]"
	                      : "[\"nvcc\", \"cudart\"]");
	bool old = g->major < 12 || (g->major == 12 && g->minor < 4);
	y_kv(sb, ind, "msvc_toolset", g->pi->windows && old ? "14.29" : "");
	y_kv(sb, ind, "kernels", g->artifact);
}

static void header(struct emit *e, struct ci_github_stats *st)
{
	struct strbuf *sb = &e->sb;
	const struct config *cfg = e->p->cfg;
	sb_printf(
	    sb,
	    "# Written by `cuwheel ci github` for %s %s: %zu cells; the kernels are built once\n"
	    "# per (OS, CUDA toolkit), the wheels link against them. Regenerate it rather than\n"
	    "# edit it. Job graph: kernels -> wheels -> %sindex.\n",
	    cfg->project.name, cfg->project.version, st->n_cells,
	    e->o->gpu_label ? "test (GPU) -> " : "");
	if (e->any_windows)
		sb_puts(
		    sb,
		    "# Windows jobs were emitted but never run by cuwheel's own tests: cuwheel\n"
		    "# itself has no Windows port yet (see the README, \"Past one machine\").\n");
	sb_puts(sb, "name: wheels\n\non:\n  push:\n    tags:\n      - \"v*\"\n"
	            "  pull_request:\n  workflow_dispatch:\n\n"
	            "permissions:\n  contents: read\n\n"
	            "concurrency:\n  group: \"wheels-${{ github.ref }}\"\n"
	            "  cancel-in-progress: true\n\n");
	sb_puts(sb, "env:\n");
	y_comment(sb, 2, "The CUDA axis as expanded when this file was written (\"13.*\" matches");
	y_comment(sb, 2,
	          "what a runner has installed; pin it so every runner plans the same cells).");
	struct strbuf cu = {0};
	for (size_t i = 0; i < e->p->n_toolkits; i++)
		sb_printf(&cu, "%s%s", i ? " " : "", e->p->toolkits[i].cuda);
	y_kv(sb, 2, "CUWHEEL_MATRIX_CUDA", sb_to_arena(&cu, e->a));
	sb_puts(sb, "\ndefaults:\n  run:\n    shell: bash\n\njobs:\n");
}

/* Steps that set up a runner: Python (unless python_expr is NULL), build tools, MSVC and CUDA
 * (when cuda), cuwheel. The Windows steps only where a Windows runner may run the job. */
static void setup_steps(struct emit *e, const char *python_expr, bool cuda, bool windows)
{
	struct strbuf *sb = &e->sb;
	const int s = 6, k = 8, w = 10;
	sb_printf(sb, "%*s- uses: %s\n", s, "", ACT_CHECKOUT);
	if (python_expr) {
		sb_printf(sb, "%*s- uses: %s\n", s, "", ACT_PYTHON);
		y_key(sb, k, "with");
		y_kv(sb, w, "python-version", python_expr);
	}
	step(sb, s, "Build tools (Linux)");
	y_kv(sb, k, "if", "runner.os == 'Linux'");
	y_run(
	    sb, k,
	    "sudo apt-get update -q\n"
	    "sudo apt-get install -y -q --no-install-recommends ninja-build ccache pkg-config \\\n"
	    "  libzip-dev zlib1g-dev libssl-dev libelf-dev libjansson-dev");
	if (windows) {
		step(sb, s, "Build tools (Windows)");
		y_kv(sb, k, "if", "runner.os == 'Windows'");
		y_run(sb, k, "choco install -y --no-progress ninja ccache");
	}
	if (cuda && windows) {
		/* nvcc runs cl.exe as its host compiler. CUDA 11.8-12.3 refuse MSVC 19.40 and
		 * later (host_config.h: _MSC_VER >= 1940), and MSVC 14.4x's STL refuses CUDA older
		 * than 12.4: those toolkits get the VS 2019 toolset 14.29 that windows-2022 ships.
		 * 12.4 to 13.x accept MSVC up to 19.4x: windows-2022's own VS 2022 toolset. No
		 * runner with VS 2026 (19.50): no CUDA toolkit accepts it yet. */
		step(sb, s, "MSVC (Windows)");
		y_kv(sb, k, "if", "runner.os == 'Windows'");
		sb_printf(sb, "%*suses: %s\n", k, "", ACT_MSVC);
		y_key(sb, k, "with");
		y_kv(sb, w, "arch", "x64");
		y_kv(sb, w, "toolset", "${{ matrix.msvc_toolset }}");
	}
	if (cuda) {
		step(sb, s, "CUDA ${{ matrix.cuda }} from NVIDIA's apt repository");
		y_kv(sb, k, "if", "matrix.toolkit == 'apt'");
		y_key(sb, k, "env");
		y_kv(sb, w, "APT_ARCH", "${{ matrix.apt_arch }}");
		y_kv(sb, w, "CUDA", "${{ matrix.cuda }}");
		y_kv(sb, w, "CUDA_DASH", "${{ matrix.cuda_dash }}");
		y_run(sb, k,
		      "repo=https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/"
		      "$APT_ARCH\n"
		      "wget -q \"$repo/cuda-keyring_1.1-1_all.deb\"\n"
		      "sudo dpkg -i cuda-keyring_1.1-1_all.deb\n"
		      "sudo apt-get update -q\n"
		      "sudo apt-get install -y -q --no-install-recommends "
		      "\"cuda-toolkit-$CUDA_DASH\"\n"
		      "echo \"/usr/local/cuda-$CUDA/bin\" >> \"$GITHUB_PATH\"");
	}
	if (cuda && windows) {
		/* The network installer fetches only the named components, not the 3 GB toolkit. */
		step(sb, s, "CUDA ${{ matrix.cuda_full }} network installer (Windows)");
		y_kv(sb, k, "if", "matrix.toolkit == 'network'");
		sb_printf(sb, "%*suses: %s\n", k, "", ACT_CUDA_WIN);
		y_key(sb, k, "with");
		y_kv(sb, w, "cuda", "${{ matrix.cuda_full }}");
		y_kv(sb, w, "method", "network");
		y_kv(sb, w, "sub-packages", "${{ matrix.cuda_subpackages }}");
	}
	if (e->o->cuwheel_from_checkout) {
		step(sb, s, "Build cuwheel from this repository");
		y_run(sb, k,
		      "cmake -S . -B \"$RUNNER_TEMP/cuwheel-bin\" -G Ninja "
		      "-DCMAKE_BUILD_TYPE=Release "
		      "-DCUWHEEL_TESTS=OFF\n"
		      "cmake --build \"$RUNNER_TEMP/cuwheel-bin\"\n"
		      "echo \"$RUNNER_TEMP/cuwheel-bin\" >> \"$GITHUB_PATH\"");
	} else {
		step(sb, s, "Check out cuwheel");
		sb_printf(sb, "%*suses: %s\n", k, "", ACT_CHECKOUT);
		y_key(sb, k, "with");
		y_kv(sb, w, "repository", e->o->cuwheel_repo);
		y_kv(sb, w, "ref", e->o->cuwheel_ref);
		y_kv(sb, w, "path", ".cuwheel-src");
		step(sb, s, "Build cuwheel");
		y_run(sb, k,
		      "cmake -S .cuwheel-src -B \"$RUNNER_TEMP/cuwheel-bin\" -G Ninja "
		      "-DCMAKE_BUILD_TYPE=Release -DCUWHEEL_TESTS=OFF\n"
		      "cmake --build \"$RUNNER_TEMP/cuwheel-bin\"\n"
		      "echo \"$RUNNER_TEMP/cuwheel-bin\" >> \"$GITHUB_PATH\"");
	}
	if (cuda) {
		/* The lock file pins the wheels (and their hashes) by which PyPI carries nvcc. */
		step(sb, s, "CUDA ${{ matrix.cuda }} from PyPI (cuwheel toolkit install)");
		y_kv(sb, k, "if", "matrix.toolkit == 'pypi'");
		y_key(sb, k, "env");
		y_kv(sb, w, "CUDA", "${{ matrix.cuda }}");
		y_run(sb, k, "cuwheel toolkit install \"$CUDA\"");
	}
}

/* env: of a job that compiles: ccache's directory and, when configured, its remote storage. */
static void compile_env(struct emit *e)
{
	struct strbuf *sb = &e->sb;
	y_key(sb, 4, "env");
	y_kv(sb, 6, "CCACHE_DIR", "${{ github.workspace }}/.ccache");
	y_kv(sb, 6, "CCACHE_MAXSIZE", "2G");
	if (e->remote) {
		y_comment(sb, 6,
		          "[tool.cuwheel.cache] remote: shared compile cache (ccache remote "
		          "storage).");
		y_kv(sb, 6, "CUWHEEL_CACHE_REMOTE", e->remote);
	}
}

static void kernels_job(struct emit *e, struct ci_github_stats *st)
{
	struct strbuf *sb = &e->sb;
	sb_puts(sb, "  kernels:\n");
	y_kv(sb, 4, "name", "kernels CUDA ${{ matrix.cuda }} ${{ matrix.platform }}");
	y_kv(sb, 4, "runs-on", "${{ matrix.runner }}");
	y_kv_raw(sb, 4, "timeout-minutes", "180");
	sb_puts(sb, "    strategy:\n      fail-fast: false\n      matrix:\n        include:\n");
	for (size_t i = 0; i < e->n_groups; i++) {
		const struct group *g = &e->groups[i];
		const struct cell *first = &e->p->cells[g->cells[0]];
		sb_puts(sb, "          -");
		/* group_keys writes "key: value" lines: the first one goes on the dash's line. */
		struct strbuf item = {0};
		struct strbuf saved = e->sb;
		e->sb = item;
		group_keys(e, g, 12);
		/* One Python suffices: cuwheel plans before it builds, and a cell (hence its
		 * toolkit's archive) is in the graph only when an interpreter for it is found. */
		y_kv(&e->sb, 12, "python", first->python);
		y_kv(&e->sb, 12, "only",
		     arena_printf(e->a, "*-cu%s-%s", g->nodot, g->pi->platform));
		y_kv(&e->sb, 12, "ccache_key",
		     arena_printf(e->a, "ccache-cu%s-%s-%s", g->nodot, g->pi->platform, e->key));
		item = e->sb;
		e->sb = saved;
		sb_puts(&e->sb, sb_str(&item) + 11);
		sb_release(&item);
		st->n_kernels++;
	}
	compile_env(e);
	sb_puts(sb, "    steps:\n");
	setup_steps(e, "${{ matrix.python }}", true, e->any_windows);
	sb_printf(sb, "      - uses: %s\n", ACT_CACHE);
	y_key(sb, 8, "with");
	y_kv(sb, 10, "path", ".ccache");
	y_kv(sb, 10, "key", "${{ matrix.ccache_key }}-${{ github.sha }}");
	y_kv(sb, 10, "restore-keys", "${{ matrix.ccache_key }}-");
	step(sb, 6, "Kernels, once for this toolkit");
	y_key(sb, 8, "env");
	y_kv(sb, 10, "ONLY", "${{ matrix.only }}");
	y_run(sb, 8, "cuwheel build --stage kernels --export kernels-out --only \"$ONLY\"");
	step(sb, 6, "ccache statistics");
	y_kv(sb, 8, "if", "always()");
	y_run(sb, 8, "ccache --show-stats -v || true");
	sb_printf(sb, "      - uses: %s\n", ACT_UPLOAD);
	y_key(sb, 8, "with");
	y_kv(sb, 10, "name", "${{ matrix.kernels }}");
	y_kv(sb, 10, "path", "kernels-out/");
	y_kv(sb, 10, "if-no-files-found", "error");
	y_kv_raw(sb, 10, "retention-days", "7");
	sb_putc(sb, '\n');
}

static const char *ids_of(struct emit *e, const size_t *cells, size_t n)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++)
		sb_printf(&sb, "%s%s", i ? " " : "", e->p->cells[cells[i]].id);
	return sb_to_arena(&sb, e->a);
}

static void wheel_entry(struct emit *e, const struct group *g, const size_t *cells, size_t n,
                        const char *name)
{
	struct strbuf item = {0};
	struct strbuf saved = e->sb;
	e->sb = item;
	y_kv(&e->sb, 12, "name", name);
	group_keys(e, g, 12);
	y_kv(&e->sb, 12, "pythons", pythons_of(e, g, cells, n));
	y_kv(&e->sb, 12, "cells", ids_of(e, cells, n));
	y_kv(&e->sb, 12, "wheels", arena_printf(e->a, "wheels-%s", name));
	item = e->sb;
	e->sb = saved;
	sb_puts(&e->sb, "          -");
	sb_puts(&e->sb, sb_str(&item) + 11);
	sb_release(&item);
}

static void wheels_job(struct emit *e, struct ci_github_stats *st)
{
	struct strbuf *sb = &e->sb;
	sb_puts(sb, "  wheels:\n");
	y_kv(sb, 4, "name", "wheels ${{ matrix.name }}");
	y_kv(sb, 4, "needs", "kernels");
	y_kv(sb, 4, "runs-on", "${{ matrix.runner }}");
	y_kv_raw(sb, 4, "timeout-minutes", "120");
	sb_puts(sb, "    strategy:\n      fail-fast: false\n      matrix:\n        include:\n");
	for (size_t i = 0; i < e->n_groups; i++) {
		const struct group *g = &e->groups[i];
		if (!e->o->per_cell) {
			wheel_entry(e, g, g->cells, g->n,
			            arena_printf(e->a, "cu%s-%s", g->nodot, g->pi->platform));
			st->n_wheels++;
			continue;
		}
		for (size_t k = 0; k < g->n; k++) {
			wheel_entry(e, g, &g->cells[k], 1, e->p->cells[g->cells[k]].id);
			st->n_wheels++;
		}
	}
	compile_env(e);
	sb_puts(sb, "    steps:\n");
	setup_steps(e, "${{ matrix.pythons }}", true, e->any_windows);
	sb_printf(sb, "      - uses: %s\n", ACT_DOWNLOAD);
	y_key(sb, 8, "with");
	y_kv(sb, 10, "name", "${{ matrix.kernels }}");
	y_kv(sb, 10, "path", "kernels-out");
	step(sb, 6, "Wheels against the imported kernels");
	y_key(sb, 8, "env");
	y_kv(sb, 10, "CELLS", "${{ matrix.cells }}");
	y_run(sb, 8,
	      arena_printf(e->a,
	                   "args=()\n"
	                   "for id in $CELLS; do args+=(--only \"$id\"); done\n"
	                   "cuwheel build --stage wheels --import kernels-out%s \"${args[@]}\"",
	                   e->o->gpu_label ? " --no-test" : ""));
	sb_printf(sb, "      - uses: %s\n", ACT_UPLOAD);
	y_key(sb, 8, "with");
	y_kv(sb, 10, "name", "${{ matrix.wheels }}");
	y_kv(sb, 10, "path", arena_printf(e->a, "%s/*.whl", e->dist));
	y_kv(sb, 10, "if-no-files-found", "error");
	sb_putc(sb, '\n');
}

/* runs-on for the GPU label(s): a flow sequence of self-hosted plus each label. */
static void gpu_runs_on(struct emit *e)
{
	struct strbuf *sb = &e->sb;
	sb_puts(sb, "    runs-on:\n      - self-hosted\n");
	const char *p = e->o->gpu_label;
	while (*p) {
		size_t n = strcspn(p, ",");
		char *label = arena_strndup(e->a, p, n);
		while (*label == ' ')
			label++;
		size_t l = strlen(label);
		while (l && label[l - 1] == ' ')
			label[--l] = '\0';
		if (l && strcmp(label, "self-hosted")) {
			sb_puts(sb, "      - ");
			y_scalar(sb, label);
			sb_putc(sb, '\n');
		}
		p += n;
		if (*p == ',')
			p++;
	}
}

static bool test_job(struct emit *e, struct ci_github_stats *st)
{
	struct strbuf *sb = &e->sb;
	size_t n_linux = 0;
	for (size_t i = 0; i < e->n_groups; i++)
		n_linux += !e->groups[i].pi->windows;
	if (n_linux == 0) {
		diag_msg(e->d, DIAG_WARNING, "--gpu-label: no Linux cells, so no GPU test jobs");
		return false;
	}
	sb_puts(sb, "  test:\n");
	y_kv(sb, 4, "name", "test CUDA ${{ matrix.cuda }} ${{ matrix.platform }} on a GPU");
	y_kv(sb, 4, "needs", "wheels");
	y_comment(sb, 4,
	          "A self-hosted runner with an NVIDIA driver new enough for every toolkit,");
	y_comment(sb, 4, "sudo (for the build tools) and internet access (pip).");
	gpu_runs_on(e);
	y_kv_raw(sb, 4, "timeout-minutes", "60");
	sb_puts(sb, "    strategy:\n      fail-fast: false\n      matrix:\n        include:\n");
	for (size_t i = 0; i < e->n_groups; i++) {
		const struct group *g = &e->groups[i];
		if (g->pi->windows)
			continue;
		sb_puts(sb, "          - ");
		sb_puts(sb, "platform: ");
		y_scalar(sb, g->pi->platform);
		sb_putc(sb, '\n');
		y_kv(sb, 12, "cuda", g->cuda);
		y_kv(sb, 12, "pythons", pythons_of(e, g, g->cells, g->n));
		y_kv(sb, 12, "wheels",
		     arena_printf(e->a, "wheels-*cu%s-%s", g->nodot, g->pi->platform));
		st->n_tests++;
	}
	sb_puts(sb, "    steps:\n");
	setup_steps(e, "${{ matrix.pythons }}", false, false);
	sb_printf(sb, "      - uses: %s\n", ACT_DOWNLOAD);
	y_key(sb, 8, "with");
	y_kv(sb, 10, "pattern", "${{ matrix.wheels }}");
	y_kv_raw(sb, 10, "merge-multiple", "true");
	y_kv(sb, 10, "path", e->dist);
	step(sb, 6, "GPU driver");
	y_run(sb, 8, "nvidia-smi");
	step(sb, 6, "Test every wheel on every Python it is for");
	y_run(sb, 8, arena_printf(e->a, "cuwheel test %s/*.whl", e->dist));
	sb_putc(sb, '\n');
	return true;
}

static void index_job(struct emit *e, bool tests)
{
	struct strbuf *sb = &e->sb;
	sb_puts(sb, "  index:\n");
	y_kv(sb, 4, "name", "index");
	if (tests)
		sb_puts(sb, "    needs:\n      - wheels\n      - test\n");
	else
		y_kv(sb, 4, "needs", "wheels");
	y_kv(sb, 4, "runs-on", "ubuntu-22.04");
	sb_puts(sb, "    steps:\n");
	setup_steps(e, NULL, false, false);
	sb_printf(sb, "      - uses: %s\n", ACT_DOWNLOAD);
	y_key(sb, 8, "with");
	y_kv(sb, 10, "pattern", "wheels-*");
	y_kv_raw(sb, 10, "merge-multiple", "true");
	y_kv(sb, 10, "path", e->dist);
	step(sb, 6, "PEP 503/691 index, one sub-index per local variant");
	y_run(sb, 8, arena_printf(e->a, "cuwheel index %s --out site", e->dist));
	sb_printf(sb, "      - uses: %s\n", ACT_UPLOAD);
	y_key(sb, 8, "with");
	y_kv(sb, 10, "name", "site");
	y_kv(sb, 10, "path", "site/");
	y_kv(sb, 10, "if-no-files-found", "error");
	sb_puts(sb, "      # To publish the index with GitHub Pages (pip install --index-url\n"
	            "      # https://OWNER.github.io/REPO/cu130/ ...), give this job\n"
	            "      #   permissions: {pages: write, id-token: write}\n"
	            "      #   environment: {name: github-pages}\n"
	            "      # and add:\n"
	            "      # - uses: actions/upload-pages-artifact@v3\n"
	            "      #   with:\n"
	            "      #     path: site/\n"
	            "      # - uses: actions/deploy-pages@v4\n");
}

/* A remote URL with a user or password must not be written into the repository. */
static bool has_credentials(const char *url)
{
	const char *auth = strstr(url, "://");
	auth = auth ? auth + 3 : url;
	size_t n = strcspn(auth, "/|");
	return memchr(auth, '@', n) != NULL || strstr(url, "password") != NULL;
}

bool ci_github_emit(struct arena *a, struct diag *d, const struct plan *p,
                    const struct ci_github_opts *o, char **out, struct ci_github_stats *st)
{
	memset(st, 0, sizeof(*st));
	struct emit e = {.a = a, .d = d, .p = p, .o = o};
	e.key = ci_kernel_flags_key(a, p->cfg);
	const char *dist = path_relative(a, p->cfg->project_dir, p->cfg->dist_dir);
	e.dist = dist && *dist ? dist : "dist";
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
	if (!make_groups(&e, st))
		return false;
	for (size_t i = 0; i < e.n_groups; i++)
		e.any_windows |= e.groups[i].pi->windows;
	header(&e, st);
	kernels_job(&e, st);
	wheels_job(&e, st);
	bool tests = o->gpu_label && *o->gpu_label && test_job(&e, st);
	index_job(&e, tests);
	*out = sb_to_arena(&e.sb, a);
	return true;
}
