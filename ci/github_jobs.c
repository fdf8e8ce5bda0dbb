/* github_jobs.c: the jobs of the workflow: per leg (Linux: kernels, wheels, GPU test; Windows:
 * graph, build, pack, test) and the index. Run scripts read what they need from env:, never
 * from ${{ }} expressions pasted into the script. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci/github_internal.h"
#include "ci/torch_builds.h"
#include "ci/yaml.h"
#include "standards/digest.h"
#include "standards/json_values.h"

/* The image a Linux job of leg l runs in, NULL for none: the configured one, for aarch64 legs
 * with its architecture swapped (manylinux_2_28_x86_64 -> manylinux_2_28_aarch64). */
const char *gh_image_for(struct emit *e, const struct leg *l)
{
	if (!*e->image || l->pi->cross)
		return NULL;
	const char *x = strstr(e->image, "x86_64");
	if (l->pi->windows || !x || !strcmp(l->pi->img_arch, "x86_64"))
		return e->image;
	return arena_printf(e->a, "%.*s%s%s", (int)(x - e->image), e->image, l->pi->img_arch,
	                    x + strlen("x86_64"));
}

/* Opens job id. needs: job ids (NULL-terminated) or NULL; image: the container, or NULL. */
void gh_job_open(struct emit *e, const char *id, const char *name, const char *runs_on,
                 const char *const *needs, const char *image, int minutes)
{
	struct strbuf *sb = &e->sb;
	strv_push(e->a, &e->jobs, id);
	e->n_jobs++;
	sb_printf(sb, "  %s:\n", id);
	yaml_kv_expr(sb, 4, "name", name); /* leg ids (MAJOR.MINOR CUDA) and ${{ matrix.X }} */
	if (needs && needs[0]) {
		yaml_key(sb, 4, "needs");
		for (size_t i = 0; needs[i]; i++)
			yaml_item(sb, 6, needs[i]);
	}
	if (runs_on)
		yaml_kv(sb, 4, "runs-on", runs_on);
	if (image) {
		/* The hosted runner's unused SDKs are mounted so the first step can delete them:
		 * the toolkit and the build need the disk. */
		yaml_key(sb, 4, "container");
		yaml_kv(sb, 6, "image", image);
		yaml_key(sb, 6, "volumes");
		yaml_item(sb, 8, "/usr/share/dotnet:/host/usr/share/dotnet");
		yaml_item(sb, 8, "/opt/ghc:/host/opt/ghc");
		yaml_item(sb, 8, "/usr/local/lib/android:/host/usr/local/lib/android");
	}
	sb_puts(sb, "    permissions:\n      contents: read\n");
	sb_printf(sb, "    timeout-minutes: %d\n", minutes);
}

void gh_checkout(struct emit *e)
{
	gh_uses(e, 6, CI_ACTION_CHECKOUT, true);
	sb_puts(&e->sb, "        with:\n          persist-credentials: false\n");
	if (e->o->src.submodules)
		sb_puts(&e->sb, "          submodules: recursive\n");
}

void gh_install_cuwheel(struct emit *e)
{
	yaml_step(&e->sb, 6,
	          e->o->cuwheel.git ? "cuwheel (built at the pinned commit)"
	                            : "cuwheel (its wheel, by digest)");
	yaml_run(&e->sb, 8,
	         CI_SCRIPT(e->o->cuwheel.git ? install_cuwheel_git_sh : install_cuwheel_wheel_sh));
}

/* The sdist, unless it is in the repository. */
void gh_sdist_step(struct emit *e)
{
	if (!e->o->src.sdist || e->o->src.sdist_committed)
		return;
	yaml_step(&e->sb, 6, "The sdist (pinned by sha256)");
	yaml_run(&e->sb, 8,
	         arena_printf(e->a, "%s\"$py\" - <<'EOF'\n%sEOF\n", CI_SCRIPT(find_python_sh),
	                      CI_SCRIPT(fetch_sdist_py)));
}

/* The same on a Windows runner, without bash (Git's link.exe): Python runs the script. */
static void gh_sdist_step_windows(struct emit *e)
{
	if (!e->o->src.sdist || e->o->src.sdist_committed)
		return;
	yaml_step(&e->sb, 6, "The sdist (pinned by sha256)");
	yaml_kv(&e->sb, 8, "shell", "python");
	yaml_run(&e->sb, 8, CI_SCRIPT(fetch_sdist_py));
}

