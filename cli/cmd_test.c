/* cmd_test.c: placeholder until the command lands; removed from the table if it does not. */
#include <stdio.h>

#include "cli/cli.h"

const char cmd_test_help[] = "usage: cuwheel test\n\nNot implemented yet.\n";

int cmd_test(struct cli *c, int argc, char **argv)
{
	fprintf(stderr, "cuwheel: error: 'test' is not implemented yet\n");
	return CLI_FAIL;
}
