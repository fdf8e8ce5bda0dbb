/* torch_builds.c: the table of ci/torch_builds.def, and the pairing of torch cells by it. */
#include "ci/torch_builds.h"

#include <string.h>

static const struct torch_build builds[] = {
#define TORCH_BUILD(minor, release, pypi, cudas) {minor, release, pypi, cudas},
#include "ci/torch_builds.def"
#undef TORCH_BUILD
};

const struct torch_build *torch_build_find(const char *minor)
{
	for (size_t i = 0; i < sizeof(builds) / sizeof(*builds); i++)
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

/* Returns NULL when PyTorch publishes torch minor for CUDA cuda, else why not. */
static const char *torch_build_why_not(struct arena *a, const char *minor, const char *cuda)
{
	const struct torch_build *b = torch_build_find(minor);
	if (!b)
		return arena_printf(a,
		                    "torch %s is not in cuwheel's table of PyTorch's builds "
		                    "(ci/torch_builds.def)",
		                    minor);
	if (word_in(b->cudas, cuda) || !strcmp(b->pypi, cuda))
		return NULL;
	return arena_printf(a, "PyTorch publishes no torch %s build for CUDA %s (its builds: %s)",
	                    b->release, cuda, b->cudas);
}

bool torch_builds_pair(struct arena *a, struct diag *d, struct plan *p)
{
	bool ok = true;
	size_t left = 0;
	for (size_t i = 0; i < p->n_cells; i++) {
		struct cell *c = &p->cells[i];
		if (c->torch && !torch_build_find(c->torch)) {
			diag_msg(d, DIAG_ERROR, "%s: %s", c->id,
			         torch_build_why_not(a, c->torch, c->cuda));
			diag_msg(d, DIAG_HINT,
			         "tools/update-torch-builds regenerates it from PyTorch's index");
			ok = false;
			continue;
		}
		/* The local pairing (which torch is installed here) is not the workflow's. */
		if (c->torch && c->unpaired && c->unselected_by == c->unpaired) {
			c->selected = true;
			c->unselected_by = NULL;
		}
		const char *why = c->torch ? torch_build_why_not(a, c->torch, c->cuda) : NULL;
		if (why && c->selected) {
			diag_msg(d, DIAG_WARNING, "%s left out of the workflow: %s", c->id, why);
			c->selected = false;
			c->unselected_by = why;
		}
		left += c->selected;
	}
	p->n_selected = left;
	if (ok && !left) {
		diag_msg(d, DIAG_ERROR,
		         "no selected cell is a (torch, CUDA) pair PyTorch publishes");
		ok = false;
	}
	return ok;
}
