/* cmd_build.c: placeholder until the command lands; removed from the table if it does not. */
#include <stdio.h>

#include "cli/cli.h"

const char cmd_build_help[] = "usage: cuwheel build\n\nNot implemented yet.\n";

int cmd_build(struct cli *c, int argc, char **argv)
{
	fprintf(stderr, "cuwheel: error: 'build' is not implemented yet\n");
	return CLI_FAIL;
}
