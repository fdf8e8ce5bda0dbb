/* buildgraph.c: the plan as build.ninja. Kernels are compiled once per (toolkit, flags) into
 * an archive that every Python cell of that toolkit links; only the binding stub is compiled
 * per Python. */
#include "graph/buildgraph.h"

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
#include "graph/ninja_gen.h"

void buildgraph_render(struct arena *a, const struct graph_plan *r, struct build_graph *out)
{
	memset(out, 0, sizeof(*out));
	const struct plan *plan = r->plan;
	const struct config *cfg = plan->cfg;
	out->build_dir = r->build_dir;
	out->ninja_file = os_join(a, r->build_dir, "build.ninja");
	struct gen g = {.a = a,
	                .r = r,
	                .plan = plan,
	                .cfg = cfg,
	                .o = &r->o,
	                .proj = r->proj,
	                .bdir = r->build_dir,
	                .cc = r->cc,
	                .cxx = r->cxx,
	                .tp = &r->tp,
	                .toolkit = -1,
	                .cell = -1};
	gen_emit_header(&g);
	size_t head_len = g.sb.len;
	out->archives = arena_calloc(a, plan->n_toolkits + 1, sizeof(*out->archives));
	out->cells = arena_calloc(a, plan->n_cells + 1, sizeof(*out->cells));
	size_t n_archives = 0, n_cells = 0, n_nvcc = 0;
	for (size_t t = 0; t < plan->n_toolkits; t++) {
		if (!plan->toolkits[t].used || cfg->kernels.files.n == 0)
			continue;
		g.toolkit = (long)t;
		gen_emit_archive(&g, &plan->toolkits[t], &out->archives[t]);
		g.toolkit = -1;
		n_archives++;
		n_nvcc += out->archives[t].n_objects;
	}
	for (size_t i = 0; i < plan->n_cells && !r->o.guess_kernels; i++) {
		const struct cell *c = &plan->cells[i];
		if (!c->selected || !c->buildable)
			continue;
		g.cell = (long)i;
		gen_emit_cell(&g, c, &out->archives[c->toolkit], &out->cells[i]);
		g.cell = -1;
		strv_push(a, &out->targets, c->id);
		n_cells++;
	}
	sb_puts(&g.sb, "build kernels: phony");
	for (size_t t = 0; t < plan->n_toolkits; t++) {
		if (out->archives[t].archive) {
			sb_putc(&g.sb, ' ');
			ninja_path(&g.sb, out->archives[t].archive);
		}
	}
	sb_puts(&g.sb, "\nbuild all: phony");
	for (size_t i = 0; i < out->targets.n; i++) {
		sb_putc(&g.sb, ' ');
		ninja_path(&g.sb, out->targets.v[i]);
	}
	sb_puts(&g.sb, "\ndefault all\n");
	out->text = gen_splice(a, &g.sb, head_len, &g.pch);
	out->files = g.file_paths;
	out->steps = g.steps;
	out->n_steps = g.n_steps;
	out->file_texts = g.file_texts;
	out->exec_files = g.exec_files;
	out->summary =
	    arena_printf(a, "%zu kernel archive%s (%zu objects), %zu cell%s", n_archives,
	                 n_archives == 1 ? "" : "s", n_nvcc, n_cells, n_cells == 1 ? "" : "s");
}

/* Writes the files graph out reads (each only when its text changed, so that what depends on
 * it is not rebuilt). */
static bool write_files(struct arena *a, struct diag *d, const struct build_graph *out)
{
	for (size_t i = 0; i < out->files.n; i++) {
		const char *path = out->files.v[i];
		const char *text = out->file_texts.v[i];
		if (!os_mkdir_p(d, arena_strndup(a, path, (size_t)(strrchr(path, '/') - path))) ||
		    !os_write_if_changed(a, d, path, text, strlen(text),
		                         strv_contains(&out->exec_files, path) ? 0755 : 0644))
			return false;
	}
	return true;
}

bool buildgraph_early(struct arena *a, struct diag *d, const struct plan *plan,
                      const struct build_opts *o, struct build_graph *out)
{
	memset(out, 0, sizeof(*out));
	struct build_opts guess = *o;
	guess.guess_kernels = true;
	struct graph_plan r;
	if (!buildgraph_resolve(a, d, plan, &guess, &r))
		return false;
	buildgraph_render(a, &r, out);
	return write_files(a, d, out);
}

bool buildgraph_generate(struct arena *a, struct diag *d, const struct plan *plan,
                         const struct build_opts *o, struct build_graph *out)
{
	memset(out, 0, sizeof(*out));
	struct graph_plan r;
	if (!buildgraph_resolve(a, d, plan, o, &r))
		return false;
	const char *plan_json = buildgraph_plan_text(a, d, &r);
	if (!plan_json)
		return false;
	buildgraph_render(a, &r, out);
	out->plan_json = plan_json;
	out->tentative = r.tp.tentative;
	for (size_t e = 0; e < r.tp.n_exts; e++)
		for (size_t i = 0; i < plan->cfg->extensions[r.tp.exts[e].ext].files.n; i++)
			out->per_python += r.tp.exts[e].srcs[i].python;
	return write_files(a, d, out);
}
