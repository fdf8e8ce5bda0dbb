/* cmd_doctor.c: placeholder until the command lands; removed from the table if it does not. */
#include <stdio.h>

#include "cli/cli.h"

const char cmd_doctor_help[] = "usage: cuwheel doctor\n\nNot implemented yet.\n";

int cmd_doctor(struct cli *c, int argc, char **argv)
{
	fprintf(stderr, "cuwheel: error: 'doctor' is not implemented yet\n");
	return CLI_FAIL;
}
