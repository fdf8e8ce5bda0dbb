/* cmd_report.c: placeholder until the command lands; removed from the table if it does not. */
#include <stdio.h>

#include "cli/cli.h"

const char cmd_report_help[] = "usage: cuwheel report\n\nNot implemented yet.\n";

int cmd_report(struct cli *c, int argc, char **argv)
{
	fprintf(stderr, "cuwheel: error: 'report' is not implemented yet\n");
	return CLI_FAIL;
}