const char *gh_torch_index(struct emit *e, const struct leg *l, const struct torch_build *b)
{
	if (!strcmp(b->pypi, l->cuda))
		return "pypi";
	if (torch_build_has_cuda(b, l->cuda))
		return arena_printf(e->a, "cu%s", l->nodot);
	/* No build for this CUDA: PyPI's, when it is of the same major (its runtime is the one
	 * the wheel's kernels need). */
	return atoi(b->pypi) == l->major ? "pypi" : NULL;
}

/* "PY RELEASE INDEX" per venv: the (Python, torch) pairs of cells, one per torch when
 * one_per_torch (kernels: compiled once per torch, any Python will do). A shared cell's Python
 * is the one it is built with (torch_build_python). */
static const char *torch_venvs(struct emit *e, const struct leg *l, const size_t *cells, size_t n,
                               bool one_per_torch)
{
	struct strv seen = {0};
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++) {
		const struct cell *c = &e->p->cells[cells[i]];
		if (!c->torch)
			continue;
		const char *py = torch_build_python(e->p, c);
		const char *key =
		    one_per_torch ? c->torch : arena_printf(e->a, "%s %s", py, c->torch);
		if (strv_contains(&seen, key))
			continue;
		strv_push(e->a, &seen, key);
		const struct torch_build *b = torch_build_find(c->torch);
		sb_printf(&sb, "%s %s %s\n", py, b->release, gh_torch_index(e, l, b));
	}
	return sb_to_arena(&sb, e->a);
}

/* torch for the cells: the venvs, with pip's downloads cached per leg and venv list. */
static void torch_step(struct emit *e, const struct leg *l, const char *venvs)
{
	struct strbuf *sb = &e->sb;
	if (!venvs)
		return;
	char hex[65];
	mem_sha256_hex(venvs, strlen(venvs), hex);
	const char *key = arena_printf(e->a, "pip-torch-%s-%.12s", l->id, hex);
	gh_uses(e, 6, CI_ACTION_CACHE_RESTORE, true);
	sb_puts(sb, "        with:\n          path: .pip-torch\n");
	yaml_kv(sb, 10, "key", key);
	yaml_step(sb, 6, "torch for each Python of the job (pinned builds)");
	yaml_key(sb, 8, "env");
	gh_kv(e, 10, "TORCH_VENVS", venvs);
	yaml_run(sb, 8, CI_SCRIPT(install_torch_sh));
	gh_uses(e, 6, CI_ACTION_CACHE_SAVE, true);
	yaml_kv(sb, 8, "if", "github.event_name == 'push'");
	sb_puts(sb, "        with:\n          path: .pip-torch\n");
	yaml_kv(sb, 10, "key", key);
}

/* The key of the cache of what `cuwheel KIND install WHAT` puts in cuwheel's cache for leg l.
 * What decides those bytes: the cuwheel the jobs run (its lock files pin every package by
 * sha256, and its code assembles them: the emitter's own locks may be older or newer), WHAT,
 * and where the job runs (the runner or an image: the archive holds the path from the
 * workspace). The runner's OS and architecture are read in the job. No restore-keys: an entry
 * is whole or absent. */
static const char *provision_key(struct emit *e, const struct leg *l, const char *kind,
                                 const char *what)
{
	const struct ci_cuwheel *cw = &e->o->cuwheel;
	const char *img = gh_image_for(e, l);
	const char *in = arena_printf(e->a, "%s@%s\n%s\n%s\n", cw->git ? cw->git : cw->url,
	                              cw->git ? cw->rev : cw->sha256, img ? img : "runner", what);
	char hex[65];
	mem_sha256_hex(in, strlen(in), hex);
	return arena_printf(e->a, "%s${{ runner.os }}-${{ runner.arch }}-%.12s",
	                    yaml_inert(e->a, arena_printf(e->a, "cuwheel-%s-%s-", kind, l->id)),
	                    hex);
}

/* Restores (save: saves, on pushes, unless restored) cuwheel's cache dir sub (as
 * ci/install_cross.sh and ci/install_cuda.sh export it) under key, around the step that
 * installs into it: the save follows at once, so the later jobs of the run find it. */
static void provision_cache(struct emit *e, const char *id, const char *sub, const char *key,
                            bool save)
{
	struct strbuf *sb = &e->sb;
	gh_uses(e, 6, save ? CI_ACTION_CACHE_SAVE : CI_ACTION_CACHE_RESTORE, true);
	if (save)
		yaml_kv(sb, 8, "if",
		        arena_printf(e->a,
		                     "github.event_name == 'push' && "
		                     "steps.%s.outputs.cache-hit != 'true'",
		                     id));
	else
		yaml_kv(sb, 8, "id", id);
	sb_puts(sb, "        with:\n");
	yaml_kv(sb, 10, "path", arena_printf(e->a, "~/.cache/cuwheel/%s", sub));
	yaml_kv_expr(sb, 10, "key", key);
}

