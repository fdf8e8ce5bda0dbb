/* shard.c: balanced shards of a plan, cut at (platform, toolkit) group boundaries when a
 * boundary lies near the even cut, so that a toolkit's kernels are built by as few shards as
 * possible. */
#include "matrix/shard.h"

#include <stdlib.h>
#include <string.h>

bool matrix_shard_parse(const char *text, size_t *index, size_t *count)
{
	char *end;
	if (!text || !(*text >= '0' && *text <= '9'))
		return false;
	unsigned long i = strtoul(text, &end, 10);
	if (*end != '/' || !(end[1] >= '0' && end[1] <= '9'))
		return false;
	unsigned long n = strtoul(end + 1, &end, 10);
	if (*end || i < 1 || n < 1 || i > n || n > 100000)
		return false;
	*index = i;
	*count = n;
	return true;
}

/* The group of a cell: the index of the first selected cell with its platform and toolkit. */
static size_t group_of(const struct plan *p, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (p->cells[j].selected && p->cells[j].toolkit == p->cells[i].toolkit &&
		    !strcmp(p->cells[j].platform, p->cells[i].platform))
			return j;
	return i;
}

bool matrix_shard(struct arena *a, struct plan *p, size_t index, size_t count)
{
	if (index < 1 || count < 1 || index > count)
		return false;
	/* The selected cells in group order (groups by first appearance, cells in plan order). */
	size_t *order = arena_calloc(a, p->n_cells + 1, sizeof(*order));
	size_t *group = arena_calloc(a, p->n_cells + 1, sizeof(*group));
	size_t t = 0;
	for (size_t i = 0; i < p->n_cells; i++)
		if (p->cells[i].selected)
			group[i] = group_of(p, i);
	for (size_t g = 0; g < p->n_cells; g++) {
		if (!p->cells[g].selected || group[g] != g)
			continue;
		for (size_t i = g; i < p->n_cells; i++)
			if (p->cells[i].selected && group[i] == g)
				order[t++] = i;
	}
	/* Cut k sits at the even position round(k*t/count), moved to the nearest group
	 * boundary when one lies within a quarter of a shard. */
	size_t tol = t / (4 * count);
	size_t lo = 0, hi = t, prev = 0;
	for (size_t k = 1; k < count; k++) {
		size_t ideal = (k * t + count / 2) / count, cut = ideal;
		size_t best = (size_t)-1;
		for (size_t b = 0; b <= t; b++) {
			bool boundary = b == 0 || b == t || group[order[b - 1]] != group[order[b]];
			size_t dist = b > ideal ? b - ideal : ideal - b;
			if (boundary && dist <= tol && (best == (size_t)-1 || dist < best)) {
				best = dist;
				cut = b;
			}
		}
		if (cut < prev)
			cut = prev;
		if (k == index - 1)
			lo = cut;
		if (k == index)
			hi = cut;
		prev = cut;
	}
	char *why = arena_printf(a, "--shard %zu/%zu", index, count);
	for (size_t r = 0; r < t; r++) {
		if (r >= lo && r < hi)
			continue;
		p->cells[order[r]].selected = false;
		p->cells[order[r]].unselected_by = why;
	}
	p->n_selected = p->n_buildable = 0;
	for (size_t i = 0; i < p->n_toolkits; i++)
		p->toolkits[i].used = false;
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct cell *c = &p->cells[i];
		if (!c->selected)
			continue;
		p->n_selected++;
		if (c->buildable) {
			p->n_buildable++;
			p->toolkits[c->toolkit].used = true;
		}
	}
	return true;
}
