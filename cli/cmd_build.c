/* cmd_build.c: `cuwheel build`: the plan as build.ninja, executed by ninja, then a summary. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "base/os-lock.h"
#include "base/os-run.h"
#include "base/os-sys.h"
#include "cli/build_run.h"
#include "cli/build_win.h"
#include "cli/early.h"
#include "report/ninja_log.h"
#include "cli/plan_common.h"
#include "report/report.h"
#include "wheeltest/test_context.h"
#include "graph/buildgraph.h"
#include "graph/kernels_io.h"
#include "packager/placed.h"
#include "packager/wheel.h"

enum build_option {
	BUILD_JOBS,
	BUILD_KEEP_GOING,
	BUILD_DRY_RUN,
	BUILD_ONLY,
	BUILD_NO_TEST,
	BUILD_STAGE,
	BUILD_EXPORT,
	BUILD_IMPORT,
	BUILD_NO_PROVISION,
	BUILD_PROGRESS,
	BUILD_CONFIG,
	BUILD_SETUP_ENV,
	BUILD_UNSANDBOXED,
};

static const struct cli_option build_options[] = {
    {"setup-env", 0, "K=V", BUILD_SETUP_ENV,
     "without [tool.cuwheel] (setup.py is captured): a switch setup.py reads\n"
     "(FORCE_CUDA=1); repeatable (see cuwheel init)"},
    {"unsandboxed", 0, NULL, BUILD_UNSANDBOXED,
     "without [tool.cuwheel]: run setup.py without the sandbox (see cuwheel\n"
     "init; also CUWHEEL_UNSANDBOXED=1)"},
    {"config", 0, "FILE", BUILD_CONFIG,
     "the manifest beside the project ([tool.cuwheel], optional [project]\n"
     "overrides); the metadata is the project's PKG-INFO, kept exactly;\n"
     "build-dir and dist-dir are relative to FILE's directory"},
    {"jobs", 'j', "N", BUILD_JOBS,
     "run N jobs at once: ninja's, and the torch scans before it\n"
     "(default: the number of CPUs)"},
    {"keep-going", 'k', NULL, BUILD_KEEP_GOING, "go on with the other cells when one fails"},
    {"dry-run", 'n', NULL, BUILD_DRY_RUN, "print the commands without running them"},
    {"only", 0, "ID", BUILD_ONLY, "build only cells matching ID (identifier or glob); repeatable"},
    {"no-test", 0, NULL, BUILD_NO_TEST, "skip the test step"},
    {"progress", 0, "MODE", BUILD_PROGRESS,
     "tty: one line per kernel archive and per cell, redrawn in place;\n"
     "plain: a line per step start and end; auto (default): tty on a\n"
     "terminal unless NO_COLOR or CI is set. Under GitHub Actions, plain\n"
     "with a group per cell, error annotations and the step summary"},
    {"no-provision", 0, NULL, BUILD_NO_PROVISION,
     "do not install the CUDA toolkits the plan needs from PyPI (by default,\n"
     "cells whose toolkit `cuwheel toolkit install` can provision get it)"},
    {"stage", 0, "STAGE", BUILD_STAGE,
     "all (the default), or one part of the build:\n"
     "kernels (with --export DIR): build only the kernel archives (one per\n"
     "  toolkit and flags) and write them to DIR with manifest.json (toolkit,\n"
     "  flags, content hashes);\n"
     "wheels (with --import DIR): link, pack, audit and test every cell\n"
     "  against the archives in DIR, refusing them when the manifest does not\n"
     "  match this plan (CI runners build the kernels once per toolkit and\n"
     "  the wheels elsewhere);\n"
     "win-graph (with --export DIR): for the win_amd64 cells, write\n"
     "  DIR/build.ninja (nvcc, cl.exe, link.exe), DIR/probe.py, the sources\n"
     "  and DIR/stage/<cell>/ for a Windows runner (python probe.py && ninja\n"
     "  there); nothing is built here;\n"
     "win-pack (with --import DIR): pack DIR/stage/<cell>/ (with the .pyd the\n"
     "  runner built), audit each wheel (PE rules) and place the win_amd64\n"
     "  wheels in dist/"},
    {"export", 0, "DIR", BUILD_EXPORT, "where --stage kernels or win-graph writes"},
    {"import", 0, "DIR", BUILD_IMPORT, "what --stage wheels or win-pack reads"},
    {0},
};

const struct cli_help cmd_build_help = {
    .text =
        "usage: cuwheel build [SDIST.tar.gz] [--config FILE] [-j N] [--keep-going] [--dry-run]\n"
        "                     [--only ID]... [--no-test]\n"
        "                     [--progress auto|tty|plain]\n"
        "\n"
        "Builds every selected cell of the plan that this machine can build. cuwheel writes one\n"
        "build.ninja for the whole matrix into the build dir and ninja executes it:\n"
        "  - the kernels are compiled once per CUDA toolkit (and flags) into libkernels.a;\n"
        "  - per cell, the binding stub is compiled with that Python's headers and linked with\n"
        "    the archive, the package is staged and packed, the wheel is audited and its\n"
        "    platform tag stamped (manylinux_2_X when the symbols allow), and it is placed in\n"
        "    dist/;\n"
        "  - when [tool.cuwheel.test] has a command, the wheel is installed into a fresh venv of\n"
        "    its Python(s) and tested.\n"
        "A second build with nothing changed runs no compiler; editing one kernel recompiles that\n"
        "file once and relinks every cell of its toolkit.\n"
        "\n"
        "SDIST.tar.gz: build this sdist, unpacked (hardened: no '..', no links out, size limits)\n"
        "into the build dir's sdist/. Without --config and [tool.cuwheel] (an sdist, or -C DIR\n"
        "with a setup.py), the build is read from setup.py (see cuwheel init) and said so.\n",
    .groups = {{NULL, build_options}},
    .more = "Environment: CUWHEEL_* overrides the config (see the README); CUWHEEL_NINJA names\n"
            "ninja; CC and CXX name the host compilers.\n"
            "\n"
            "Exit status: 0 all built, 1 a cell failed, 2 usage, 3 nothing selected or "
            "buildable.\n",
};

/* The build dir lock: held for the whole build, and inherited (no O_CLOEXEC) by ninja and the
 * steps it runs, so a cuwheel killed with SIGKILL keeps the build dir locked until the orphaned
 * ninja is done too; the kernel drops it when the last holder exits. */