/* A cross leg's: no container and no host Pythons or torch venvs (the cells build against the
 * target's CPython and torch, cross parts); the runner's packages, then cuwheel's toolkit and
 * parts, both cached. */
static void cross_setup(struct emit *e, const struct leg *l)
{
	struct strbuf *sb = &e->sb;
	gh_checkout(e);
	yaml_step(sb, 6, "Free disk space");
	yaml_run(sb, 8, CI_SCRIPT(free_disk_sh));
	yaml_step(sb, 6, "ccache, qemu-user and what the cross compiler loads");
	yaml_run(sb, 8, CI_SCRIPT(cross_packages_sh));
	gh_install_cuwheel(e);
	gh_sdist_step(e);
	struct strbuf ps = {0};
	for (size_t i = 0; i < l->parts.n; i++)
		sb_printf(&ps, "%s%s", i ? " " : "", l->parts.v[i]);
	const char *parts = sb_to_arena(&ps, e->a);
	const char *cross = arena_printf(e->a, "cross/%s", l->pi->platform);
	const char *cross_key = provision_key(e, l, "cross", parts);
	const char *toolkit_key = provision_key(e, l, "toolkit", l->cuda);
	provision_cache(e, "cuda-toolkit", "toolkits", toolkit_key, false);
	provision_cache(e, "cross-parts", cross, cross_key, false);
	yaml_step(sb, 6,
	          arena_printf(e->a, "CUDA %s (x86_64 nvcc) and the %s cross parts", l->cuda,
	                       l->pi->platform));
	yaml_key(sb, 8, "env");
	yaml_kv(sb, 10, "CROSS_PARTS", parts);
	yaml_run(sb, 8, CI_SCRIPT(install_cross_sh));
	provision_cache(e, "cuda-toolkit", "toolkits", toolkit_key, true);
	provision_cache(e, "cross-parts", cross, cross_key, true);
}

void gh_linux_setup(struct emit *e, const struct leg *l, bool cuda, const char *pythons,
                    const char *venvs)
{
	struct strbuf *sb = &e->sb;
	if (l->pi->cross && cuda) {
		cross_setup(e, l);
		return;
	}
	gh_checkout(e);
	if (pythons && !*e->image) {
		gh_uses(e, 6, CI_ACTION_PYTHON, true);
		sb_puts(sb, "        with:\n");
		gh_kv(e, 10, "python-version", pythons);
	}
	if (cuda) {
		yaml_step(sb, 6, "Free disk space");
		yaml_run(sb, 8, CI_SCRIPT(free_disk_sh));
		yaml_step(sb, 6, "ccache and host compiler");
		yaml_key(sb, 8, "env");
		yaml_kv(sb, 10, "GCC_TOOLSET", l->gcc);
		yaml_run(sb, 8, CI_SCRIPT(system_packages_sh));
	}
	gh_install_cuwheel(e);
	gh_sdist_step(e);
	if (cuda) {
		/* `cuwheel toolkit install`'s toolkit is cached like a cross leg's. */
		bool pypi = !strcmp(l->toolkit, "pypi");
		const char *key = pypi ? provision_key(e, l, "toolkit", l->cuda) : NULL;
		if (pypi)
			provision_cache(e, "cuda-toolkit", "toolkits", key, false);
		yaml_step(sb, 6, arena_printf(e->a, "CUDA %s (%s)", l->cuda, l->toolkit));
		yaml_run(sb, 8, CI_SCRIPT(install_cuda_sh));
		if (pypi)
			provision_cache(e, "cuda-toolkit", "toolkits", key, true);
	}
	if (venvs && *venvs)
		torch_step(e, l, venvs);
}

void gh_leg_env(struct emit *e, const struct leg *l, const char *cells)
{
	struct strbuf *sb = &e->sb;
	yaml_key(sb, 4, "env");
	yaml_kv(sb, 6, "LEG", l->id);
	yaml_kv(sb, 6, "CUDA", l->cuda);
	yaml_kv(sb, 6, "CUDA_TOOLKIT", l->toolkit);
	yaml_kv(sb, 6, "CUDA_ARCH", l->pi->arch);
	yaml_kv(sb, 6, "CUDA_PACKAGES", l->packages ? l->packages : "");
	if (cells)
		gh_kv(e, 6, "CELLS", cells);
	if (cells && e->o->gpu_label)
		yaml_kv(sb, 6, "NO_TEST", "1"); /* the GPU job tests the wheels */
}

