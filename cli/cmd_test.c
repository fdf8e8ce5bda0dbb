/* cmd_test.c: `cuwheel test [WHEEL...]`: each wheel installed into a fresh venv of every Python
 * it is for, and the project's test command run there; a summary table or JSON. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/os-file.h"
#include "cli/plan_common.h"
#include "cli/cli.h"
#include "matrix/config.h"
#include "matrix/discover_project.h"
#include "wheeltest/wheeltest.h"
#include "standards/json_values.h"

enum test_option {
	TEST_JOBS,
	TEST_PYTHON,
	TEST_FIND_LINKS,
	TEST_KEEP_VENVS,
	TEST_JSON,
	TEST_DIR,
	TEST_CONFIG
};

static const struct cli_option test_options[] = {
    {"jobs", 'j', "N", TEST_JOBS, "run N (wheel, Python) pairs at once (default: one per CPU)"},
    {"python", 0, "X.Y", TEST_PYTHON, "only test on this Python (\"3.12\", \"3.13t\"); repeatable"},
    {"find-links", 0, "DIR", TEST_FIND_LINKS, "also install from DIR; repeatable"},
    {"keep-venvs", 0, NULL, TEST_KEEP_VENVS, "keep each venv and print where it is"},
    {"json", 0, NULL, TEST_JSON, "print the results as JSON on stdout instead of the table"},
    {NULL, 'C', "DIR", TEST_DIR, "the project directory (holding pyproject.toml)"},
    {"config", 0, "FILE", TEST_CONFIG,
     "the config beside the project (with SDIST.tar.gz among the\n"
     "arguments: the project is that sdist, as for build)"},
    {0},
};

static const char test_help_text[] =
    "usage: cuwheel test [-j N] [--python X.Y]... [--find-links DIR]... [--keep-venvs]\n"
    "                    [--json] [-C DIR] [SDIST.tar.gz --config FILE] [WHEEL...]\n"
    "\n"
    "Tests wheels the way a user gets them: for each wheel (default: every .whl in the\n"
    "project's dist dir) and each Python it is for, a fresh venv of that Python, a pip install\n"
    "of the wheel and [tool.cuwheel.test] requires (dependencies resolved as usual), then the\n"
    "test command run with /bin/sh -c from an empty temporary directory, so the installed\n"
    "package is what gets imported. In the command, {project} (the project directory) and\n"
    "{wheel} (the wheel) become \"$CUWHEEL_PROJECT\" and \"$CUWHEEL_WHEEL\", which the\n"
    "command's environment holds: a path is one argument, never shell text; a placeholder\n"
    "inside quotes is refused. The venv's bin is first on PATH, VIRTUAL_ENV is set,\n"
    "PYTHONPATH and PYTHONHOME are emptied.\n"
    "\n"
    "Which Pythons: cp312-cp312 runs on Python 3.12, cp313-cp313t on free-threaded 3.13,\n"
    "cp310-abi3 on every CPython >= 3.10 of the matrix python axis (every one found when the\n"
    "axis is empty). A wheel for another OS or architecture, or for a Python this machine lacks,\n"
    "is skipped with the reason, not failed.\n"
    "\n"
    "pip: the venv is made without pip and the Python's own pip installs into it\n"
    "(pip --python, pip >= 22.3; else ensurepip). pip's cache is shared between runs.\n"
    "Find-links dirs ([tool.cuwheel.test] find-links, --find-links) replace the index\n"
    "(--no-index) unless $PIP_INDEX_URL or $PIP_EXTRA_INDEX_URL is set; every PIP_* variable\n"
    "is honoured.\n";

const struct cli_help cmd_test_help = {
    .text = test_help_text,
    .groups = {{NULL, test_options}},
    .more = "JSON: {\"schema\": 1, \"passed\": N, \"failed\": N, \"skipped\": N, \"results\": "
            "[{\"wheel\",\n"
            "  \"filename\", \"python\": \"3.12\"|null, \"python_version\": \"3.12.1\"|null, "
            "\"interpreter\",\n"
            "  \"result\": \"pass\"|\"fail\"|\"skip\", \"reason\", \"exit_code\", \"seconds\", "
            "\"output\",\n"
            "  \"venv\"}]}\n"
            "\n"
            "Exit status: 0 all run pairs passed, 1 a pair failed (or a wheel name is invalid),\n"
            "2 usage, 3 no wheel found or no pair could run here.\n",
};

struct test_cli {
	struct cli *c;
	bool json;
};

/* A failed pair's captured output, replayed between markers as it arrives: a log, not a
 * diagnostic (the failure itself is reported through the sink at the end). */
/* The wheel's name and the test's output are escaped (ESC_TERM, ESC_LOG): a test, or a
 * wheel's own code run by it, prints what it likes. */
