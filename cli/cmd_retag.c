/* cmd_retag.c: placeholder until the command lands; removed from the table if it does not. */
#include <stdio.h>

#include "cli/cli.h"

const char cmd_retag_help[] = "usage: cuwheel retag\n\nNot implemented yet.\n";

int cmd_retag(struct cli *c, int argc, char **argv)
{
	fprintf(stderr, "cuwheel: error: 'retag' is not implemented yet\n");
	return CLI_FAIL;
}