/* env: of a step that compiles: the remote cache (a secret) reaches only these steps. */
static void compile_env(struct emit *e)
{
	if (!e->remote)
		return;
	yaml_key(&e->sb, 8, "env");
	yaml_kv_expr(&e->sb, 10, "CUWHEEL_CACHE_REMOTE", e->remote);
}

/* Uploads path as artifact name (job and leg ids, or wheels-${{ matrix.cell }}), kept days (0:
 * the repository's default). */
static void gh_upload(struct emit *e, const char *name, const char *path, int days)
{
	struct strbuf *sb = &e->sb;
	gh_uses(e, 6, CI_ACTION_UPLOAD, true);
	sb_puts(sb, "        with:\n");
	yaml_kv_expr(sb, 10, "name", name); /* job and leg ids, or wheels-${{ matrix.cell }} */
	yaml_kv(sb, 10, "path", path);
	yaml_kv(sb, 10, "if-no-files-found", "error");
	if (days)
		sb_printf(sb, "          retention-days: %d\n", days);
}

void gh_download(struct emit *e, const char *name, const char *pattern, const char *path)
{
	struct strbuf *sb = &e->sb;
	gh_uses(e, 6, CI_ACTION_DOWNLOAD, true);
	sb_puts(sb, "        with:\n");
	if (name)
		yaml_kv(sb, 10, "name", name);
	if (pattern) {
		yaml_kv(sb, 10, "pattern", pattern);
		sb_puts(sb, "          merge-multiple: true\n");
	}
	yaml_kv(sb, 10, "path", path);
}

static const char *ids_of(struct emit *e, const size_t *cells, size_t n)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++)
		sb_printf(&sb, "%s%s", i ? " " : "", e->p->cells[cells[i]].id);
	return sb_to_arena(&sb, e->a);
}

const char *gh_host(struct emit *e, const struct leg *l)
{
	return *e->image ? l->pi->host : l->pi->runner;
}

/* The x86_64 Linux runner of a Windows leg's graph and pack jobs. */
static const char *linux_host(struct emit *e)
{
	return *e->image ? "ubuntu-24.04" : "ubuntu-22.04";
}

static void kernels_job(struct emit *e, const struct leg *l)
{
	struct strbuf *sb = &e->sb;
	const char *id = arena_printf(e->a, "kernels-%s", l->id);
	gh_job_open(e, id,
	            arena_printf(e->a, "kernels CUDA %s %s%s", l->cuda, l->pi->platform,
	                         l->pi->cross ? " (cross-built)" : ""),
	            gh_host(e, l), NULL, gh_image_for(e, l), 180);
	gh_leg_env(e, l, NULL);
	sb_puts(sb, "    steps:\n");
	gh_linux_setup(e, l, true, gh_pythons(e, l->cells, l->torch ? l->n : 1),
	               l->torch ? torch_venvs(e, l, l->cells, l->n, true) : NULL);
	/* Keyed per (OS, toolkit, kernel flags) and commit; restored from the newest entry of
	 * the same leg and flags. Saved by pushes only: the default branch's entries are the
	 * ones every tag and pull request can restore. */
	const char *key = arena_printf(e->a, "ccache-%s-%s-", l->id, e->key);
	gh_uses(e, 6, CI_ACTION_CACHE_RESTORE, true);
	sb_puts(sb, "        with:\n          path: .ccache\n");
	yaml_kv_expr(sb, 10, "key",
	             arena_printf(e->a, "%s${{ github.sha }}", yaml_inert(e->a, key)));
	yaml_kv(sb, 10, "restore-keys", key);
	yaml_step(sb, 6, "Kernels, once for this toolkit");
	compile_env(e);
	yaml_run(sb, 8, gh_script(e, CI_SCRIPT(build_kernels_sh)));
	yaml_step(sb, 6, "ccache statistics");
	yaml_kv(sb, 8, "if", "always()");
	yaml_run(sb, 8, "ccache --show-stats -v || true");
	gh_uses(e, 6, CI_ACTION_CACHE_SAVE, true);
	yaml_kv(sb, 8, "if", "github.event_name == 'push'");
	sb_puts(sb, "        with:\n          path: .ccache\n");
	yaml_kv_expr(sb, 10, "key",
	             arena_printf(e->a, "%s${{ github.sha }}", yaml_inert(e->a, key)));
	gh_upload(e, arena_printf(e->a, "kernels-%s-%s", l->id, e->key), "kernels-out/", 7);
	sb_putc(sb, '\n');
}

