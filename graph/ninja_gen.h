/* ninja_gen.h: the build.ninja renderer's shared state and writer, for its stages (not for use
 * outside graph/): ninja_gen.c (the writer: paths, flags, edges), archive_rules.c (the kernel
 * archive of each toolkit), binding_rules.c (each cell's extension objects and modules),
 * cell_steps.c (stage, pack, torch-compat, finish, test), buildgraph.c (the render). */
#ifndef CUWHEEL_GRAPH_NINJA_GEN_H
#define CUWHEEL_GRAPH_NINJA_GEN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "graph/buildgraph.h"

/* The renderer's state: the resolved plan it reads, the text it writes and the files (stubs,
 * PCH headers, the stage list) the graph needs in the build dir, which it names but does not
 * write. */
struct gen {
	struct arena *a;
	const struct graph_plan *r;
	const struct plan *plan;
	const struct config *cfg;
	const struct build_opts *o;
	struct strbuf sb;
	/* The precompiled headers' rules and edges, placed before every other edge: ninja starts
	 * ready edges in the order of the file, and a .gch (minutes) heads the longest chain
	 * (the .gch, the sources that use it, the link), so it starts first, beside the kernels,
	 * instead of after them with a job idle. */
	struct strbuf pch;
	const char *proj; /* the project dir relative to the build dir */
	const char *bdir; /* the build dir, absolute */
	const char *cc, *cxx;
	const struct torch_plan *tp; /* the preprocessor's torch decisions */
	struct strv emitted;         /* shared objects and PCH rules already in the graph */
	struct strv file_paths;      /* build-dir files the graph needs (absolute) */
	struct graph_step *steps;    /* the step table (build_graph.steps) */
	size_t n_steps, cap_steps;
	long toolkit, cell;     /* the row the edges written now belong to (-1: none) */
	struct strv file_texts; /* parallel: their contents */
	struct strv exec_files; /* those written executable */
	bool stage_list;        /* BUILDGRAPH_STAGE_FILES is among them */
};

/* Returns the extension module's file name for a cell ("_C.abi3.so", "_C.cpython-312-...so")
 * and its path inside the package tree ("tinyraster/_C.abi3.so"). */
const char *buildgraph_module_path(struct arena *a, const struct extension_cfg *x,
                                   const struct cell *c);
bool gen_is_cxx(const char *path);
bool gen_is_c(const char *path);
bool gen_is_cu(const char *path);
/* Returns sb's text with ins's inserted at offset at (both buffers released). */
char *gen_splice(struct arena *a, struct strbuf *sb, size_t at, struct strbuf *ins);
/* Records a file of the build dir (absolute path) that the graph needs, once. */
void gen_need_file(struct gen *g, const char *path, const char *text);
/* Project-relative path as seen from the build dir. */
char *gen_from_build(struct gen *g, const char *rel);
/* The path a build line compiles for src: src itself, or a stub in the build dir that
 * #includes it when src's name cannot reach nvcc or ninja verbatim (a$b.cu, "c d.cu", a|b.c).
 * *name is what stands for src in object paths and seeds. The stub is rewritten only when its
 * text changes (buildgraph_generate writes it), so an unchanged source is not rebuilt. */
const char *gen_source_input(struct gen *g, const char *src, bool nvcc, const char **name);
void gen_emit_header(struct gen *g);
char *gen_xcompiler(struct arena *a, const char *flag);
void gen_emit_flags(struct gen *g, const char *prefix, const struct strv *v, bool xcompiler_form);
void gen_emit_includes(struct gen *g, const struct strv *dirs);
/* Starts the edge "build OUT: RULE IN" (without IN when in is NULL) and enters it in the step
 * table as step (NULL: a phony edge, no step) of the row being written. */
void gen_emit_build(struct gen *g, const char *out, const char *rule, const char *in,
                    const char *step);
/* Writes opt (" --stamp ") and then value as one argument. */
void gen_emit_opt(struct gen *g, const char *opt, const char *value);
/* A path of the build dir, as the cuwheel steps (run with -C project) are given it. */
char *gen_build_path(struct gen *g, const char *rel);
/* Sources are named relative to the build dir, so the map is too: an absolute one would differ
 * between clones and defeat a shared ccache (which hashes -Xcompiler values as written). */
char *gen_prefix_map(struct gen *g);
/* The nvcc options that depend on the toolkit: each only where its nvcc knows it (nvcc
 * --help, cudafe++), the host compiler it accepts, and the random seed. nvcc's own
 * -frandom-seed also fixes the module id cudafe++ puts into internal-linkage names
 * (`_INTERNAL_<path hash>_<len>_<file>_<module id>`) when the translation unit has no
 * non-template external function to name it after; without it that id holds cudafe++'s pid,
 * so two builds differ. nvcc hands the seed on to the host compiler. nvcc 11.8 and 12.4 lack
 * the option: the seed reaches only the host compiler (-Xcompiler), and such objects are not
 * reproducible (docs/manual/build-dir.md). */
void gen_emit_toolkit_flags(struct gen *g, const struct toolkit_plan *tp, const char *src,
                            int threads);
/* The host compiler of toolkit tp's kernels and bindings (C++ when cxx). */
const char *gen_host_cc(const struct gen *g, const struct toolkit_plan *tp, bool cxx);
/* The kernel archive of one toolkit. */
void gen_emit_archive(struct gen *g, const struct toolkit_plan *tp, struct archive_paths *ap);
/* Extension e of cell c: its objects and its module. Appends the module to modules and its
 * stage arguments (--file MODULE=PATH) to stage_args; the first module is cp->module. */
void gen_emit_extension(struct gen *g, const struct cell *c, size_t e,
                        const struct archive_paths *ap, struct cell_paths *cp, struct strv *modules,
                        struct strv *stage_args);
/* Every step of one cell: its extensions' objects and modules, stage, pack, torch-compat,
 * audit and test, and the phony target named for the cell. */
void gen_emit_cell(struct gen *g, const struct cell *c, const struct archive_paths *ap,
                   struct cell_paths *cp);

#endif
