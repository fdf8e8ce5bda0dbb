/* github_shared.c: the test jobs of a leg's shared wheels. An abi3 torch wheel serves every
 * Python of the axis, a stable-ABI one every Python and every later torch: each (Python, torch)
 * the config names and PyTorch publishes (ci/torch_builds.def) gets a job that installs that
 * torch alone and runs `cuwheel test` on the leg's shared wheels, and the index publishes a
 * shared wheel only when all of them passed. */
#include <stdio.h>
#include <string.h>

#include "ci/github_internal.h"
#include "ci/yaml.h"
#include "standards/version.h"

/* The torches a shared cell is tested with: its own and, built against torch's stable ABI,
 * every later one of the axis. */
static void cell_torches(struct emit *e, const struct cell *c, struct strv *out)
{
	const struct strv *axis = &e->p->cfg->matrix.torch;
	if (!c->torch_stable || !axis->n) {
		strv_push(e->a, out, c->torch);
		return;
	}
	for (size_t i = 0; i < axis->n; i++)
		if (version_dotted_cmp(axis->v[i], c->torch) >= 0 &&
		    !strv_contains(out, axis->v[i]))
			strv_push(e->a, out, axis->v[i]);
}

/* One "PY TORCH RELEASE INDEX" line per pair of the leg's shared cells, in axis order; a torch
 * PyTorch publishes nothing of for this leg's CUDA is left out with a warning. */
static void pairs(struct emit *e, const struct leg *l, struct strv *out)
{
	for (size_t k = 0; k < l->n; k++) {
		const struct cell *c = &e->p->cells[l->cells[k]];
		if (!gh_shared(c))
			continue;
		struct strv torches = {0};
		cell_torches(e, c, &torches);
		for (size_t t = 0; t < torches.n; t++) {
			const struct torch_build *b = torch_build_find(torches.v[t]);
			const char *index = b ? gh_torch_index(e, l, b) : NULL;
			if (!index) {
				diag_msg(
				    e->d, DIAG_WARNING,
				    "%s is not tested with torch %s in the workflow: %s", c->id,
				    torches.v[t],
				    b ? arena_printf(e->a,
				                     "PyTorch publishes no build of it for CUDA "
				                     "%d (its builds: %s)",
				                     l->major, b->cudas)
				      : "it is not in ci/torch_builds.def");
				continue;
			}
			for (size_t i = 0; i < e->p->pythons.n; i++) {
				const char *py = e->p->pythons.v[i];
				if (strchr(py, 't') || version_dotted_cmp(py, c->python) < 0 ||
				    !torch_build_has_python(b, py))
					continue;
				const char *line = arena_printf(e->a, "%s %s %s %s", py, b->minor,
				                                b->release, index);
				if (!strv_contains(out, line))
					strv_push(e->a, out, line);
			}
		}
	}
}

/* SHARED: each shared cell's wheel name up to its platform tag. */
static const char *shared_prefixes(struct emit *e, const struct leg *l)
{
	struct strbuf sb = {0};
	for (size_t k = 0; k < l->n; k++) {
		const struct cell *c = &e->p->cells[l->cells[k]];
		if (!gh_shared(c))
			continue;
		const char *dash = strrchr(c->wheel, '-');
		int n = dash ? (int)(dash - c->wheel) + 1 : (int)strlen(c->wheel);
		sb_printf(&sb, "%s%.*s", sb.len ? " " : "", n, c->wheel);
	}
	return sb_to_arena(&sb, e->a);
}

const char *gh_shared_tests(struct emit *e, const struct leg *l)
{
	const char *id = gh_shared_job(e, l);
	if (!id)
		return NULL;
	struct strv v = {0};
	pairs(e, l, &v);
	struct strbuf *sb = &e->sb;
	const char *needs[] = {arena_printf(e->a, "wheels-%s", l->id), NULL};
	gh_job_open(e, id,
	            arena_printf(e->a,
	                         "shared wheels CUDA %s %s, Python ${{ matrix.python }}, torch "
	                         "${{ matrix.torch }}",
	                         l->cuda, l->pi->platform),
	            gh_host(e, l), needs, gh_image_for(e, l), 60);
	yaml_comment(sb, 4,
	             "One job per (Python, torch) a shared wheel serves: each installs that");
	yaml_comment(sb, 4, "torch alone and tests the leg's shared wheels with it.");
	sb_puts(sb, "    strategy:\n      fail-fast: false\n      matrix:\n        include:\n");
	for (size_t i = 0; i < v.n; i++) {
		char py[16], minor[16], release[32], index[16];
		if (sscanf(v.v[i], "%15s %15s %31s %15s", py, minor, release, index) != 4)
			continue;
		sb_puts(sb, "          - python: ");
		yaml_scalar(sb, py);
		sb_putc(sb, '\n');
		yaml_kv(sb, 12, "torch", minor);
		yaml_kv(sb, 12, "torch_venvs",
		        arena_printf(e->a, "%s %s %s\n", py, release, index));
	}
	gh_leg_env(e, l, NULL);
	sb_puts(sb, "    steps:\n");
	gh_linux_setup(e, l, false, gh_matrix_python, gh_matrix_venvs);
	gh_download(e, NULL, arena_printf(e->a, "wheels-*%s", l->id), e->dist);
	yaml_step(sb, 6, "The shared wheels on this Python and torch");
	yaml_key(sb, 8, "env");
	yaml_kv(sb, 10, "DIST", e->dist);
	yaml_kv(sb, 10, "SHARED", shared_prefixes(e, l));
	yaml_run(sb, 8, gh_script(e, CI_SCRIPT(test_shared_sh)));
	sb_putc(sb, '\n');
	return id;
}
