/* plan_common.h: what plan, build and ci share: load the config, discover, expand. */
#ifndef CUWHEEL_CLI_PLAN_COMMON_H
#define CUWHEEL_CLI_PLAN_COMMON_H

#include "cli/cli.h"
#include "graph/buildgraph.h"
#include "matrix/config.h"
#include "toolchain/discover.h"
#include "matrix/matrix.h"
#include "torch/torch_plan.h"
#include "toolchain/provision.h"

struct plan_ctx {
	struct config cfg;
	struct discovery ds;
	struct plan plan;
	struct matrix_opts opts;          /* as given, plus the provisionable CUDA minors */
	const struct torch_plan *tp;      /* the preprocessor's torch decisions, or NULL */
	const struct torch_plan *decided; /* all of its decisions (also those of the extensions
	                                   * of other kinds), or NULL before plan_resolve */
	/* Kernels and a torch extension's own .cu sources with device line info
	 * (plan_line_info): bubblewrap, where they compile with the project and the build dir at
	 * fixed paths, else NULL; the line plan shows about it, or NULL when no such .cu has line
	 * info. */
	const char *li_bwrap, *li_note;
};

/* Loads the config: the project's pyproject.toml, or --config FILE with the project in -C DIR
 * or unpacked from the SDIST argument (into the build dir's sdist/). False after diagnostics. */
bool cli_config_load(struct cli *c, struct config *cfg);
/* A path given on the command line (p), as if cuwheel had started in -C DIR. */
const char *cli_from_dir(struct cli *c, const char *p);
/* Loads the toolkit lock file, where there is one, for what it can provision: false when there
 * is none (quietly) or it cannot be read (a warning: nothing is provisioned from it). */
bool cli_provision_lock_quiet(struct cli *c, struct provision_lock *lock);
/* Loads what the running command's row of the command table needs (c->needs): the config, or
 * the plan (the config, discovery, the matrix expanded with o); once: a second call gives what the
 * first loaded. *out: the plan_ctx holding it (only cfg is set for CLI_NEEDS_CONFIG). Returns
 * CLI_OK or the exit code to return. */
int cli_setup(struct cli *c, const struct matrix_opts *o, struct plan_ctx **out);
/* cli_setup for a command that can start work before torch is imported (build's early
 * compiles): the plan with torch's answers read from its files where no cached probe holds an
 * import's (discover_opts.torch_files), its messages held back. Returns it (*read: some answer
 * was read from files, and cli_setup then imports torch and plans again), or NULL where it
 * cannot serve (no plan needed, an sdist, a project read from setup.py, a load that failed, a
 * torch whose files cannot answer). A plan with no answer read from files is cli_setup's:
 * its messages are reported and cli_setup returns it. */
struct plan_ctx *cli_setup_torch_files(struct cli *c, const struct matrix_opts *o, bool *read);
/* Installs the toolkits that selected cells need and cuwheel can provision, then discovers
 * and expands again. Returns CLI_OK or CLI_FAIL. */
int plan_provision(struct cli *c, struct plan_ctx *pc);
/* Finds ccache as the config asks (*ccache NULL: none, or ccache = "off"); CLI_FAIL after an
 * error on d when ccache = "on" and it is not on PATH. */
int plan_ccache(struct cli *c, const struct config *cfg, struct diag *d, const char **ccache);
/* Decides where kernels and a torch extension's own .cu sources with device line info
 * (-lineinfo, -G) compile: sets pc->li_bwrap (bubblewrap works, and every such source and
 * include dir lies in the project) and pc->li_note. Once; a later call keeps the first
 * answer. */
void plan_line_info(struct cli *c, struct plan_ctx *pc);
/* Resolves pc's plan as `cuwheel build` does (its default options), writing no build file,
 * into gp and *text, the plan document build writes to plan.json; sets pc->tp where the table
 * shows the torch decisions. Returns CLI_OK or CLI_FAIL, after diagnostics. */
int plan_resolve(struct cli *c, struct plan_ctx *pc, struct graph_plan *gp, char **text);
/* Prints the plan as a table (stdout). */
void plan_print_table(const struct plan_ctx *pc, FILE *f);

#endif