static void wheels_job(struct emit *e, const struct leg *l)
{
	struct strbuf *sb = &e->sb;
	const char *id = arena_printf(e->a, "wheels-%s", l->id);
	const char *needs[] = {arena_printf(e->a, "kernels-%s", l->id), NULL};
	bool per_cell = e->o->per_cell;
	gh_job_open(e, id,
	            per_cell
	                ? "wheels ${{ matrix.cell }}"
	                : arena_printf(e->a, "wheels CUDA %s %s%s", l->cuda, l->pi->platform,
	                               l->pi->cross ? " (cross-built, tested under qemu)" : ""),
	            gh_host(e, l), needs, gh_image_for(e, l), 120);
	if (per_cell) {
		sb_puts(sb,
		        "    strategy:\n      fail-fast: false\n      matrix:\n        include:\n");
		for (size_t k = 0; k < l->n; k++) {
			const struct cell *c = &e->p->cells[l->cells[k]];
			sb_puts(sb, "          - cell: ");
			yaml_scalar(sb, c->id);
			sb_putc(sb, '\n');
			yaml_kv(sb, 12, "python", c->python);
			if (l->torch && !l->pi->cross)
				yaml_kv(sb, 12, "torch_venvs",
				        torch_venvs(e, l, &l->cells[k], 1, false));
		}
	}
	gh_leg_env(e, l, per_cell ? gh_matrix_cell : ids_of(e, l->cells, l->n));
	sb_puts(sb, "    steps:\n");
	gh_linux_setup(e, l, true, per_cell ? gh_matrix_python : gh_pythons(e, l->cells, l->n),
	               !l->torch  ? NULL
	               : per_cell ? gh_matrix_venvs
	                          : torch_venvs(e, l, l->cells, l->n, false));
	gh_download(e, arena_printf(e->a, "kernels-%s-%s", l->id, e->key), NULL, "kernels-out");
	yaml_step(sb, 6, "Wheels against the imported kernels");
	compile_env(e);
	yaml_run(sb, 8, gh_script(e, CI_SCRIPT(build_wheels_sh)));
	gh_upload(e,
	          per_cell ? "wheels-${{ matrix.cell }}" : arena_printf(e->a, "wheels-%s", l->id),
	          arena_printf(e->a, "%s/*.whl", e->dist), 0);
	sb_putc(sb, '\n');
}

/* runs-on for the GPU label(s): self-hosted plus each label. */
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
		size_t len = strlen(label);
		while (len && label[len - 1] == ' ')
			label[--len] = '\0';
		if (len && strcmp(label, "self-hosted"))
			yaml_item(sb, 6, label);
		p += n;
		if (*p == ',')
			p++;
	}
}

static void test_job(struct emit *e, const struct leg *l)
{
	struct strbuf *sb = &e->sb;
	const char *needs[] = {arena_printf(e->a, "wheels-%s", l->id), NULL};
	gh_job_open(e, arena_printf(e->a, "test-%s", l->id),
	            arena_printf(e->a, "test CUDA %s %s on a GPU", l->cuda, l->pi->platform), NULL,
	            needs, NULL, 60);
	yaml_comment(sb, 4,
	             "A self-hosted runner with an NVIDIA driver new enough for every toolkit");
	yaml_comment(sb, 4, "and pip access.");
	gpu_runs_on(e);
	sb_puts(sb, "    steps:\n");
	gh_checkout(e);
	gh_uses(e, 6, CI_ACTION_PYTHON, true);
	sb_puts(sb, "        with:\n");
	yaml_kv(sb, 10, "python-version", gh_pythons(e, l->cells, l->n));
	gh_install_cuwheel(e);
	gh_download(e, NULL, arena_printf(e->a, "wheels-*%s", l->id), e->dist);
	yaml_step(sb, 6, "GPU driver");
	yaml_run(sb, 8, "nvidia-smi");
	gh_sdist_step(e);
	yaml_step(sb, 6, "Test every wheel on every Python it is for");
	yaml_run(sb, 8, gh_script(e, CI_SCRIPT(test_wheels_sh)));
	sb_putc(sb, '\n');
}

void gh_linux_leg(struct emit *e, const struct leg *l)
{
	kernels_job(e, l);
	wheels_job(e, l);
	if (e->o->gpu_label && *e->o->gpu_label)
		test_job(e, l);
}

