/* build_run.c: runs ninja for a build; its own status lines are the progress display. */
#include "cli/build_run.h"

#include "base/os.h"

bool build_run_ninja(struct cli *c, const struct plan *p, const struct build_graph *g,
		     const char *const *argv, const char *const *env, int *status)
{
	(void)p;
	(void)g;
	struct os_run r = {.argv = argv, .env = env};
	return os_run(&c->diag, &r, NULL, status);
}
