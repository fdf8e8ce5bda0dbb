/* cmd_report.c: `cuwheel report`: the last build as HTML (grid, timeline, audits, toolchain),
 * JSON and a Chrome trace. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/plan_common.h"
#include "cli/report.h"

enum report_option { REPORT_OUT, REPORT_JSON, REPORT_TRACE };

static const struct cli_option report_options[] = {
    {"out", 0, "DIR", REPORT_OUT, "write the three files into DIR (default: the build dir)"},
    {"json", 0, NULL, REPORT_JSON, "print the data JSON on stdout instead of writing files"},
    {"trace", 0, NULL, REPORT_TRACE, "print the trace JSON on stdout instead of writing files"},
    {0},
};

const struct cli_help cmd_report_help = {
    .text =
        "usage: cuwheel report [--out DIR] [--json] [--trace]\n"
        "\n"
        "Writes the report of the last `cuwheel build` (every build also writes it into the\n"
        "build dir): report.html, one self-contained page with the matrix as a grid (each cell\n"
        "coloured by its result, with its wheel, size and time), a timeline of every step on the\n"
        "cores (kernel archives and per-Python cells in two colours), each wheel's audit findings\n"
        "and the toolchain; report-data.json, the same data; report-trace.json, the steps as\n"
        "Chrome trace events (open in ui.perfetto.dev or chrome://tracing).\n",
    .groups = {{NULL, report_options}},
    .more = "Exit status: 0 written, 1 no build to report on, 2 usage.\n",
};

int cmd_report(struct cli *c, int argc, char **argv)
{
	const char *out = NULL;
	bool json = false, trace = false;
	struct cli_args p;
	cli_args_init(&p, c, "report", report_options, CLI_ARGS_LAST, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case REPORT_OUT:
			out = p.value;
			break;
		case REPORT_JSON:
			json = true;
			break;
		case REPORT_TRACE:
			trace = true;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (p.next < argc)
		return cli_usage(c, "report", "unexpected argument '%s'", argv[p.next]);
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