/* The newest release of each CUDA minor that Jimver/cuda-toolkit v0.2.35's network installer
 * knows (src/links/windows-links.ts). */
static const struct {
	const char *minor, *full;
} windows_cuda[] = {
    {"11.8", "11.8.0"}, {"12.0", "12.0.1"}, {"12.1", "12.1.1"}, {"12.2", "12.2.2"},
    {"12.3", "12.3.2"}, {"12.4", "12.4.1"}, {"12.5", "12.5.1"}, {"12.6", "12.6.3"},
    {"12.8", "12.8.1"}, {"12.9", "12.9.1"}, {"13.0", "13.0.2"}, {"13.1", "13.1.1"},
    {"13.2", "13.2.0"},
};

static const char *windows_full(struct emit *e, const char *minor)
{
	for (size_t i = 0; i < sizeof(windows_cuda) / sizeof(*windows_cuda); i++)
		if (!strcmp(windows_cuda[i].minor, minor))
			return windows_cuda[i].full;
	diag_msg(e->d, DIAG_WARNING,
	         "CUDA %s: Jimver/cuda-toolkit v0.2.35 knows no release of it; the Windows leg "
	         "asks for %s.0",
	         minor, minor);
	return arena_printf(e->a, "%s.0", minor);
}

/* Runs [tool.cuwheel.test] command for each wheel of dist/ this Python can install, each in a
 * fresh venv, without cuwheel: the command is a shell command by definition (cmd.exe here).
 * ci/windows_test.py, embedded at build time (cmake/embed.cmake). */

/* A JSON array of v's strings (standards/json_values.h renders every JSON text). */
static const char *json_list(struct emit *e, const struct strv *v)
{
	json_t *j = json_strv(v);
	char *text = json_dump_text(e->a, j, JSON_COMPACT);
	json_decref(j);
	return text ? text : "[]";
}