static int build_lock(struct cli *c, const char *build_dir)
{
	char *path = os_join(&c->arena, build_dir, ".cuwheel.lock");
	int fd = os_lock_open(&c->diag, path, true);
	if (fd < 0)
		return -1;
	if (!os_lock_try(fd)) {
		char buf[64];
		os_lock_holder(fd, buf, sizeof(buf));
		diag_msg(&c->diag, DIAG_NOTE,
		         "another cuwheel build holds %s (pid %s); waiting for it", build_dir,
		         buf[0] ? buf : "?");
		if (!os_lock_wait(&c->diag, fd, path)) {
			close(fd);
			return -1;
		}
	}
	os_lock_set_holder(fd);
	return fd;
}

/* Writes build.ninja only when its text changed, so ninja's own regeneration logic is quiet. */
static bool write_if_changed(struct cli *c, const char *path, const char *text)
{
	return os_write_if_changed(&c->arena, &c->diag, path, text, strlen(text), 0644);
}

/* A cell's `final` stamp records the wheel it placed in dist/ (path, size, sha256). When that
 * wheel is gone (deleted by hand, dist/ cleaned) or is not that wheel any more (truncated,
 * another project's same-named wheel in a shared dist dir), the stamps are forgotten so ninja
 * audits and places it again: "up to date" is only said of the wheel the stamp describes. */
static void forget_missing_wheels(struct cli *c, const struct build_graph *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct cell_paths *cp = &g->cells[i];
		if (!cp->dir)
			continue;
		char *final = os_join(&c->arena, g->build_dir, cp->final);
		struct source s;
		struct diag quiet = {0}; /* a probe: no stamp, a cell not placed yet */
		if (!os_read_file(&c->arena, &quiet, final, &s))
			continue;
		const char *wheel;
		enum placed_state ps = placed_check(&c->arena, s.text, &wheel);
		if (ps == PLACED_OK)
			continue;
		if (ps == PLACED_CHANGED)
			diag_path(
			    &c->diag, DIAG_NOTE, wheel,
			    "is not the wheel this build placed (its size or sha256 differs): "
			    "placing it again");
		os_unlink(final);
		if (cp->tested)
			os_unlink(os_join(&c->arena, g->build_dir, cp->tested));
	}
}

