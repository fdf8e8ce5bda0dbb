/* github_cross.c: [tool.cuwheel.ci] aarch64 = "cross": which linux_aarch64 cells an x86_64 runner
 * can cross-build with the parts cuwheel's locks pin (the cross compiler, the target's static
 * CUDA runtime, arm64 CPython roots, torch's aarch64 wheel; the host toolkit), and which parts
 * each needs. The same choice `cuwheel build` makes here (cli/plan_common.c). */
#include <string.h>

#include "ci/github_internal.h"
#include "standards/version.h"
#include "toolchain/provision_cross.h"

static void add(struct emit *e, struct strv *parts, const char *name)
{
	if (parts && !strv_contains(parts, name))
		strv_push(e->a, parts, name);
}

/* Leaves c out with a warning saying why. */
static bool left_out(struct emit *e, const struct cell *c, const char *why)
{
	diag_msg(e->d, DIAG_WARNING,
	         "%s left out of the workflow: %s (its leg is cross-built: [tool.cuwheel.ci] "
	         "aarch64 = \"cross\")",
	         c->id, why);
	return false;
}

/* The Python parts of a cell without torch: its own minor; for abi3 the headers' (the oldest
 * pinned at or above its baseline) and every Python of the axis from the baseline on that the
 * lock pins, which the build tests the wheel with. False when none is pinned. */
static bool python_parts(struct emit *e, const struct cross_target *t, const struct cell *c,
                         struct strv *parts)
{
	const char *headers = NULL;
	for (size_t i = 0; i < t->n_parts; i++) {
		const char *m = t->parts[i].set.minor;
		if (t->parts[i].kind != CROSS_PYTHON)
			continue;
		if (c->abi3 ? version_dotted_cmp(m, c->python) >= 0 &&
		                  (!headers || version_dotted_cmp(m, headers) < 0)
		            : !strcmp(m, c->python))
			headers = m;
	}
	if (!headers)
		return false;
	add(e, parts, arena_printf(e->a, "python-%s", headers));
	for (size_t i = 0; c->abi3 && i < t->n_parts; i++) {
		const char *m = t->parts[i].set.minor;
		if (t->parts[i].kind == CROSS_PYTHON && version_dotted_cmp(m, c->python) >= 0 &&
		    strv_contains(&e->p->cfg->matrix.python, m))
			add(e, parts, arena_printf(e->a, "python-%s", m));
	}
	return true;
}

bool gh_cross_cell(struct emit *e, const struct cell *c, struct strv *parts)
{
	const struct cross_target *t =
	    e->o->cross ? cross_target_find(e->o->cross, c->platform) : NULL;
	if (!t)
		return left_out(
		    e, c,
		    arena_printf(e->a, "cuwheel's cross lock pins nothing for %s", c->platform));
	if (!e->o->lock_cuda || !strv_contains(e->o->lock_cuda, c->cuda))
		return left_out(e, c,
		                arena_printf(e->a,
		                             "cuwheel's toolkit lock pins no CUDA %s for the "
		                             "runner's nvcc",
		                             c->cuda));
	if (!cross_part_for(t, CROSS_CUDA, c->cuda))
		return left_out(e, c,
		                arena_printf(e->a, "the cross lock pins no %s CUDA %s runtime",
		                             c->platform, c->cuda));
	struct strv mine = {0};
	add(e, &mine, "gcc");
	add(e, &mine, arena_printf(e->a, "cuda-%s", c->cuda));
	if (c->torch) {
		const struct cross_part *tp = cross_torch_part(t, c->torch, c->python, c->abi3);
		if (!tp)
			return left_out(e, c,
			                arena_printf(e->a,
			                             "the cross lock pins no %s torch %s wheel for "
			                             "Python %s%s",
			                             c->platform, c->torch, c->python,
			                             c->abi3 ? " or newer" : ""));
		add(e, &mine, tp->id);
		add(e, &mine, arena_printf(e->a, "python-%s", tp->python));
	} else if (!python_parts(e, t, c, &mine)) {
		return left_out(e, c,
		                arena_printf(e->a,
		                             "no %s CPython %s headers: Debian has none for arm64; "
		                             "the abi3 wheel covers it",
		                             c->platform, c->python));
	}
	for (size_t i = 0; i < mine.n; i++)
		add(e, parts, mine.v[i]);
	return true;
}