void gh_windows_leg(struct emit *e, const struct leg *l)
{
	struct strbuf *sb = &e->sb;
	const char *graph = arena_printf(e->a, "wingraph-%s", l->id);
	const char *build = arena_printf(e->a, "winbuild-%s", l->id);
	const char *pack = arena_printf(e->a, "winpack-%s", l->id);
	const char *pythons = gh_pythons(e, l->cells, l->n);

	/* 1. On Linux: the Windows build graph of this leg's cells. */
	gh_job_open(e, graph, arena_printf(e->a, "Windows build graph CUDA %s", l->cuda),
	            linux_host(e), NULL, gh_image_for(e, l), 30);
	sb_puts(sb, "    steps:\n");
	gh_linux_setup(e, l, false, NULL, NULL);
	yaml_step(sb, 6, "build.ninja and probe.py for the Windows runner");
	yaml_key(sb, 8, "env");
	yaml_kv(sb, 10, "LEG", l->id);
	yaml_run(sb, 8, gh_script(e, CI_SCRIPT(win_graph_sh)));
	gh_upload(e, graph, "win-out/", 7);
	sb_putc(sb, '\n');

	/* 2. On Windows: probe the Pythons, compile with MSVC and nvcc, stage the trees. No
	 * bash: Git's /usr/bin/link would shadow MSVC's link.exe. */
	const char *needs_graph[] = {graph, NULL};
	gh_job_open(e, build, arena_printf(e->a, "Windows build CUDA %s", l->cuda), l->pi->runner,
	            needs_graph, NULL, 180);
	sb_puts(sb, "    defaults:\n      run:\n        shell: pwsh\n");
	sb_puts(sb, "    steps:\n");
	gh_checkout(e);
	gh_uses(e, 6, CI_ACTION_PYTHON, true);
	sb_puts(sb, "        with:\n");
	yaml_kv(sb, 10, "python-version", pythons);
	/* The network installer fetches only the named components, not the 3 GB toolkit. CUDA
	 * 13 moved the compiler's headers (crt/host_config.h) out of nvcc's component. */
	yaml_step(sb, 6, arena_printf(e->a, "CUDA %s", windows_full(e, l->cuda)));
	gh_uses(e, 8, CI_ACTION_CUDA_WIN, false);
	sb_puts(sb, "        with:\n");
	yaml_kv(sb, 10, "cuda", windows_full(e, l->cuda));
	yaml_kv(sb, 10, "method", "network");
	yaml_kv(sb, 10, "sub-packages",
	        l->major >= 13 ? "[\"nvcc\", \"cudart\", \"crt\"]" : "[\"nvcc\", \"cudart\"]");
	/* nvcc runs cl.exe as its host compiler. CUDA 11.8-12.3 refuse MSVC 19.40 and later
	 * (host_config.h: _MSC_VER >= 1940), and MSVC 14.4x's STL refuses CUDA older than 12.4:
	 * those toolkits get the VS 2019 toolset 14.29 that windows-2022 ships. */
	yaml_step(sb, 6, "MSVC");
	gh_uses(e, 8, CI_ACTION_MSVC, false);
	sb_puts(sb, "        with:\n          arch: x64\n");
	if (l->major < 12 || (l->major == 12 && l->minor < 4))
		yaml_kv(sb, 10, "toolset", "14.29");
	gh_download(e, graph, NULL, "win-out");
	yaml_step(sb, 6, "ninja");
	yaml_run(sb, 8, "python -m pip install -q \"ninja==$env:NINJA_VERSION\"");
	yaml_step(sb, 6, "Probe the Pythons");
	yaml_run(sb, 8, "python win-out/probe.py");
	yaml_step(sb, 6, "Compile and stage");
	yaml_run(sb, 8, "ninja -C win-out");
	gh_upload(e, arena_printf(e->a, "winstage-%s", l->id), "win-out/", 7);
	sb_putc(sb, '\n');

	/* 3. On Linux: pack and audit the staged trees into wheels. */
	const char *needs_build[] = {build, NULL};
	gh_job_open(e, pack, arena_printf(e->a, "Windows wheels CUDA %s", l->cuda), linux_host(e),
	            needs_build, gh_image_for(e, l), 30);
	sb_puts(sb, "    steps:\n");
	gh_linux_setup(e, l, false, NULL, NULL);
	gh_download(e, arena_printf(e->a, "winstage-%s", l->id), NULL, "win-out");
	yaml_step(sb, 6, "Pack and audit");
	yaml_run(sb, 8, gh_script(e, CI_SCRIPT(win_pack_sh)));
	gh_upload(e, arena_printf(e->a, "wheels-%s", l->id),
	          arena_printf(e->a, "%s/*.whl", e->dist), 0);
	sb_putc(sb, '\n');

	/* 4. On Windows: each wheel in a fresh venv per Python, the project's test command. */
	const char *cmd = e->p->cfg->test.command;
	if (!cmd || !*cmd)
		return;
	if (strstr(cmd, "${{")) {
		diag_msg(e->d, DIAG_WARNING,
		         "[tool.cuwheel.test] command holds '${{', which GitHub would evaluate: no "
		         "Windows test job for CUDA %s",
		         l->cuda);
		return;
	}
	const char *needs_pack[] = {pack, NULL};
	gh_job_open(e, arena_printf(e->a, "wintest-%s", l->id),
	            arena_printf(e->a, "Windows test CUDA %s Python ${{ matrix.python }}", l->cuda),
	            l->pi->runner, needs_pack, NULL, 60);
	sb_puts(sb, "    strategy:\n      fail-fast: false\n      matrix:\n        python:\n");
	const char *p = pythons;
	while (*p) {
		size_t n = strcspn(p, "\n");
		yaml_item(sb, 10, arena_strndup(e->a, p, n));
		p += n + (p[n] == '\n');
	}
	sb_puts(sb, "    steps:\n");
	gh_checkout(e);
	gh_uses(e, 6, CI_ACTION_PYTHON, true);
	sb_puts(sb, "        with:\n          python-version: ${{ matrix.python }}\n");
	gh_sdist_step_windows(e);
	gh_download(e, arena_printf(e->a, "wheels-%s", l->id), NULL, e->dist);
	yaml_step(sb, 6, "Test each wheel this Python installs");
	yaml_kv(sb, 8, "shell", "python");
	yaml_key(sb, 8, "env");
	yaml_kv(sb, 10, "DIST", e->dist);
	yaml_kv(sb, 10, "TEST_COMMAND", cmd);
	yaml_kv(sb, 10, "TEST_REQUIRES", json_list(e, &e->p->cfg->test.requires));
	yaml_run(sb, 8, CI_SCRIPT(windows_test_py));
	sb_putc(sb, '\n');
}

/* Chooses what the index publishes and says what is missing. CELLS: one line per cell: its id,
 * its wheel's name up to the platform tag and the end of that tag (the audit may stamp another
 * manylinux tag, never another architecture), the jobs that make it and the jobs that must pass
 * after it (comma-separated, "-" for none). NEEDS: GitHub's needs context as JSON.
 * ci/index_select.py, embedded at build time (cmake/embed.cmake). */

