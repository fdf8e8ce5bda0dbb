/* cmd_report.c: `cuwheel report`: the last build as HTML (grid, timeline, audits, toolchain),
 * JSON and a Chrome trace. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/plan_common.h"
#include "cli/report.h"

const char cmd_report_help[] =
    "usage: cuwheel report [--out DIR] [--json] [--trace]\n"
    "\n"
    "Writes the report of the last `cuwheel build` (every build also writes it into the build\n"
    "dir): report.html, one self-contained page with the matrix as a grid (each cell coloured\n"
    "by its result, with its wheel, size and time), a timeline of every step on the cores\n"
    "(kernel archives and per-Python cells in two colours), each wheel's audit findings and\n"
    "the toolchain; report-data.json, the same data; report-trace.json, the steps as Chrome\n"
    "trace events (open in ui.perfetto.dev or chrome://tracing).\n"
    "\n"
    "Options:\n"
    "  --out DIR   write the three files into DIR (default: the build dir)\n"
    "  --json      print the data JSON on stdout instead of writing files\n"
    "  --trace     print the trace JSON on stdout instead of writing files\n"
    "\n"
    "Exit status: 0 written, 1 no build to report on, 2 usage.\n";

int cmd_report(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"out", required_argument, NULL, 'o'},
	    {"json", no_argument, NULL, 'J'},
	    {"trace", no_argument, NULL, 'T'},
	    {NULL, 0, NULL, 0},
	};
	const char *out = NULL;
	bool json = false, trace = false;
	optind = 0;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			out = optarg;
			break;
		case 'J':
			json = true;
			break;
		case 'T':
			trace = true;
			break;
		default:
			return cli_usage(c, "report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage(c, "report", "unexpected argument '%s'", argv[optind]);
	if (json && trace)
		return cli_usage(c, "report",
		                 "--json and --trace each print one document; pick one");
	struct matrix_opts mo = {0};
	struct plan_ctx pc;
	int rc = plan_load(c, &mo, &pc);
	if (rc != CLI_OK)
		return rc;
	if (!json && !trace)
		return report_write(c, &pc, NULL, out);
	struct report r;
	if (!report_load(c, &pc, &r))
		return CLI_FAIL;
	json_t *doc = json ? report_json(&pc, &r) : report_trace(&r);
	int ok = json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0;
	printf("\n");
	json_decref(doc);
	report_free(&r);
	return ok ? CLI_OK : CLI_FAIL;
}
