/* torch_builds.c: the table of ci/torch_builds.def, and the pairing of torch cells by it. */
#include "ci/torch_builds.h"

#include <string.h>

#include "standards/version.h"

static const struct torch_build builds[] = {
#define TORCH_BUILD(minor, release, pypi, cudas, pythons) {minor, release, pypi, cudas, pythons},
#include "ci/torch_builds.def"
#undef TORCH_BUILD
};

const struct torch_build *torch_build_find(const char *minor)
{
	for (size_t i = 0; minor && i < sizeof(builds) / sizeof(*builds); i++)
		if (!strcmp(builds[i].minor, minor))
			return &builds[i];
	return NULL;
}

static bool word_in(const char *list, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

bool torch_build_has_cuda(const struct torch_build *b, const char *cuda)
{
	return word_in(b->cudas, cuda) || !strcmp(b->pypi, cuda);
}

bool torch_build_has_python(const struct torch_build *b, const char *py)
{
	return word_in(b->pythons, py);
}

const char *torch_build_python(const struct plan *p, const struct cell *c)
{
	const struct torch_build *b = torch_build_find(c->torch);
	if (!c->abi3 || !b)
		return c->python;
	const char *best = NULL;
	for (size_t i = 0; i < p->pythons.n; i++) {
		const char *py = p->pythons.v[i];
		if (version_dotted_cmp(py, c->python) >= 0 && torch_build_has_python(b, py) &&
		    (!best || version_dotted_cmp(py, best) < 0))
			best = py;
	}
	return best ? best : c->python;
}

/* Why PyTorch publishes no build for torch cell c of p (by the table: its CUDA, or its Python;
 * a shared cell when no Python of the axis qualifies), or NULL: published, no torch cell, or a
 * torch the table does not know. */
static const char *torch_build_why_not(struct arena *a, const struct plan *p, const struct cell *c)
{
	const struct torch_build *b = c->torch ? torch_build_find(c->torch) : NULL;
	if (!b)
		return NULL;
	if (!torch_build_has_cuda(b, c->cuda))
		return arena_printf(
		    a, "PyTorch publishes no torch %s build for CUDA %s (its builds: %s)",
		    b->release, c->cuda, b->cudas);
	const char *py = torch_build_python(p, c);
	if (torch_build_has_python(b, py))
		return NULL;
	return arena_printf(a, "torch %s has no wheel for Python %s%s (its Pythons: %s)",
	                    b->release, py, c->abi3 ? " or a later one of the python axis" : "",
	                    b->pythons);
}

static void recount(struct plan *p)
{
	p->n_selected = p->n_buildable = 0;
	for (size_t i = 0; i < p->n_cells; i++) {
		p->n_selected += p->cells[i].selected;
		p->n_buildable += p->cells[i].selected && p->cells[i].buildable;
	}
}

void torch_builds_mark(struct arena *a, struct plan *p)
{
	for (size_t i = 0; i < p->n_cells; i++) {
		struct cell *c = &p->cells[i];
		const char *why = c->selected ? torch_build_why_not(a, p, c) : NULL;
		if (why) {
			c->selected = false;
			c->unselected_by = why;
		}
	}
	recount(p);
}

bool torch_builds_pair(struct arena *a, struct diag *d, struct plan *p)
{
	bool ok = true;
	for (size_t i = 0; i < p->n_cells; i++) {
		struct cell *c = &p->cells[i];
		if (c->torch && !torch_build_find(c->torch)) {
			diag_msg(d, DIAG_ERROR,
			         "%s: torch %s is not in cuwheel's table of PyTorch's builds "
			         "(ci/torch_builds.def)",
			         c->id, c->torch);
			diag_msg(d, DIAG_HINT,
			         "tools/update-torch-builds regenerates it from PyPI and PyTorch's "
			         "index");
			ok = false;
			continue;
		}
		/* The local pairing (which torch is installed here) is not the workflow's. */
		if (c->torch && c->unpaired && c->unselected_by == c->unpaired) {
			c->selected = true;
			c->unselected_by = NULL;
		}
		const char *why = c->selected ? torch_build_why_not(a, p, c) : NULL;
		if (why) {
			diag_msg(d, DIAG_WARNING, "%s left out of the workflow: %s", c->id, why);
			c->selected = false;
			c->unselected_by = why;
		}
	}
	recount(p);
	if (ok && !p->n_selected) {
		diag_msg(d, DIAG_ERROR,
		         "no selected cell is a (torch, CUDA, Python) PyTorch publishes");
		ok = false;
	}
	return ok;
}
