/* cell_steps.c: the steps of a cell after its modules: stage, pack, torch-compat, finish
 * (audit, tag, place in dist/) and test (ninja_gen.h). */
#include "graph/ninja_gen.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os-file.h"
#include "base/path.h"
#include "kernels/buildflags.h"
#include "kernels/kernels_key.h"
#include "standards/json_values.h"
#include "standards/ninja.h"
#include "standards/toml.h"
#include "torch/torch_plan.h"
#include "torch/torchflags.h"

/* The text of BUILDGRAPH_STAGE_FILES: the packages and the files they ship. */
static const char *stage_list_text(struct gen *g, const struct strv *pkgfiles)
{
	const struct config *cfg = g->cfg;
	struct strbuf lb = {0};
	sb_printf(&lb, "# cuwheel: the files the stage steps ship (packages%s)\n",
	          cfg->ship_hidden ? ", hidden files too" : "");
	for (size_t p = 0; p < cfg->packages.n; p++)
		sb_printf(&lb, "package %s\n", cfg->packages.v[p]);
	for (size_t k = 0; k < pkgfiles->n; k++)
		sb_printf(&lb, "file %s\n", pkgfiles->v[k]);
	return sb_to_arena(&lb, g->a);
}

/* Stage: the pure-Python packages plus the modules, in the tree the wheel will hold, under
 * stage; its stamp is the step's output. */
static void emit_stage(struct gen *g, const struct cell *c, const char *stage, const char *stamp,
                       const struct strv *modules, struct strv *stage_args)
{
	struct strbuf *sb = &g->sb;
	const struct config *cfg = g->cfg;
	gen_emit_build(g, stamp, "cuwheel", NULL, "stage");
	ninja_paths(sb, modules);
	const struct strv pkgfiles = g->r->pkgfiles;
	for (size_t p = 0; p < cfg->packages.n; p++) {
		if (p == 0 && cfg->ship_hidden)
			strv_push(g->a, stage_args, "--hidden");
		strv_push(g->a, stage_args, "--package");
		strv_push(g->a, stage_args, cfg->packages.v[p]);
	}
	for (size_t f = 0; f < cfg->python_files.n; f++) {
		strv_push(g->a, stage_args, "--python-file");
		strv_push(g->a, stage_args,
		          arena_printf(g->a, "%s=%s", cfg->python_files.v[f].key,
		                       cfg->python_files.v[f].value));
	}
	/* The file list itself is an input: a file renamed (its mtime kept) or removed changes
	 * no input's mtime and no command, but changes the list, which is rewritten only when
	 * its content changes. */
	sb_puts(sb, " | " BUILDGRAPH_STAGE_FILES);
	for (size_t k = 0; k < pkgfiles.n; k++) {
		sb_putc(sb, ' ');
		ninja_path(sb, gen_from_build(g, pkgfiles.v[k]));
	}
	if (!g->stage_list)
		gen_need_file(g, os_join(g->a, g->bdir, BUILDGRAPH_STAGE_FILES),
		              stage_list_text(g, &pkgfiles));
	g->stage_list = true;
	sb_puts(sb, "\n  args = internal stage --out ");
	ninja_arg(sb, gen_build_path(g, stage));
	gen_emit_opt(g, " --stamp ", gen_build_path(g, stamp));
	for (size_t i = 0; i < stage_args->n; i++) {
		sb_putc(sb, ' ');
		const char *arg = stage_args->v[i];
		/* Module sources are build-dir relative; the command runs with -C project. */
		if (i > 0 && !strcmp(stage_args->v[i - 1], "--file"))
			arg = arena_printf(g->a, "%s/%s", g->cfg->build_dir, arg);
		ninja_arg(sb, arg);
	}
	sb_printf(sb, "\n  desc = %s: stage\n", c->id);
}

/* Pack: the staged tree as cp->wheel. */
static void emit_pack(struct gen *g, const struct cell *c, struct cell_paths *cp, const char *stage,
                      const char *stamp)
{
	struct strbuf *sb = &g->sb;
	const struct config *cfg = g->cfg;
	cp->wheel = arena_printf(g->a, "%s/%s", cp->dir, c->wheel);
	gen_emit_build(g, cp->wheel, "cuwheel", stamp, "pack");
	sb_puts(sb, " | " BUILDGRAPH_PROJECT_JSON);
	if (cfg->project.readme_path) {
		sb_putc(sb, ' ');
		ninja_path(sb, gen_from_build(g, cfg->project.readme_path));
	}
	for (size_t i = 0; i < cfg->project.license_files.n; i++) {
		sb_putc(sb, ' ');
		ninja_path(sb, gen_from_build(g, cfg->project.license_files.v[i]));
	}
	sb_puts(sb, "\n  args = pack ");
	ninja_arg(sb, gen_build_path(g, stage));
	gen_emit_opt(g, " --project-json ", gen_build_path(g, BUILDGRAPH_PROJECT_JSON));
	gen_emit_opt(g, " --tag ",
	             arena_printf(g->a, "%s-%s-%s", c->py_tag, c->abi_tag, c->platform));
	if (c->local)
		gen_emit_opt(g, " --local ", c->local);
	else
		sb_puts(sb, " --no-local");
	if (c->torch)
		gen_emit_opt(g, " --requires ",
		             torchflags_requirement(g->a, c->torch, c->torch_stable));
	sb_printf(sb, " --quiet --compression %d -o ", cfg->compression);
	ninja_arg(sb, gen_build_path(g, cp->dir));
	sb_printf(sb, "\n  desc = %s: pack %s\n", c->id, c->wheel);
}

