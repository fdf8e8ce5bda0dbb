/* cmd_report.c: `cuwheel report`: the last build as HTML (grid, timeline, audits, toolchain),
 * JSON and a Chrome trace, rendered from the report.json it wrote: the toolchain shown is the
 * one that build used, whatever this machine has now. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os-file.h"
#include "cli/cli.h"
#include "cli/plan_common.h"
#include "report/report.h"

enum report_option { REPORT_OUT, REPORT_JSON, REPORT_TRACE };

static const struct cli_option report_options[] = {
    {"out", 0, "DIR", REPORT_OUT,
     "write report.html, report.json and report-trace.json into DIR\n"
     "(default: report.html and report-trace.json into the build dir)"},
    {"json", 0, NULL, REPORT_JSON, "print report.json on stdout instead of writing files"},
    {"trace", 0, NULL, REPORT_TRACE, "print the trace JSON on stdout instead of writing files"},
    {0},
};

const struct cli_help cmd_report_help = {
    .text =
        "usage: cuwheel report [--out DIR] [--json] [--trace]\n"
        "\n"
        "Writes the report of the last `cuwheel build` from the report.json it left in the build\n"
        "dir (every build also writes the report there): report.html, one self-contained page\n"
        "with the matrix as a grid (each cell coloured by its result, with its wheel, size and\n"
        "time), a timeline of every step on the cores (kernel archives and per-Python cells in\n"
        "two colours), each wheel's audit findings and the toolchain the build used;\n"
        "report-trace.json, the steps as Chrome trace events (open in ui.perfetto.dev or\n"
        "chrome://tracing). report.json is the build's result itself (docs/manual/report.md).\n",
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
	struct plan_ctx *setup;
	int src = cli_setup(c, NULL, &setup);
	if (src != CLI_OK)
		return src;
	struct config cfg = setup->cfg;
	struct build_result m;
	if (!result_load(&c->arena, &c->diag, cfg.build_dir, &m))
		return CLI_FAIL;
	if (!json && !trace) {
		const char *dir = out ? out : cfg.build_dir;
		if (!report_write(&c->arena, &c->diag, &m, dir, out != NULL))
			return CLI_FAIL;
		printf("report: %s (and report-trace.json%s beside it)\n",
		       os_join(&c->arena, dir, "report.html"), out ? ", report.json" : "");
		return CLI_OK;
	}
	json_t *doc = json ? result_to_json(&m) : report_trace(&m);
	char *text = report_dump(&c->arena, doc);
	json_decref(doc);
	if (!text)
		return CLI_FAIL;
	fputs(text, stdout);
	return CLI_OK;
}
