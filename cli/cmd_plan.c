/* cmd_plan.c: `cuwheel plan`: the expanded matrix, explained. */
#include <stdio.h>
#include <string.h>

#include "cli/plan_common.h"
#include "matrix/shard.h"

enum plan_option {
	PLAN_JSON,
	PLAN_ONLY,
	PLAN_SHARD,
	PLAN_CONFIG,
	PLAN_SETUP_ENV,
	PLAN_UNSANDBOXED
};

static const struct cli_option plan_options[] = {
    {"config", 0, "FILE", PLAN_CONFIG,
     "the manifest beside the project: [tool.cuwheel] and, optionally,\n"
     "[project] overrides; the metadata comes from the project's PKG-INFO"},
    {"setup-env", 0, "K=V", PLAN_SETUP_ENV,
     "without [tool.cuwheel] (setup.py is captured): a switch setup.py reads\n"
     "(FORCE_CUDA=1); repeatable (see cuwheel init)"},
    {"unsandboxed", 0, NULL, PLAN_UNSANDBOXED,
     "without [tool.cuwheel]: run setup.py without the sandbox (see cuwheel\n"
     "init; also CUWHEEL_UNSANDBOXED=1)"},
    {"json", 0, NULL, PLAN_JSON,
     "print the plan document that `cuwheel build` writes to plan.json\n"
     "(docs/manual/plan-json.md): the matrix, every cell and why, and what\n"
     "the build's graph is rendered from"},
    {"only", 0, "ID", PLAN_ONLY,
     "keep only cells matching ID (an identifier or a glob); repeatable"},
    {"shard", 0, "I/N", PLAN_SHARD,
     "keep only the I-th of N balanced shards of the selected cells, for CI\n"
     "systems that split work themselves; a toolkit's cells stay in one shard\n"
     "where a group boundary lies near the even cut; every cell is in exactly\n"
     "one shard (cuwheel build --only takes the identifiers it lists)"},
    {0},
};

const struct cli_help cmd_plan_help = {
    .text =
        "usage: cuwheel plan [SDIST.tar.gz] [--config FILE] [--json] [--only ID]... [--shard I/N]\n"
        "\n"
        "Expands [tool.cuwheel.matrix] (python x cuda x torch x platform, include/exclude,\n"
        "build/skip globs) against the toolkits and Pythons found here, and prints every cell:\n"
        "its identifier (cp312-cu130-linux_x86_64, cp310-abi3-cu130-..., cp312-pt26-cu124-...),\n"
        "the wheel it will produce, and whether this machine can build it or why not. It also\n"
        "shows, per toolkit, the GPU targets the kernels will be compiled for and the requested\n"
        "ones the toolkit cannot build. With --config, it first says where every metadata field\n"
        "came from (PKG-INFO:LINE, the config's [project], or a default).\n"
        "\n"
        "SDIST.tar.gz: unpack this sdist (into the build dir's sdist/) and plan it. Without\n"
        "--config and [tool.cuwheel], the build is read from its setup.py (see cuwheel init).\n",
    .groups = {{NULL, plan_options}},
    .more = "Exit status: 0 when at least one cell is selected, 3 when none is, 1 on errors.\n",
};

int cmd_plan(struct cli *c, int argc, char **argv)
{
	bool json = false;
	size_t shard_i = 0, shard_n = 0;
	struct matrix_opts mo = {0};
	struct cli_args p;
	cli_args_init(&p, c, "plan", plan_options, CLI_ARGS_IN_TURN, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case PLAN_JSON:
			json = true;
			break;
		case PLAN_CONFIG:
			c->config_file = p.value;
			break;
		case PLAN_UNSANDBOXED:
			c->unsandboxed = true;
			break;
		case PLAN_SETUP_ENV:
			if (!strchr(p.value, '=') || p.value[0] == '=')
				return cli_usage(c, "plan", "--setup-env wants K=V, not '%s'",
				                 p.value);
			strv_push(&c->arena, &c->setup_env, p.value);
			break;
		case CLI_ARG_OPERAND: /* wherever it stands: the sdist */
			if (c->sdist || !cli_is_sdist(p.value))
				return cli_usage(c, "plan", "unexpected argument '%s'", p.value);
			c->sdist = p.value;
			break;
		case PLAN_ONLY:
			strv_push(&c->arena, &mo.only, p.value);
			break;
		case PLAN_SHARD:
			if (!matrix_shard_parse(p.value, &shard_i, &shard_n))
				return cli_usage(c, "plan",
				                 "--shard wants I/N with 1 <= I <= N, not '%s'",
				                 p.value);
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (p.next < argc)
		return cli_usage(c, "plan", "unexpected argument '%s'", argv[p.next]);
	struct plan_ctx *pc;
	int rc = cli_setup(c, &mo, &pc);
	if (rc != CLI_OK)
		return rc;
	if (shard_n)
		matrix_shard(&c->arena, &pc->plan, shard_i, shard_n);
	struct graph_plan gp;
	char *text;
	rc = plan_resolve(c, pc, &gp, &text);
	if (rc != CLI_OK)
		return rc;
	if (json)
		fputs(text, stdout);
	else
		plan_print_table(pc, stdout);
	if (rc == CLI_OK && pc->plan.n_selected == 0) {
		diag_msg(&c->diag, DIAG_NOTE,
		         "nothing selected: every cell is excluded, skipped, not paired (a torch "
		         "with another CUDA) or not named by --only");
		return CLI_NOTHING;
	}
	return rc;
}
