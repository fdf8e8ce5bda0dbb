/* cmd_toolkit.c: placeholder until the command lands; removed from the table if it does not. */
#include <stdio.h>

#include "cli/cli.h"

const char cmd_toolkit_help[] = "usage: cuwheel toolkit\n\nNot implemented yet.\n";

int cmd_toolkit(struct cli *c, int argc, char **argv)
{
	fprintf(stderr, "cuwheel: error: 'toolkit' is not implemented yet\n");
	return CLI_FAIL;
}