static void show_failure(struct arena *a, const struct wheeltest_job *j)
{
	const char *name = esc_str(a, ESC_TERM, j->filename);
	const char *py = wheeltest_job_python(a, j);
	fprintf(stderr, "\n---- %s on Python %s: %s failed (exit %d) ----\n", name, py,
	        esc_str(a, ESC_LOG, j->reason), j->exit_code);
	if (j->output && *j->output)
		fprintf(stderr, "%s\n", esc_str(a, ESC_LOG, j->output));
	fprintf(stderr, "---- end of %s on Python %s ----\n\n", name, py);
}

static void on_done(void *user, const struct wheeltest_job *j)
{
	struct arena a = {0};
	if (j->result == WHEELTEST_FAIL)
		show_failure(&a, j);
	else /* a progress line per pair as it ends */
		fprintf(stderr, "cuwheel: %s %s on Python %s (%.1f s)\n",
		        wheeltest_result_name(j->result), esc_str(&a, ESC_TERM, j->filename),
		        wheeltest_job_python(&a, j), j->seconds);
	fflush(stderr);
	arena_free(&a);
	(void)user;
}

static void print_json(struct arena *a, const struct wheeltest_job *jobs, size_t n,
                       size_t counts[3])
{
	json_t *res = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct wheeltest_job *j = &jobs[i];
		json_t *o = json_object();
		json_object_set_new(o, "wheel", json_string(j->wheel));
		json_object_set_new(o, "filename", json_string(j->filename));
		json_object_set_new(o, "python", j->py ? json_string(j->py_key) : json_null());
		json_object_set_new(o, "python_version",
		                    json_str_or_null(j->py ? j->py->version : NULL));
		json_object_set_new(o, "interpreter", json_str_or_null(j->py ? j->py->path : NULL));
		json_object_set_new(o, "result", json_string(wheeltest_result_name(j->result)));
		json_object_set_new(o, "reason", json_str_or_null(j->reason));
		json_object_set_new(o, "exit_code", json_integer(j->exit_code));
		json_object_set_new(o, "seconds", json_real(j->seconds));
		json_object_set_new(o, "output", json_str_or_null(j->output));
		json_object_set_new(o, "venv", json_str_or_null(j->venv));
		json_array_append_new(res, o);
	}
	json_t *root = json_pack("{s:i, s:I, s:I, s:I, s:o}", "schema", 1, "passed",
	                         (json_int_t)counts[WHEELTEST_PASS], "failed",
	                         (json_int_t)counts[WHEELTEST_FAIL], "skipped",
	                         (json_int_t)counts[WHEELTEST_SKIP], "results", res);
	char *text = json_dump_text(a, root, JSON_INDENT(2));
	if (text)
		puts(text);
	json_decref(root);
}

static void print_table(struct arena *a, const struct wheeltest_job *jobs, size_t n)
{
	int ww = 5, wp = 6;
	const char **names = arena_calloc(a, n + 1, sizeof(*names));
	for (size_t i = 0; i < n; i++) {
		names[i] = esc_str(a, ESC_TERM, jobs[i].filename);
		int l = (int)strlen(names[i]);
		ww = l > ww ? l : ww;
		if (jobs[i].py && (int)strlen(jobs[i].py->version) > wp)
			wp = (int)strlen(jobs[i].py->version);
	}
	printf("%-*s  %-*s  %-6s  %7s\n", ww, "WHEEL", wp, "PYTHON", "RESULT", "TIME");
	for (size_t i = 0; i < n; i++) {
		const struct wheeltest_job *j = &jobs[i];
		const char *py = j->py ? j->py->version : "-";
		if (j->result == WHEELTEST_SKIP) {
			printf("%-*s  %-*s  %-6s  %7s  %s\n", ww, names[i], wp, py, "skip", "-",
			       esc_str(a, ESC_LOG, j->reason));
			continue;
		}
		const char *extra = "";
		if (j->result == WHEELTEST_FAIL)
			extra = arena_printf(a, "  %s: exit %d", esc_str(a, ESC_LOG, j->reason),
			                     j->exit_code);
		if (j->venv)
			extra = arena_printf(a, "%s  venv: %s", extra, j->venv);
		printf("%-*s  %-*s  %-6s  %6.1fs%s\n", ww, names[i], wp, py,
		       wheeltest_result_name(j->result), j->seconds, extra);
	}
}

/* Every *.whl of dir (not hidden temp files), sorted. */
static void dist_wheels(struct arena *a, const char *dir, struct strv *out)
{
	struct strv names = {0};
	if (!os_list_dir(a, dir, &names))
		return;
	for (size_t i = 0; i < names.n; i++) {
		const char *nm = names.v[i];
		size_t l = strlen(nm);
		if (nm[0] == '.' || l < 5 || strcmp(nm + l - 4, ".whl"))
			continue;
		char *p = os_join(a, dir, nm);
		if (!os_is_dir(p))
			strv_push(a, out, p);
	}
}