/* torch-compat: the packed wheel tried with each listed torch before it is placed, so that
 * with torch-requires = "tested" the range it proved goes into the one wheel dist/ receives.
 * Failures are the table's rows, not the step's. */
static void emit_compat(struct gen *g, const struct cell *c, struct cell_paths *cp)
{
	struct strbuf *sb = &g->sb;
	cp->compat = arena_printf(g->a, "%s/compat.json", cp->dir);
	gen_emit_build(g, cp->compat, "cuwheel", cp->wheel, "torch-compat");
	sb_puts(sb, " | " BUILDGRAPH_TEST_CONTEXT "\n  args = internal compat ");
	ninja_arg(sb, gen_build_path(g, cp->wheel));
	gen_emit_opt(g, " --out ", gen_build_path(g, cp->compat));
	gen_emit_opt(g, " --context ", gen_build_path(g, BUILDGRAPH_TEST_CONTEXT));
	sb_printf(sb, "\n  desc = %s: torch-compat\n", c->id);
}

/* Audit, stamp the platform tag, place the wheel in dist/ atomically. */
static void emit_finish(struct gen *g, const struct cell *c, struct cell_paths *cp)
{
	struct strbuf *sb = &g->sb;
	const struct config *cfg = g->cfg;
	const struct toolkit_plan *tp = &g->plan->toolkits[c->toolkit];
	cp->final = arena_printf(g->a, "%s/final", cp->dir);
	gen_emit_build(g, cp->final, "cuwheel", cp->wheel, "audit");
	if (cp->compat) {
		sb_puts(sb, " | ");
		ninja_path(sb, cp->compat);
	}
	sb_puts(sb, "\n  args = internal finish ");
	ninja_arg(sb, gen_build_path(g, cp->wheel));
	gen_emit_opt(g, " --dist ", cfg->dist_dir);
	gen_emit_opt(g, " --stamp ", gen_build_path(g, cp->final));
	if (tp->n_archs && cfg->kernels.files.n) /* no kernels: no device code to check */
		gen_emit_opt(g, " --require-arch ",
		             cuda_arch_list_compact(g->a, tp->archs, tp->n_archs));
	/* What the wheel may hold at its root: the packages and the top-level modules. */
	struct strv declared = {0};
	config_declared(g->a, cfg, &declared);
	for (size_t d = 0; d < declared.n; d++)
		gen_emit_opt(g, " --declare ", declared.v[d]);
	/* The libraries the package loads by path: no PyInit_ asked of them. */
	for (size_t e = 0; e < cfg->n_extensions; e++)
		if (cfg->extensions[e].loaded_by_path)
			gen_emit_opt(g, " --library ", cfg->extensions[e].module);
	if (cfg->audit.strict)
		sb_puts(sb, " --strict");
	if (c->torch_stable)
		sb_puts(sb, " --torch-stable");
	if (cfg->audit.min_manylinux)
		gen_emit_opt(g, " --min-manylinux ", cfg->audit.min_manylinux);
	if (cp->compat && cfg->test.torch_requires_tested)
		gen_emit_opt(g, " --torch-requires-from ", gen_build_path(g, cp->compat));
	sb_printf(sb, "\n  desc = %s: audit\n", c->id);
}

/* The test step: the placed wheel installed and tested in a fresh venv of its Python(s). */
static void emit_test(struct gen *g, const struct cell *c, struct cell_paths *cp)
{
	struct strbuf *sb = &g->sb;
	cp->tested = arena_printf(g->a, "%s/tested", cp->dir);
	gen_emit_build(g, cp->tested, "cuwheel", cp->final, "test");
	sb_puts(sb, "\n  args = internal test-cell ");
	ninja_arg(sb, gen_build_path(g, cp->final));
	gen_emit_opt(g, " --python ", c->abi3 ? "all" : c->python);
	gen_emit_opt(g, " --stamp ", gen_build_path(g, cp->tested));
	gen_emit_opt(g, " --context ", gen_build_path(g, BUILDGRAPH_TEST_CONTEXT));
	sb_printf(sb, "\n  desc = %s: test\n", c->id);
}

/* Every step of one cell: its extensions' objects and modules, stage, pack, torch-compat,
 * audit and test, and the phony target named for the cell. */
void gen_emit_cell(struct gen *g, const struct cell *c, const struct archive_paths *ap,
                   struct cell_paths *cp)
{
	struct strbuf *sb = &g->sb;
	const struct config *cfg = g->cfg;
	cp->dir = arena_printf(g->a, "cells/%s", c->id);
	cp->target = c->id;
	sb_printf(sb, "# %s: Python %s (%s)\n", c->id, c->py->version, c->py->path);
	struct strv stage_args = {0};
	struct strv modules = {0};
	for (size_t e = 0; e < cfg->n_extensions; e++)
		gen_emit_extension(g, c, e, ap, cp, &modules, &stage_args);
	char *stage = arena_printf(g->a, "%s/stage", cp->dir);
	char *stamp = arena_printf(g->a, "%s/stage.stamp", cp->dir);
	emit_stage(g, c, stage, stamp, &modules, &stage_args);
	emit_pack(g, c, cp, stage, stamp);
	if (g->o->run_tests && cfg->test.torch_compat.n && c->torch && !c->torch_stable)
		emit_compat(g, c, cp);
	emit_finish(g, c, cp);
	const char *last = cp->final;
	/* A cross-built wheel is tested with its platform's CPython under qemu-user
	 * (wheeltest/cross_venv.h). */
	if (g->o->run_tests && cfg->test.command) {
		emit_test(g, c, cp);
		last = cp->tested;
	}
	gen_emit_build(g, c->id, "phony", last, NULL);
	sb_puts(sb, "\n\n");
}
