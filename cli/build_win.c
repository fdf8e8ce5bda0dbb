/* build_win.c: `cuwheel build --stage win-graph --export DIR` (write the Windows runner's
 * graph) and `--stage win-pack --import DIR` (pack, audit and place what it built). */
#include "cli/build_win.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "graph/buildgraph_win.h"
#include "torch/torchflags.h"
#include "packager/audit.h"
#include "packager/retag.h"
#include "packager/wheel.h"

static size_t count_cells(const struct plan *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n_cells; i++)
		n += wingraph_cell(&p->cells[i]);
	return n;
}

static int nothing(struct cli *c, const struct plan *p)
{
	diag_msg(&c->diag, DIAG_ERROR, "no selected win_amd64 cell (%zu cells in the plan)",
	         p->n_cells);
	diag_msg(&c->diag, DIAG_HINT,
	         "add \"win_amd64\" to [tool.cuwheel.matrix] platform or CUWHEEL_MATRIX_PLATFORM");
	return CLI_NOTHING;
}

int build_win_graph(struct cli *c, const struct plan *p, const char *dir)
{
	if (!count_cells(p))
		return nothing(c, p);
	struct win_export x;
	if (!wingraph_render(&c->arena, &c->diag, p, &x) ||
	    !wingraph_export(&c->arena, &c->diag, p, dir, &x))
		return CLI_FAIL;
	printf("cuwheel: Windows graph for %zu cell%s (%zu kernel archive%s) written to %s\n"
	       "  on a Windows runner, in an MSVC developer environment: python probe.py, then "
	       "ninja, in that directory;\n"
	       "  then here: cuwheel build --stage win-pack --import %s\n",
	       x.cells.n, x.cells.n == 1 ? "" : "s", x.n_toolkits, x.n_toolkits == 1 ? "" : "s",
	       esc_str(&c->arena, ESC_TERM, dir), esc_str(&c->arena, ESC_TERM, dir));
	return CLI_OK;
}

/* Packs, audits and places one cell; false when it failed (reported). */
static bool pack_cell(struct cli *c, const struct plan *p, const struct cell *cell,
                      const char *stage, int64_t sde)
{
	struct arena *a = &c->arena;
	const struct config *cfg = p->cfg;
	for (size_t e = 0; e < cfg->n_extensions; e++) {
		char *pyd = os_join(a, stage, wingraph_module_path(a, &cfg->extensions[e], cell));
		if (!os_exists(pyd)) {
			diag_path(&c->diag, DIAG_ERROR, cell->id,
			          "%s is missing: the Windows runner's ninja did not build it (or "
			          "its artifact was not downloaded)",
			          pyd);
			return false;
		}
	}
	struct project_meta meta = cfg->project;
	if (cell->torch) {
		meta.dependencies = (struct strv){0};
		for (size_t i = 0; i < cfg->project.dependencies.n; i++)
			strv_push(a, &meta.dependencies, cfg->project.dependencies.v[i]);
		strv_push(a, &meta.dependencies,
		          torchflags_requirement(a, cell->torch, cell->torch_stable));
	}
	struct pack_opts po = {
	    .staged_dir = stage,
	    .project_dir = cfg->project_dir,
	    .meta = &meta,
	    .python = cell->py_tag,
	    .abi = cell->abi_tag,
	    .platform = cell->platform,
	    .local = cell->local,
	    .compression = cfg->compression,
	    .out_dir = os_join(a, cfg->build_dir, arena_printf(a, "cells/%s", cell->id)),
	    .source_date_epoch = sde,
	};
	char *wheel;
	if (!wheel_pack(a, &c->diag, &po, &wheel))
		return false;
	const char *trace = env_nonempty(c->env, "CUWHEEL_AUDIT_TRACE");
	/* The libraries the package loads by path (loaded-by = "path"), as the Linux audit step
	 * is given them: no PyInit_ is asked of them, here and in retag's gate. And what the wheel
	 * may hold at its root, as that step's --declare: a file the runner's artifact added
	 * beside the packages, or any .data, fails the cell. */
	struct strv libs = {0}, declared = {0};
	config_libraries(a, cfg, &libs);
	config_declared(a, cfg, &declared);
	struct audit_opts ao = {.strict = cfg->audit.strict,
	                        .trace = trace,
	                        .declared = declared.n ? &declared : NULL,
	                        .libraries = &libs};
	struct audit_result r;
	if (!audit_wheel(a, &c->diag, wheel, &ao, &r)) {
		cli_report_findings(c, &r);
		diag_path(&c->diag, DIAG_ERROR, cell->id, "audit failed: %s (nothing placed in %s)",
		          r.wheel, cfg->dist_dir);
		return false;
	}
	struct retag_opts ro = {.platform = r.platform_tag,
	                        .audit_trace = trace,
	                        .libraries = &(struct audit_libraries){.any = &libs}};
	char *final;
	if (!os_mkdir_p(&c->diag, cfg->dist_dir) ||
	    !wheel_retag(a, &c->diag, wheel, &ro, cfg->dist_dir, &final))
		return false;
	printf("cuwheel: %s: %s\n", cell->id, esc_str(a, ESC_TERM, final));
	return true;
}

int build_win_pack(struct cli *c, const struct plan *p, const char *dir)
{
	if (!count_cells(p))
		return nothing(c, p);
	if (!os_is_dir(os_join(&c->arena, dir, "stage"))) {
		diag_path(&c->diag, DIAG_ERROR, dir,
		          "has no stage/ directory: import what `cuwheel build --stage win-graph "
		          "--export` wrote and the Windows runner built");
		return CLI_FAIL;
	}
	int64_t sde = -1;
	const char *env = env_nonempty(c->env, "SOURCE_DATE_EPOCH");
	if (env) {
		char *end;
		long long v = strtoll(env, &end, 10);
		if (*end || v < 0)
			return cli_usage(c, "build",
			                 "SOURCE_DATE_EPOCH='%s' is not a number of seconds", env);
		sde = v;
	}
	size_t ok = 0, failed = 0;
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct cell *cell = &p->cells[i];
		if (!wingraph_cell(cell))
			continue;
		char *stage =
		    os_join(&c->arena, dir, arena_printf(&c->arena, "stage/%s", cell->id));
		if (pack_cell(c, p, cell, stage, sde))
			ok++;
		else
			failed++;
	}
	printf("cuwheel: %zu Windows wheel%s placed in %s, %zu failed\n", ok, ok == 1 ? "" : "s",
	       esc_str(&c->arena, ESC_TERM, p->cfg->dist_dir), failed);
	return failed ? CLI_FAIL : CLI_OK;
}