void gh_index_job(struct emit *e)
{
	struct strbuf *sb = &e->sb;
	/* Every leg's jobs: the index waits for all of them and reads each one's result. */
	const char **needs = arena_calloc(e->a, e->jobs.n + 1, sizeof(*needs));
	for (size_t i = 0; i < e->jobs.n; i++)
		needs[i] = e->jobs.v[i];
	gh_job_open(e, "index", "index", "ubuntu-24.04", needs, NULL, 30);
	yaml_comment(sb, 4, "Whatever the legs did (unless the run was cancelled): what exists is");
	yaml_comment(sb, 4, "published, and the last step fails the run when a cell is missing.");
	yaml_kv_expr(sb, 4, "if", "${{ !cancelled() }}");
	sb_puts(sb, "    steps:\n");
	gh_checkout(e);
	gh_uses(e, 6, CI_ACTION_PYTHON, true);
	sb_puts(sb, "        with:\n          python-version: \"3.12\"\n");
	gh_install_cuwheel(e);
	gh_download(e, NULL, "wheels-*", "wheels-in");
	yaml_step(sb, 6, "Wheels present and missing");
	yaml_kv(sb, 8, "shell", "python");
	yaml_key(sb, 8, "env");
	yaml_kv(sb, 10, "DIST", e->dist);
	yaml_kv_expr(sb, 10, "NEEDS", "${{ toJSON(needs) }}");
	struct strbuf cells = {0};
	for (size_t i = 0; i < e->n_legs; i++) {
		const struct leg *l = &e->legs[i];
		bool gpu = !l->pi->windows && e->o->gpu_label && *e->o->gpu_label;
		const char *cmd = e->p->cfg->test.command;
		bool wintest = l->pi->windows && cmd && *cmd && !strstr(cmd, "${{");
		const char *chain = l->pi->windows
		                        ? arena_printf(e->a, "wingraph-%s,winbuild-%s,winpack-%s",
		                                       l->id, l->id, l->id)
		                        : arena_printf(e->a, "kernels-%s,wheels-%s", l->id, l->id);
		const char *gates = gpu       ? arena_printf(e->a, "test-%s", l->id)
		                    : wintest ? arena_printf(e->a, "wintest-%s", l->id)
		                              : "-";
		const char *shared = l->pi->windows ? NULL : gh_shared_job(e, l);
		for (size_t k = 0; k < l->n; k++) {
			const struct cell *c = &e->p->cells[l->cells[k]];
			/* A shared wheel is published when every (Python, torch) test of it passed.
			 */
			const char *g = gates;
			if (shared && gh_shared(c))
				g = strcmp(gates, "-") ? arena_printf(e->a, "%s,%s", shared, gates)
				                       : shared;
			const char *dash = strrchr(c->wheel, '-');
			int n = dash ? (int)(dash - c->wheel) + 1 : (int)strlen(c->wheel);
			const char *arch = strchr(c->platform, '_');
			const char *suffix =
			    l->pi->windows
			        ? arena_printf(e->a, "-%s.whl", c->platform)
			        : arena_printf(e->a, "%s.whl", arch ? arch : c->platform);
			sb_printf(&cells, "%s %.*s %s %s %s\n", c->id, n, c->wheel, suffix, chain,
			          g);
		}
	}
	yaml_kv(sb, 10, "CELLS", sb_to_arena(&cells, e->a));
	yaml_run(sb, 8, CI_SCRIPT(index_select_py));
	yaml_step(sb, 6, "PEP 503/691 index of what exists, one sub-index per local variant");
	yaml_key(sb, 8, "env");
	yaml_kv(sb, 10, "DIST", e->dist);
	gh_libraries_env(e, 10);
	yaml_run(sb, 8, gh_with_libraries(e, CI_SCRIPT(index_site_sh)));
	gh_uses(e, 6, CI_ACTION_UPLOAD, true);
	sb_puts(sb, "        with:\n          name: site\n          path: site/\n"
	            "          if-no-files-found: warn\n");
	gh_uses(e, 6, CI_ACTION_UPLOAD, true);
	sb_puts(sb, "        with:\n          name: published-wheels\n");
	yaml_kv(sb, 10, "path", arena_printf(e->a, "%s/*.whl", e->dist));
	sb_puts(sb, "          if-no-files-found: warn\n");
	yaml_step(sb, 6, "Fail when a cell is missing");
	yaml_run(sb, 8, CI_SCRIPT(fail_missing_sh));
}