int cmd_test(struct cli *c, int argc, char **argv)
{
	struct arena *a = &c->arena;
	struct strv wheels = {0}, pythons = {0}, links = {0};
	struct wheeltest_opts o = {.env = c->env};
	struct test_cli tc = {c, false};
	struct cli_args p;
	cli_args_init(&p, c, "test", test_options, CLI_ARGS_ANYWHERE, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		const char *val = p.value;
		switch (id) {
		case TEST_JOBS:
			if (!cli_parse_int(c, "test", p.given, val, &o.jobs))
				return CLI_USAGE;
			break;
		case TEST_PYTHON:
			strv_push(a, &pythons, val);
			break;
		case TEST_FIND_LINKS:
			if (!os_is_dir(val))
				return cli_usage(c, "test", "--find-links %s: not a directory",
				                 val);
			strv_push(a, &links, os_abspath(a, val));
			break;
		case TEST_KEEP_VENVS:
			o.keep_venvs = true;
			break;
		case TEST_JSON:
			tc.json = true;
			break;
		case TEST_DIR:
			if (!os_is_dir(val))
				return cli_usage(c, "test", "-C needs a directory");
			c->project_dir = val;
			break;
		case TEST_CONFIG:
			c->config_file = val;
			break;
		default:
			return CLI_USAGE;
		}
	}
	for (int i = p.next; i < argc; i++) {
		if (!c->sdist && cli_is_sdist(argv[i]))
			c->sdist = argv[i]; /* the project to test for, as build takes it */
		else
			strv_push(a, &wheels, argv[i]);
	}

	struct plan_ctx *setup;
	int src = cli_setup(c, NULL, &setup);
	if (src != CLI_OK)
		return src;
	struct config cfg = setup->cfg;
	if (!cfg.test.command || !*cfg.test.command) {
		diag_msg(&c->diag, DIAG_ERROR, "%s has no test command", cfg.pyproject);
		diag_msg(&c->diag, DIAG_HINT,
		         "add [tool.cuwheel.test] command = \"python -m pytest {project}/tests\" "
		         "(or set CUWHEEL_TEST_COMMAND)");
		return CLI_FAIL;
	}
	if (!wheels.n) {
		dist_wheels(a, cfg.dist_dir, &wheels);
		if (!wheels.n) {
			diag_msg(&c->diag, DIAG_ERROR, "no wheels in %s", cfg.dist_dir);
			diag_msg(&c->diag, DIAG_HINT,
			         "build them with 'cuwheel build', or name wheels to test");
			return CLI_NOTHING;
		}
	}
	struct discovery ds;
	if (!discover(a, &c->diag, &cfg, os_join(a, cfg.build_dir, "probes"), &ds))
		return CLI_FAIL;

	o.cfg = &cfg;
	o.ds = &ds;
	o.wheels = &wheels;
	o.pythons = &pythons;
	o.find_links = &links;
	o.on_done = on_done;
	o.user = &tc;
	struct wheeltest_job *jobs;
	size_t n;
	if (!wheeltest_plan(a, &c->diag, &o, &jobs, &n))
		return CLI_FAIL;
	for (size_t i = 0; i < n; i++)
		if (jobs[i].result == WHEELTEST_SKIP) /* progress, like the pass lines */
			fprintf(stderr, "cuwheel: skip %s: %s\n",
			        esc_str(a, ESC_TERM, jobs[i].filename),
			        esc_str(a, ESC_LOG, jobs[i].reason));
	if (!wheeltest_run(a, &c->diag, &o, jobs, n))
		return CLI_FAIL;

	size_t counts[3] = {0};
	for (size_t i = 0; i < n; i++)
		counts[jobs[i].result]++;
	if (tc.json) {
		print_json(a, jobs, n, counts);
	} else {
		putchar('\n');
		print_table(a, jobs, n);
		printf("\n%zu passed, %zu failed, %zu skipped\n", counts[WHEELTEST_PASS],
		       counts[WHEELTEST_FAIL], counts[WHEELTEST_SKIP]);
	}
	fflush(stdout);
	for (size_t i = 0; i < n; i++)
		if (jobs[i].result == WHEELTEST_FAIL)
			diag_msg(&c->diag, DIAG_ERROR, "test failed: %s on Python %s (%s%sexit %d)",
			         jobs[i].filename, wheeltest_job_python(a, &jobs[i]),
			         strcmp(jobs[i].reason, "test command") ? jobs[i].reason : "",
			         strcmp(jobs[i].reason, "test command") ? " failed, " : "",
			         jobs[i].exit_code);
	if (counts[WHEELTEST_FAIL])
		return CLI_FAIL;
	if (!counts[WHEELTEST_PASS])
		return CLI_NOTHING;
	return CLI_OK;
}
