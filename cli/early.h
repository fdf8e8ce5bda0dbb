/* early.h: the kernels' compiles started before the scans end. A cold `cuwheel build` of a
 * torch project spends seconds scanning sources (nvcc -M, the Python-free proof's -E pairs)
 * before its graph exists, and the kernels' commands wait on those answers. So the build
 * guesses them (the kernels' decisions from their text: torch/kernel_guess.h), renders the
 * kernel archives alone and runs a second ninja on them in the background, in
 * <build-dir>/early, while the scans run. Each compile goes through `cuwheel internal
 * nvcc-overlap` as the graph's own does (under ccache, a miss through its prefix script); the
 * graph's edge adopts the early result only when its command is the same, byte for byte, the
 * early run passed, and no file its depfile names changed after it started; any other edge
 * compiles as ever. Under ccache an early compile that ended first is a hit of the edge's. Where
 * the scans decided other flags, the early ninja is stopped before the build's starts and its
 * objects removed. Where torch is not yet imported (no cached probe), the plan it starts from
 * has torch's answers read from its files (cli_setup_torch_files) and the import runs beside
 * it. CUWHEEL_EARLY_KERNELS=off turns it off. */
#ifndef CUWHEEL_CLI_EARLY_H
#define CUWHEEL_CLI_EARLY_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "cli/cli.h"
#include "graph/buildgraph.h"

/* The environment variable the two ninjas hand to nvcc-overlap: "run:DIR" (the early ninja:
 * run and keep the result in DIR) or "adopt:DIR" (the build's: take a result kept there). */
#define EARLY_ENV "CUWHEEL_EARLY"

/* The early ninja of one build. */
struct early {
	pid_t pid;           /* 0: none runs */
	const char *dir;     /* <build-dir>/early (absolute) */
	struct strv targets; /* the objects it compiles, build-dir relative */
	bool adopt;          /* the build's graph holds them: its ninja gets EARLY_ENV */
	bool ccache;         /* they run through ccache */
};

/* CUWHEEL_EARLY_KERNELS=off in env: no early compile. */
bool early_off(const char *const *env);
/* Starts the early ninja for plan (bo: the build's graph options; ninja; env: ninja's
 * environment additions; jobs: its -j; t0: the command's start, CLOCK_MONOTONIC) when the plan has
 * kernels and a torch extension, the kernels' objects do not exist yet, and no CCACHE_PREFIX of the
 * user's would compile them outside nvcc-overlap; says so on stdout. Quiet when it cannot: the
 * build compiles them as ever. */
void early_start(struct cli *c, struct early *e, const struct plan *plan,
                 const struct build_opts *bo, const char *ninja, const char *const *env, int jobs,
                 const struct timespec *t0);
/* Before the build's ninja runs graph g: when g holds every early object (the same flags),
 * returns env with EARLY_ENV added for the build's ninja; else stops the early ninja, removes
 * what it wrote, says so, and returns env. */
const char **early_settle(struct cli *c, struct early *e, const struct build_graph *g,
                          const char **env);
/* After the build's ninja: stops the early ninja if it still runs, says how many of its
 * compiles the build used (built: the build's ninja passed), and removes <build-dir>/early. */
void early_finish(struct cli *c, struct early *e, bool built);

/* nvcc-overlap's side, for the compile cmd. */
enum early_step {
	EARLY_NONE,    /* no early run for it: compile as ever */
	EARLY_RUN,     /* the early ninja's: compile, then early_step_end */
	EARLY_ADOPTED, /* the build's: the early result is in place (object, depfile, output) */
};
struct early_run {
	int lock;         /* held while the early compile runs */
	const char *base; /* DIR/<digest of the object's path> */
	const char *depfile;
};
enum early_step early_step_begin(struct cli *c, const char *const *cmd, struct early_run *r);
/* Keeps the early compile's outcome (status) and depfile for the build's edge. */
void early_step_end(struct cli *c, struct early_run *r, int status);

#endif
