/* cmd_pack.c: placeholder until the command lands; removed from the table if it does not. */
#include <stdio.h>

#include "cli/cli.h"

const char cmd_pack_help[] = "usage: cuwheel pack\n\nNot implemented yet.\n";

int cmd_pack(struct cli *c, int argc, char **argv)
{
	fprintf(stderr, "cuwheel: error: 'pack' is not implemented yet\n");
	return CLI_FAIL;
}
