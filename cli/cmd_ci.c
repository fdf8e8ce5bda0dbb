/* cmd_ci.c: placeholder until the command lands; removed from the table if it does not. */
#include <stdio.h>

#include "cli/cli.h"

const char cmd_ci_help[] = "usage: cuwheel ci github\n\nNot implemented yet.\n";

int cmd_ci(struct cli *c, int argc, char **argv)
{
	fprintf(stderr, "cuwheel: error: 'ci' is not implemented yet\n");
	return CLI_FAIL;
}
