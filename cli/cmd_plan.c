/* cmd_plan.c: `cuwheel plan`: the expanded matrix, explained. */
#include <getopt.h>
#include <stdio.h>

#include "cli/plan_common.h"
#include "matrix/shard.h"

const char cmd_plan_help[] =
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
    "Options:\n"
    "  SDIST.tar.gz   unpack this sdist (into the build dir's sdist/) and plan it; needs\n"
    "                 --config\n"
    "  --config FILE  the manifest beside the project: [tool.cuwheel] and, optionally,\n"
    "                 [project] overrides; the metadata comes from the project's PKG-INFO\n"
    "  --json       print the plan as JSON (format 1: project, toolkits[], cells[])\n"
    "  --only ID    keep only cells matching ID (an identifier or a glob); repeatable\n"
    "  --shard I/N  keep only the I-th of N balanced shards of the selected cells, for CI\n"
    "               systems that split work themselves; a toolkit's cells stay in one shard\n"
    "               where a group boundary lies near the even cut; every cell is in exactly\n"
    "               one shard (cuwheel build --only takes the identifiers it lists)\n"
    "\n"
    "Exit status: 0 when at least one cell is selected, 3 when none is, 1 on errors.\n";

int cmd_plan(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"only", required_argument, NULL, 'o'},
	    {"shard", required_argument, NULL, 's'},
	    {"config", required_argument, NULL, 'c'},
	    {NULL, 0, NULL, 0},
	};
	bool json = false;
	size_t shard_i = 0, shard_n = 0;
	struct matrix_opts mo = {0};
	optind = 0;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, "-:", opts, NULL)) != -1) {
		switch (ch) {
		case ':':
			return cli_usage(c, "plan", "option '%s' needs a value", argv[optind - 1]);
		case 'j':
			json = true;
			break;
		case 'c':
			c->config_file = optarg;
			break;
		case 1: /* a positional argument, wherever it stands: the sdist */
			if (c->sdist || !cli_is_sdist(optarg))
				return cli_usage(c, "plan", "unexpected argument '%s'", optarg);
			c->sdist = optarg;
			break;
		case 'o':
			strv_push(&c->arena, &mo.only, optarg);
			break;
		case 's':
			if (!matrix_shard_parse(optarg, &shard_i, &shard_n))
				return cli_usage(c, "plan",
				                 "--shard wants I/N with 1 <= I <= N, not '%s'",
				                 optarg);
			break;
		default:
			return cli_usage(c, "plan", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage(c, "plan", "unexpected argument '%s'", argv[optind]);
	struct plan_ctx pc;
	int rc = plan_load(c, &mo, &pc);
	if (rc != CLI_OK)
		return rc;
	if (shard_n)
		matrix_shard(&c->arena, &pc.plan, shard_i, shard_n);
	rc = plan_torch(c, &pc);
	if (rc != CLI_OK)
		return rc;
	if (json)
		rc = plan_print_json(&pc, stdout);
	else
		plan_print_table(&pc, stdout);
	if (rc == CLI_OK && pc.plan.n_selected == 0) {
		fprintf(stderr, "cuwheel: nothing selected: every cell is excluded, skipped, not "
		                "paired (a torch with another CUDA) or not named by --only\n");
		return CLI_NOTHING;
	}
	return rc;
}
