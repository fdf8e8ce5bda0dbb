/* cmd_index.c: placeholder until the command lands; removed from the table if it does not. */
#include <stdio.h>

#include "cli/cli.h"

const char cmd_index_help[] = "usage: cuwheel index\n\nNot implemented yet.\n";

int cmd_index(struct cli *c, int argc, char **argv)
{
	fprintf(stderr, "cuwheel: error: 'index' is not implemented yet\n");
	return CLI_FAIL;
}
