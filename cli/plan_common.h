/* plan_common.h: what plan, build and ci share: load the config, discover, expand. */
#ifndef CUWHEEL_CLI_PLAN_COMMON_H
#define CUWHEEL_CLI_PLAN_COMMON_H

#include "cli/cli.h"
#include "matrix/config.h"
#include "toolchain/discover.h"
#include "matrix/matrix.h"
#include "torch/torch_plan.h"
#include "toolchain/provision.h"

struct plan_ctx {
	struct config cfg;
	struct discovery ds;
	struct plan plan;
	struct matrix_opts opts;     /* as given, plus the provisionable CUDA minors */
	const struct torch_plan *tp; /* the preprocessor's torch decisions, or NULL */
};

/* Loads the config: the project's pyproject.toml, or --config FILE with the project in -C DIR
 * or unpacked from the SDIST argument (into the build dir's sdist/). False after diagnostics. */
bool cli_config_load(struct cli *c, struct config *cfg);
/* Loads the toolkit lock file, where there is one, for what it can provision: false when there
 * is none (quietly) or it cannot be read (a warning: nothing is provisioned from it). */
bool cli_provision_lock_quiet(struct cli *c, struct provision_lock *lock);
/* Loads, discovers and expands; returns CLI_OK or the exit code to return. */
int plan_load(struct cli *c, const struct matrix_opts *o, struct plan_ctx *pc);
/* Installs the toolkits that selected cells need and cuwheel can provision, then discovers
 * and expands again. Returns CLI_OK or CLI_FAIL. */
int plan_provision(struct cli *c, struct plan_ctx *pc);
/* Takes the torch decisions (torch_plan.h) when the project has torch sources and sets pc->tp;
 * returns CLI_OK or CLI_FAIL. */
int plan_torch(struct cli *c, struct plan_ctx *pc);
/* Prints the plan as a table (stdout). */
void plan_print_table(const struct plan_ctx *pc, FILE *f);
/* Prints the plan as JSON (stdout). */
int plan_print_json(const struct plan_ctx *pc, FILE *f);

#endif