/* What the command line asked for. */
struct build_args {
	const char *stage, *export_dir, *import_dir;
	int jobs;
	bool keep_going, dry_run, tests, no_provision;
	enum build_progress progress;
	struct matrix_opts mo;
};

/* Parses build's options into *a. Returns CLI_OK or the exit code (a usage error). */
static int build_parse(struct cli *c, int argc, char **argv, struct build_args *a)
{
	*a = (struct build_args){
	    .stage = "all", .jobs = os_cpu_count(), .tests = true, .progress = BUILD_PROGRESS_AUTO};
	struct cli_args opt;
	cli_args_init(&opt, c, "build", build_options, CLI_ARGS_IN_TURN, argc, argv);
	int id;
	while ((id = cli_args_next(&opt)) != CLI_ARG_END) {
		switch (id) {
		case BUILD_JOBS:
			if (!cli_parse_int(c, "build", opt.given, opt.value, &a->jobs))
				return CLI_USAGE;
			break;
		case BUILD_KEEP_GOING:
			a->keep_going = true;
			break;
		case BUILD_DRY_RUN:
			a->dry_run = true;
			break;
		case BUILD_ONLY:
			strv_push(&c->arena, &a->mo.only, opt.value);
			break;
		case BUILD_NO_TEST:
			a->tests = false;
			break;
		case BUILD_CONFIG:
			c->config_file = opt.value;
			break;
		case BUILD_UNSANDBOXED:
			c->unsandboxed = true;
			break;
		case BUILD_SETUP_ENV:
			if (!strchr(opt.value, '=') || opt.value[0] == '=')
				return cli_usage(c, "build", "--setup-env wants K=V, not '%s'",
				                 opt.value);
			strv_push(&c->arena, &c->setup_env, opt.value);
			break;
		case CLI_ARG_OPERAND: /* wherever it stands: the sdist */
			if (c->sdist || !cli_is_sdist(opt.value))
				return cli_usage(c, "build", "unexpected argument '%s'", opt.value);
			c->sdist = opt.value;
			break;
		case BUILD_NO_PROVISION:
			a->no_provision = true;
			break;
		case BUILD_STAGE:
			a->stage = opt.value;
			break;
		case BUILD_EXPORT:
			a->export_dir = opt.value;
			break;
		case BUILD_IMPORT:
			a->import_dir = opt.value;
			break;
		case BUILD_PROGRESS:
			if (!build_progress_parse(opt.value, &a->progress))
				return cli_usage(c, "build",
				                 "--progress is auto, tty or plain, not '%s'",
				                 opt.value);
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (opt.next < argc)
		return cli_usage(c, "build", "unexpected argument '%s'", argv[opt.next]);
	return CLI_OK;
}

/* --stage win-graph and win-pack: the Linux ends of a Windows build, without ninja. */
static int build_win_stage(struct cli *c, struct build_args *a, bool win_graph)
{
	const char *want = win_graph ? a->export_dir : a->import_dir;
	if (!want || (win_graph ? a->import_dir : a->export_dir))
		return cli_usage(c, "build", "--stage %s needs %s DIR (and only that)", a->stage,
		                 win_graph ? "--export" : "--import");
	struct plan_ctx *wpc;
	int wrc = cli_setup(c, &a->mo, &wpc);
	if (wrc != CLI_OK)
		return wrc;
	const char *wdir = os_abspath(&c->arena, want);
	return win_graph ? build_win_graph(c, &wpc->plan, wdir)
	                 : build_win_pack(c, &wpc->plan, wdir);
}

/* Checks --stage against --export and --import and makes their paths absolute; an --export
 * directory is created (and found writable) now, not after every kernel is compiled. Returns
 * CLI_OK or the exit code. */
static int build_check_stage(struct cli *c, struct build_args *a)
{
	const char *stage = a->stage;
	if (strcmp(stage, "all") && strcmp(stage, "kernels") && strcmp(stage, "wheels"))
		return cli_usage(c, "build",
		                 "--stage is kernels, wheels, win-graph, win-pack or all, not '%s'",
		                 stage);
	if (a->export_dir && strcmp(stage, "kernels"))
		return cli_usage(c, "build", "--export goes with --stage kernels");
	if (a->import_dir && strcmp(stage, "wheels"))
		return cli_usage(c, "build", "--import goes with --stage wheels");
	if (!strcmp(stage, "wheels") && !a->import_dir)
		return cli_usage(c, "build",
		                 "--stage wheels needs --import DIR (from --stage kernels)");
	if (!strcmp(stage, "kernels") && !a->export_dir)
		return cli_usage(c, "build", "--stage kernels needs --export DIR");
	if (a->export_dir) {
		a->export_dir = os_abspath(&c->arena, a->export_dir);
		if (!a->dry_run) {
			if (!os_mkdir_p(&c->diag, a->export_dir))
				return CLI_FAIL;
			if (!os_can_write(a->export_dir)) {
				diag_errno(&c->diag, a->export_dir,
				           "cannot write to the --export directory");
				return CLI_FAIL;
			}
		}
	}
	if (a->import_dir)
		a->import_dir = os_abspath(&c->arena, a->import_dir);
	return CLI_OK;
}

/* CUWHEEL_NINJA, else ninja or ninja-build on PATH; NULL when there is none. */
static const char *find_ninja(struct cli *c)
{
	const char *ninja = env_nonempty(c->env, "CUWHEEL_NINJA");
	if (!ninja)
		ninja = os_which(&c->arena, c->env, "ninja");
	if (!ninja)
		ninja = os_which(&c->arena, c->env, "ninja-build");
	return ninja;
}

/* The plan, its toolkits provisioned, and the tools the build runs: ninja and (by the config)
 * ccache. Returns CLI_OK or the exit code, after diagnostics. */
static int build_prepare(struct cli *c, struct build_args *a, struct plan_ctx **pcp,
                         const char **ninja, const char **ccache)
{
	int rc = cli_setup(c, &a->mo, pcp);
	if (rc != CLI_OK)
		return rc;
	struct plan_ctx *pc = *pcp;
	if (!a->no_provision && !a->dry_run && (rc = plan_provision(c, pc)) != CLI_OK)
		return rc;
	const struct plan *p = &pc->plan;
	if (p->n_selected == 0) {
		diag_msg(&c->diag, DIAG_ERROR,
		         "nothing selected: every cell is excluded, skipped, not paired (a torch "
		         "with another CUDA) or not named by --only");
		return CLI_NOTHING;
	}
	if (p->n_buildable == 0) {
		diag_msg(&c->diag, DIAG_ERROR,
		         "none of the %zu selected cells can be built on this machine",
		         p->n_selected);
		for (size_t i = 0; i < p->n_cells; i++)
			if (p->cells[i].selected)
				diag_path(&c->diag, DIAG_NOTE, p->cells[i].id, "%s",
				          p->cells[i].why_not);
		return CLI_NOTHING;
	}
	if (!(*ninja = find_ninja(c))) {
		diag_msg(&c->diag, DIAG_ERROR,
		         "ninja not found on PATH: cuwheel generates "
		         "build.ninja and ninja executes it");
		diag_msg(&c->diag, DIAG_HINT, "apt-get install ninja-build, or pip install ninja");
		return CLI_FAIL;
	}
	plan_line_info(c, pc);
	if (pc->li_note && !pc->li_bwrap)
		diag_msg(&c->diag, DIAG_NOTE, "line info: %s",
		         esc_str(&c->arena, ESC_LOG, pc->li_note));
	return plan_ccache(c, &pc->cfg, &c->diag, ccache);
}

/* Writes build.ninja, the resolved plan it renders from and the files its steps read (the test
 * context, the project's metadata). defer: the Python-free proof's compiles are the build's
 * (build_opts.defer_proofs); objects: the proof's kept objects are copied. False +
 * diagnostic. */
static struct build_opts graph_opts(struct cli *c, const struct build_args *a,
                                    const struct plan_ctx *pc, const char *ccache, bool defer,
                                    bool objects)
{
	return (struct build_opts){.jobs = a->jobs,
	                           .ccache = ccache,
	                           .cuwheel = os_self_exe(&c->arena),
	                           .bwrap = pc->li_bwrap,
	                           .run_tests = a->tests,
	                           .imported_archives = a->import_dir != NULL,
	                           .no_proof_objects = !objects,
	                           .defer_proofs = defer};
}

static bool build_write_graph(struct cli *c, const struct build_args *a, const struct plan_ctx *pc,
                              const char *ccache, bool defer, bool objects, struct build_graph *g)
{
	struct build_opts bo = graph_opts(c, a, pc, ccache, defer, objects);
	const struct plan *p = &pc->plan;
	return buildgraph_generate(&c->arena, &c->diag, p, &bo, g) &&
	       (!a->import_dir || kernels_import(&c->arena, &c->diag, p, g, a->import_dir)) &&
	       write_if_changed(c, g->ninja_file, g->text) &&
	       write_if_changed(c, os_join(&c->arena, g->build_dir, BUILDGRAPH_PLAN_JSON),
	                        g->plan_json) &&
	       write_if_changed(c, os_join(&c->arena, g->build_dir, BUILDGRAPH_TEST_CONTEXT),
	                        test_context_render(&c->arena, &pc->cfg, &pc->ds)) &&
	       write_if_changed(
	           c, os_join(&c->arena, g->build_dir, BUILDGRAPH_PROJECT_JSON),
	           project_meta_render(&c->arena, &pc->cfg.project, pc->cfg.project_dir));
}

/* ninja's command line: the graph's targets (the kernels alone for --export), -t commands for
 * --dry-run. */
static const char **ninja_argv(struct cli *c, const struct build_args *a, const char *ninja,
                               const struct build_graph *g)
{
	struct strv args = {0};
	strv_push(&c->arena, &args, ninja);
	strv_push(&c->arena, &args, "-C");
	strv_push(&c->arena, &args, g->build_dir);
	if (a->dry_run) {
		strv_push(&c->arena, &args, "-t");
		strv_push(&c->arena, &args, "commands");
	} else {
		strv_push(&c->arena, &args, "-j");
		strv_push(&c->arena, &args, arena_printf(&c->arena, "%d", a->jobs));
		if (a->keep_going) {
			strv_push(&c->arena, &args, "-k");
			strv_push(&c->arena, &args, "0");
		}
	}
	if (a->export_dir)
		strv_push(&c->arena, &args, "kernels");
	else
		for (size_t i = 0; i < g->targets.n; i++)
			strv_push(&c->arena, &args, g->targets.v[i]);
	return args.v;
}

/* What ninja's steps see beside the environment: ccache's settings from the config. */
static const char **ninja_env(struct cli *c, const struct config *cfg)
{
	struct strv env = {0};
	strv_push(&c->arena, &env, arena_printf(&c->arena, "CCACHE_BASEDIR=%s", cfg->project_dir));
	if (cfg->cache.dir)
		strv_push(&c->arena, &env,
		          arena_printf(&c->arena, "CCACHE_DIR=%s", cfg->cache.dir));
	if (cfg->cache.remote)
		strv_push(&c->arena, &env,
		          arena_printf(&c->arena, "CCACHE_REMOTE_STORAGE=%s", cfg->cache.remote));
	return env.v;
}

/* A run killed with SIGKILL may have left a hidden temp file of a placed wheel; the pack that
 * rewrites the wheel removes it, and so does the end of a build that found the wheel up to date
 * (the project lock keeps other builds out). */
static void sweep_wheel_temps(struct cli *c, const struct build_result *m,
                              const struct timespec *started)
{
	for (size_t i = 0; i < m->n_rows; i++)
		if (m->rows[i].wheel)
			wheel_tmp_sweep(&c->arena, m->rows[i].wheel,
			                (int64_t)started->tv_sec * 1000000000 + started->tv_nsec);
}

/* The build's result, written down and shown: the summary on stdout, report.json, report.html
 * and report-trace.json, all from the one model. Returns CLI_OK or CLI_FAIL. */
static int build_report(struct cli *c, const struct build_result *m)
{
	/* Cell ids, reasons and wheel names come from the config and the project: escaped. */
	fputs(esc_str(&c->arena, ESC_LOG, report_summary(&c->arena, m)), stdout);
	build_gha_summary(c, m);
	if (!report_write(&c->arena, &c->diag, m, m->build_dir, true))
		return CLI_FAIL;
	printf("report: %s (and report-trace.json beside it)\n",
	       esc_str(&c->arena, ESC_TERM, os_join(&c->arena, m->build_dir, "report.html")));
	return CLI_OK;
}

/* ninja on graph g (args) for the rows of its targets (the kernels alone for --export), into
 * *m; false + diagnostic when ninja could not be run. */
static bool run_graph(struct cli *c, const struct build_args *a, const struct plan *p,
                      const struct build_graph *g, const char **args, const char **env,
                      struct build_result *m, int *status)
{
	struct strv targets = {0};
	if (a->export_dir)
		strv_push(&c->arena, &targets, "kernels");
	else
		targets = g->targets;
	result_init(&c->arena, p, g, &targets, m);
	struct diag warn = cli_diag_as_warnings(c);
	result_expect(&c->arena, &warn, g->build_dir, m);
	return build_run_ninja(c, p, m, args, env, a->progress, status);
}

/* After ninja failed on graph *g, which holds tentative torch decisions (proven by the
 * expansion, the compile left to ninja): takes the decisions again with every proof's compile
 * run, the failed one among them, and writes that graph. Returns 1 when a source is per
 * Python now (*g replaced: ninja again), 0 when none is (the failure is ninja's to report),
 * -1 when the decisions failed (reported: a kernel that is not Python-free). */
static int redecide(struct cli *c, const struct build_args *a, const struct plan_ctx *pc,
                    const char *ccache, struct build_graph *g)
{
	struct build_graph g2;
	if (!build_write_graph(c, a, pc, ccache, false, true, &g2))
		return -1;
	if (g2.per_python <= g->per_python)
		return 0;
	printf("cuwheel: a torch source proven Python-free by its expansion does not compile "
	       "without Python's headers: compiled per Python now (`cuwheel plan` says why); "
	       "ninja again\n");
	fflush(stdout);
	*g = g2;
	return 1;
}

/* After ninja passed on a graph with tentative torch decisions: each proof's compile was the
 * build's own and passed, so the decisions are taken again from the scan cache, writing those
 * answers into it (PROOF_RECORD, nothing runs): `cuwheel plan` and the next build (whose graph
 * is this one) then compile nothing for the proof. Quiet: where it cannot, a later plan runs
 * the compiles, as before. */
static void record_proofs(struct cli *c, const struct build_args *a, const struct plan_ctx *pc)
{
	/* The canon step as the graph runs it: the recorded compiles are the graph's commands. */
	struct build_opts bo = {.jobs = a->jobs,
	                        .cuwheel = os_self_exe(&c->arena),
	                        .bwrap = pc->li_bwrap,
	                        .defer_proofs = true,
	                        .record_proofs = true,
	                        .no_write = true};
	struct graph_plan r;
	struct diag quiet = {0};
	(void)buildgraph_resolve(&c->arena, &quiet, &pc->plan, &bo, &r);
}

/* build_locked's work, with the kernels' early compiles (e) running. */
static int build_graph_run(struct cli *c, const struct build_args *a, struct plan_ctx *pc,
                           const char *ninja, const char *ccache, const struct timespec *t0,
                           const struct timespec *started, struct early *e)
{
	const struct plan *p = &pc->plan;
	struct build_graph g;
	/* .ninja_log grows by this run's steps: what was there before is earlier runs' work. */
	struct ninja_log_mark before =
	    ninja_log_mark(&c->arena, os_realpath(&c->arena, pc->cfg.build_dir));
	/* --dry-run shows the graph a build runs first: proofs left to it, no copied object. */
	if (!build_write_graph(c, a, pc, ccache, true, !a->dry_run, &g))
		return CLI_FAIL;
	if (!a->dry_run && !a->export_dir)
		forget_missing_wheels(c, &g, p->n_cells);
	printf("cuwheel: %s -> %s\n", g.summary, esc_str(&c->arena, ESC_TERM, g.ninja_file));
	fflush(stdout);

	const char **args = ninja_argv(c, a, ninja, &g);
	const char **env = ninja_env(c, &pc->cfg);
	int status = 0;
	if (a->dry_run) {
		struct os_run r = {.argv = args, .env = env};
		if (!os_run(&c->diag, &r, NULL, &status))
			return CLI_FAIL;
		return status == 0 ? CLI_OK : CLI_FAIL;
	}
	struct build_result m;
	env = early_settle(c, e, &g, env);
	if (!run_graph(c, a, p, &g, args, env, &m, &status))
		return CLI_FAIL;
	/* A torch source proven by its expansion alone whose compile failed: the decisions
	 * again, with the proof's compiles run (per Python where it is not Python-free, or the
	 * plan's refusal of a kernel), and ninja once more on what changed. */
	int again =
	    status != 0 && g.tentative && !a->export_dir ? redecide(c, a, pc, ccache, &g) : 0;
	if (again < 0)
		return CLI_FAIL;
	if (again > 0 && !run_graph(c, a, p, &g, ninja_argv(c, a, ninja, &g), env, &m, &status))
		return CLI_FAIL;
	early_finish(c, e, status == 0);
	if (status == 0 && g.tentative && !a->export_dir)
		record_proofs(c, a, pc);
	if (a->export_dir) {
		if (status != 0 || !kernels_export(&c->arena, &c->diag, p, &g, a->export_dir))
			return CLI_FAIL;
		printf("cuwheel: kernel archives and manifest.json written to %s\n",
		       esc_str(&c->arena, ESC_TERM, a->export_dir));
		return CLI_OK;
	}
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
	result_finish(&c->arena, &c->diag, &before, wall, &m);
	sweep_wheel_temps(c, &m, started);
	int rc = build_report(c, &m);
	size_t n_ok, n_failed, n_skipped;
	result_count(&m, &n_ok, &n_failed, &n_skipped);
	if (n_failed)
		return CLI_FAIL;
	return status == 0 ? rc : CLI_FAIL;
}

/* The build with the build dir locked: the kernels' early compiles started (where
 * early_from_files did not start them), then the graph, ninja, the results, the summary and the
 * report. Returns the command's exit code. */
static int build_locked(struct cli *c, const struct build_args *a, struct plan_ctx *pc,
                        const char *ninja, const char *ccache, const struct timespec *t0,
                        const struct timespec *started, struct early *e)
{
	if (!a->dry_run && !e->pid) {
		struct build_opts bo = graph_opts(c, a, pc, ccache, true, true);
		early_start(c, e, &pc->plan, &bo, ninja, ninja_env(c, &pc->cfg), a->jobs, t0);
	}
	return build_graph_run(c, a, pc, ninja, ccache, t0, started, e);
}

/* Where discovery imports torch (no cached probe answers for it; seconds, tens on a cold
 * disk): the kernels' early compiles start, with the build dir locked, from a plan whose
 * torch answers were read from torch's files, while build_prepare imports it. Whatever the
 * import's plan decides otherwise, early_settle and nvcc-overlap's checks refuse. Returns the
 * lock's fd, or -1 where nothing was started (the build locks as ever). */
static int early_from_files(struct cli *c, const struct build_args *a, struct early *e,
                            const struct timespec *t0)
{
	bool read;
	struct plan_ctx *pc =
	    a->dry_run || early_off(c->env) ? NULL : cli_setup_torch_files(c, &a->mo, &read);
	const char *ninja = pc && read ? find_ninja(c) : NULL, *ccache;
	struct diag quiet = {0};
	if (!ninja || pc->plan.n_buildable == 0 ||
	    plan_ccache(c, &pc->cfg, &quiet, &ccache) != CLI_OK ||
	    !os_mkdir_p(&quiet, pc->cfg.build_dir))
		return -1;
	plan_line_info(c, pc);
	int lock = build_lock(c, pc->cfg.build_dir);
	if (lock < 0)
		return -1;
	struct build_opts bo = graph_opts(c, a, pc, ccache, true, true);
	early_start(c, e, &pc->plan, &bo, ninja, ninja_env(c, &pc->cfg), a->jobs, t0);
	return lock;
}

int cmd_build(struct cli *c, int argc, char **argv)
{
	struct build_args a;
	int rc = build_parse(c, argc, argv, &a);
	if (rc != CLI_OK)
		return rc;
	bool win_graph = !strcmp(a.stage, "win-graph");
	if (win_graph || !strcmp(a.stage, "win-pack"))
		return build_win_stage(c, &a, win_graph);
	if ((rc = build_check_stage(c, &a)) != CLI_OK)
		return rc;

	struct timespec t0, started;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_REALTIME, &started);
	struct plan_ctx *pc;
	const char *ninja, *ccache;
	struct early e = {0};
	int lock = early_from_files(c, &a, &e, &t0);
	if ((rc = build_prepare(c, &a, &pc, &ninja, &ccache)) == CLI_OK && lock < 0) {
		rc = os_mkdir_p(&c->diag, pc->cfg.build_dir) ? CLI_OK : CLI_FAIL;
		if (rc == CLI_OK && (lock = build_lock(c, pc->cfg.build_dir)) < 0)
			rc = CLI_FAIL;
	}
	if (rc == CLI_OK)
		rc = build_locked(c, &a, pc, ninja, ccache, &t0, &started, &e);
	early_finish(c, &e, false);
	/* The one place the lock is let go: every path of the build returns through here. */
	if (lock >= 0)
		close(lock);
	return rc;
}
