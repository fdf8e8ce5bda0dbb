/* github_steps.c: what every job writer of the workflow (github.c, github_jobs.c,
 * github_publish.c) uses: the pinned actions' `uses:` lines and a job's Pythons. */
#include <stdio.h>

#include "base/strbuf.h"
#include "ci/actions.h"
#include "ci/github_internal.h"

const char *gh_pythons(struct emit *e, const size_t *cells, size_t n)
{
	struct strv seen = {0};
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++) {
		const char *py = e->p->cells[cells[i]].python;
		if (strv_contains(&seen, py))
			continue;
		strv_push(e->a, &seen, py);
		sb_printf(&sb, "%s%s", seen.n > 1 ? "\n" : "", py);
	}
	return sb_to_arena(&sb, e->a);
}

static const struct {
	const char *use, *tag;
} actions[] = {
#define X(en, use, tag) {use, tag},
    CI_ACTIONS(X)
#undef X
};

void gh_uses(struct emit *e, int ind, enum ci_action act, bool item)
{
	sb_printf(&e->sb, "%*s%suses: %s # %s\n", ind, "", item ? "- " : "", actions[act].use,
	          actions[act].tag);
}
