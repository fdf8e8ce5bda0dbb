/* cmd_audit.c: placeholder until the command lands; removed from the table if it does not. */
#include <stdio.h>

#include "cli/cli.h"

const char cmd_audit_help[] = "usage: cuwheel audit\n\nNot implemented yet.\n";

int cmd_audit(struct cli *c, int argc, char **argv)
{
	fprintf(stderr, "cuwheel: error: 'audit' is not implemented yet\n");
	return CLI_FAIL;
}
