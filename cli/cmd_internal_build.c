/* cmd_internal_build.c: the steps of a cell that build.ninja runs: stage, finish (audit, stamp
 * the platform tag, place the wheel in dist/), test-cell. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "cli/plan_common.h"
#include "cli/internal.h"
#include "wheeltest/test_context.h"
#include "matrix/config.h"
#include "toolchain/discover.h"
#include "packager/stage.h"
#include "packager/audit.h"
#include "packager/placed.h"
#include "packager/retag.h"
#include "standards/tags.h"
#include "wheeltest/torch_compat.h"
#include "wheeltest/wheeltest.h"
#include "standards/json_values.h"

enum internal_option {
	STAGE_OUT,
	STAGE_STAMP,
	STAGE_PACKAGE,
	STAGE_FILE,
	STAGE_PYTHON_FILE,
	STAGE_HIDDEN,
	FINISH_DIST,
	FINISH_STAMP,
	FINISH_REQUIRE_ARCH,
	FINISH_MIN_MANYLINUX,
	FINISH_STRICT,
	FINISH_DECLARE,
	FINISH_TORCH_STABLE,
	FINISH_LIBRARY,
	TEST_CELL_PYTHON,
	TEST_CELL_STAMP,
	TEST_CELL_CONTEXT,
	FINISH_TORCH_REQUIRES_FROM,
	COMPAT_OUT,
	COMPAT_CONTEXT,
};

const struct cli_option internal_stage_options[] = {
    {"out", 0, "DIR", STAGE_OUT, "the staged tree (required)"},
    {"stamp", 0, "FILE", STAGE_STAMP, "touched when the tree is complete (required)"},
    {"package", 0, "REL", STAGE_PACKAGE, "a package directory of the project; repeatable"},
    {"file", 0, "SRC=DEST", STAGE_FILE, "one more file (a built module); repeatable"},
    {"python-file", 0, "DEST=SRC", STAGE_PYTHON_FILE,
     "a project file (SRC) shipped at DEST (python-files); repeatable"},
    {"hidden", 0, NULL, STAGE_HIDDEN, "also stage hidden files"},
    {0},
};

int internal_stage(struct cli *c, int argc, char **argv)
{
	bool hidden = false;
	const char *out = NULL, *stamp = NULL;
	struct strv packages = {0};
	/* Each --file or --python-file is one argument of argv at most. */
	struct stage_file *files = arena_calloc(&c->arena, (size_t)argc + 1, sizeof(*files));
	size_t n_files = 0;
	bool *python_file = arena_calloc(&c->arena, (size_t)argc + 1, sizeof(*python_file));
	struct cli_args p;
	cli_args_init(&p, c, "internal", internal_stage_options, CLI_ARGS_LAST, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case STAGE_OUT:
			out = p.value;
			break;
		case STAGE_STAMP:
			stamp = p.value;
			break;
		case STAGE_PACKAGE:
			strv_push(&c->arena, &packages, p.value);
			break;
		case STAGE_HIDDEN:
			hidden = true;
			break;
		case STAGE_FILE: {
			const char *eq = strchr(p.value, '=');
			if (!eq)
				return cli_usage(c, "internal", "--file wants SRC=DEST");
			files[n_files].src =
			    arena_strndup(&c->arena, p.value, (size_t)(eq - p.value));
			files[n_files].dest = eq + 1;
			n_files++;
			break;
		}
		case STAGE_PYTHON_FILE: {
			const char *eq = strchr(p.value, '=');
			if (!eq)
				return cli_usage(c, "internal", "--python-file wants DEST=SRC");
			files[n_files].dest =
			    arena_strndup(&c->arena, p.value, (size_t)(eq - p.value));
			files[n_files].src = eq + 1;
			python_file[n_files++] = true;
			break;
		}
		default:
			return CLI_USAGE;
		}
	}
	if (!out || !stamp)
		return cli_usage(c, "internal", "stage needs --out and --stamp");
	const char *proj = os_realpath(&c->arena, c->project_dir);
	for (size_t i = 0; proj && i < n_files; i++) /* --python-file sources are the project's */
		if (files[i].src[0] != '/' && python_file[i])
			files[i].src = os_join(&c->arena, proj, files[i].src);
	if (!stage_tree(&c->arena, &c->diag, proj, out, &packages, hidden, files, n_files))
		return CLI_FAIL;
	return os_write_atomic(&c->diag, stamp, "", 0, 0644) ? CLI_OK : CLI_FAIL;
}

