/* cmd_plan.c: placeholder until the command lands; removed from the table if it does not. */
#include <stdio.h>

#include "cli/cli.h"

const char cmd_plan_help[] = "usage: cuwheel plan\n\nNot implemented yet.\n";

int cmd_plan(struct cli *c, int argc, char **argv)
{
	fprintf(stderr, "cuwheel: error: 'plan' is not implemented yet\n");
	return CLI_FAIL;
}