const struct cli_option internal_finish_options[] = {
    {"dist", 0, "DIR", FINISH_DIST, "where the audited wheel is placed (required)"},
    {"stamp", 0, "FILE", FINISH_STAMP, "names the placed wheel when done (required)"},
    {"require-arch", 0, "LIST", FINISH_REQUIRE_ARCH, "as for cuwheel audit"},
    {"min-manylinux", 0, "TAG", FINISH_MIN_MANYLINUX, "as for cuwheel audit"},
    {"strict", 0, NULL, FINISH_STRICT, "as for cuwheel audit"},
    {"declare", 0, "NAME", FINISH_DECLARE,
     "a package or module the project ships at the wheel's root; with\n"
     "any, nothing else may be there and no .data (repeatable)"},
    {"torch-stable", 0, NULL, FINISH_TORCH_STABLE, "as cuwheel audit --torch-abi stable"},
    {"library", 0, "MODULE", FINISH_LIBRARY, "as for cuwheel audit"},
    {"torch-requires-from", 0, "FILE", FINISH_TORCH_REQUIRES_FROM,
     "the placed wheel's Requires-Dist: torch is the range that\n"
     "`internal compat` proved (its compat.json)"},
    {0},
};

int internal_finish(struct cli *c, int argc, char **argv)
{
	bool strict = false, torch_stable = false;
	const char *dist = NULL, *stamp = NULL, *archs = NULL, *minml = NULL, *compat = NULL;
	struct strv declared = {0}, libraries = {0};
	struct cli_args p;
	cli_args_init(&p, c, "internal", internal_finish_options, CLI_ARGS_ANYWHERE, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case FINISH_DIST:
			dist = p.value;
			break;
		case FINISH_STAMP:
			stamp = p.value;
			break;
		case FINISH_REQUIRE_ARCH:
			archs = p.value;
			break;
		case FINISH_MIN_MANYLINUX:
			minml = p.value;
			break;
		case FINISH_STRICT:
			strict = true;
			break;
		case FINISH_DECLARE:
			strv_push(&c->arena, &declared, p.value);
			break;
		case FINISH_TORCH_STABLE:
			torch_stable = true;
			break;
		case FINISH_LIBRARY:
			strv_push(&c->arena, &libraries, p.value);
			break;
		case FINISH_TORCH_REQUIRES_FROM:
			compat = p.value;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (p.next + 1 != argc || !dist || !stamp)
		return cli_usage(c, "internal", "finish needs WHEEL --dist DIR --stamp FILE");
	const char *wheel = argv[p.next];
	struct audit_opts ao = {.min_manylinux = minml,
	                        .strict = strict,
	                        .torch_stable = torch_stable,
	                        .trace = env_nonempty(c->env, "CUWHEEL_AUDIT_TRACE"),
	                        .declared = declared.n ? &declared : NULL,
	                        .libraries = &libraries};
	if (archs) {
		struct arch *v;
		size_t n;
		const char *err;
		if (!cuda_arch_parse_list(&c->arena, archs, ARCH_SPELL_NVCC, &v, &n, &err))
			return cli_usage(c, "internal", "--require-arch: %s", err);
		ao.archs = v;
		ao.n_archs = n;
	}
	struct audit_result r;
	bool ok = audit_wheel(&c->arena, &c->diag, wheel, &ao, &r);
	/* The result, kept beside the stamp for the build's report: the wheel is audited once. */
	json_t *j = audit_result_to_json(&r);
	char *jt = json_dump_text(&c->arena, j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(j);
	const char *slash = strrchr(stamp, '/');
	const char *audit_path =
	    slash ? arena_printf(&c->arena, "%.*s/audit.json", (int)(slash - stamp), stamp)
	          : "audit.json";
	bool saved = jt && os_write_atomic(&c->diag, audit_path, jt, strlen(jt), 0644);
	if (!saved)
		return CLI_FAIL;
	if (!ok) {
		cli_report_findings(c, &r);
		diag_path(&c->diag, DIAG_ERROR, r.wheel, "audit failed (nothing placed in %s)",
		          dist);
		return CLI_FAIL;
	}
	if (!os_mkdir_p(&c->diag, dist))
		return CLI_FAIL;
	/* Audited just above (the build's options are the defaults or stricter): once is enough. */
	struct retag_opts ro = {.platform = r.platform_tag, .audited = true};
	/* torch-requires = "tested": the range the compat step proved, written into METADATA
	 * here, on the way to dist/, so that dist/ only ever receives the final wheel. */
	if (compat) {
		json_error_t jerr;
		json_t *doc = json_load_file(compat, 0, &jerr);
		struct compat_result cr;
		bool got = doc && torch_compat_from_json(&c->arena, &c->diag, compat, doc, &cr);
		json_decref(doc);
		if (!doc)
			diag_path(&c->diag, DIAG_ERROR, compat, "cannot read: %s", jerr.text);
		if (!got)
			return CLI_FAIL;
		ro.torch_requirement = cr.requirement;
	}
	char *final = NULL;
	if (!wheel_retag(&c->arena, &c->diag, wheel, &ro, dist, &final))
		return CLI_FAIL;
	/* The stamp records the placed wheel's digest: the next build trusts only that wheel. */
	char *text = placed_record(&c->arena, &c->diag, final);
	return text && os_write_atomic(&c->diag, stamp, text, strlen(text), 0644) ? CLI_OK
	                                                                          : CLI_FAIL;
}

const struct cli_option internal_test_cell_options[] = {
    {"python", 0, "X.Y|all", TEST_CELL_PYTHON, "the Python to test on (default: all)"},
    {"stamp", 0, "FILE", TEST_CELL_STAMP, "the results, written when every test passed (required)"},
    {"context", 0, "FILE", TEST_CELL_CONTEXT,
     "what the build found (config and discovery), so that nothing\n"
     "is read or probed again (required)"},
    {0},
};

int internal_test_cell(struct cli *c, int argc, char **argv)
{
	const char *python = NULL, *stamp = NULL, *context = NULL;
	struct cli_args p;
	cli_args_init(&p, c, "internal", internal_test_cell_options, CLI_ARGS_ANYWHERE, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case TEST_CELL_PYTHON:
			python = p.value;
			break;
		case TEST_CELL_STAMP:
			stamp = p.value;
			break;
		case TEST_CELL_CONTEXT:
			context = p.value;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (p.next + 1 != argc || !stamp || !context)
		return cli_usage(c, "internal",
		                 "test-cell needs FINAL_STAMP --stamp FILE --context FILE");
	struct source s;
	if (!os_read_file(&c->arena, &c->diag, argv[p.next], &s))
		return CLI_FAIL;
	char *wheel = arena_strndup(&c->arena, s.text, strcspn(s.text, "\n"));
	/* What the build found, as it found it: no pyproject.toml read, no probe run again. */
	struct config cfg;
	struct discovery ds;
	if (!test_context_read(&c->arena, &c->diag, context, &cfg, &ds))
		return CLI_FAIL;
	struct strv wheels = {0}, pythons = {0};
	strv_push(&c->arena, &wheels, wheel);
	if (python && strcmp(python, "all"))
		strv_push(&c->arena, &pythons, python);
	struct wheeltest_opts o = {
	    .cfg = &cfg,
	    .ds = &ds,
	    .wheels = &wheels,
	    .pythons = &pythons,
	    .jobs = 0,
	    .env = c->env,
	};
	struct wheeltest_job *jobs;
	size_t n;
	if (!wheeltest_plan(&c->arena, &c->diag, &o, &jobs, &n))
		return CLI_FAIL;
	if (!wheeltest_run(&c->arena, &c->diag, &o, jobs, n))
		return CLI_FAIL;
	bool ok = true;
	size_t ran = 0;
	struct strbuf log = {0};
	for (size_t i = 0; i < n; i++) {
		const struct wheeltest_job *j = &jobs[i];
		sb_printf(&log, "%s %s %s %.1fs%s%s\n", j->filename, j->py_key,
		          wheeltest_result_name(j->result), j->seconds, j->reason ? " " : "",
		          j->reason ? j->reason : "");
		if (j->result == WHEELTEST_PASS)
			ran++;
		if (j->result != WHEELTEST_FAIL)
			continue;
		ok = false;
		diag_msg(&c->diag, DIAG_ERROR, "test failed: %s on Python %s (%s, exit %d)",
		         j->filename, wheeltest_job_python(&c->arena, j),
		         j->reason ? j->reason : "test command", j->exit_code);
		/* The test's own output, replayed as it was captured (ninja shows it under the
		 * failed step): a log, not a diagnostic. */
		if (j->output)
			fprintf(stderr, "%s\n", esc_str(&c->arena, ESC_LOG, j->output));
	}
	if (ok && ran == 0) {
		const char *why = n && jobs[0].reason ? jobs[0].reason : "no Python of its tags";
		diag_msg(&c->diag, DIAG_ERROR, "no Python here could test %s: %s", wheel,
		         esc_str(&c->arena, ESC_LOG, why));
		ok = false;
	}
	if (ok)
		ok = os_write_atomic(&c->diag, stamp, log.buf, log.len, 0644);
	sb_release(&log);
	return ok ? CLI_OK : CLI_FAIL;
}

const struct cli_option internal_compat_options[] = {
    {"out", 0, "FILE", COMPAT_OUT, "the table and the proven range, as JSON (required)"},
    {"context", 0, "FILE", COMPAT_CONTEXT, "as for test-cell (required)"},
    {0},
};

int internal_compat(struct cli *c, int argc, char **argv)
{
	const char *out = NULL, *context = NULL;
	struct cli_args p;
	cli_args_init(&p, c, "internal", internal_compat_options, CLI_ARGS_ANYWHERE, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case COMPAT_OUT:
			out = p.value;
			break;
		case COMPAT_CONTEXT:
			context = p.value;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (p.next + 1 != argc || !out || !context)
		return cli_usage(c, "internal", "compat needs WHEEL --out FILE --context FILE");
	struct config cfg;
	struct discovery ds;
	if (!test_context_read(&c->arena, &c->diag, context, &cfg, &ds))
		return CLI_FAIL;
	struct wheeltest_opts o = {.cfg = &cfg, .ds = &ds, .env = c->env};
	struct compat_result r;
	if (!torch_compat_run(&c->arena, &c->diag, &o, argv[p.next], &r))
		return CLI_FAIL;
	if (!r.torch) {
		diag_path(&c->diag, DIAG_ERROR, argv[p.next],
		          "names no torch it was built against (no ptXY label, no torch>=X.Y)");
		return CLI_FAIL;
	}
	/* One line per try in ninja's output; failures are findings, not the step's failure. */
	for (size_t i = 0; i < r.n_rows; i++) {
		const struct compat_row *w = &r.rows[i];
		fprintf(stderr, "%s with torch %s (Python %s): %s%s%s\n", r.wheel, w->torch,
		        w->python, w->result, w->step ? ": " : "",
		        esc_str(&c->arena, ESC_LOG,
		                w->error  ? w->error
		                : w->step ? w->step
		                          : ""));
	}
	json_t *doc = torch_compat_to_json(&r);
	char *text = json_dump_text(&c->arena, doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	bool ok = text && os_write_atomic(&c->diag, out, text, strlen(text), 0644);
	return ok ? CLI_OK : CLI_FAIL;
}
