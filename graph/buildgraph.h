/* buildgraph.h: turns a plan into one build.ninja for the whole matrix: kernel objects and one
 * archive per (toolkit, flags), then per cell the binding stub, the link, staging, packing,
 * the audit that stamps the platform tag, and the tests. ninja executes it. */
#ifndef CUWHEEL_GRAPH_BUILDGRAPH_H
#define CUWHEEL_GRAPH_BUILDGRAPH_H

#include <jansson.h>
#include <stdbool.h>

#include "matrix/matrix.h"
#include "torch/torch_plan.h"
#include "torch/torchflags.h"

/* The file in the build dir that the command writes for the test steps (the test command and
 * the Pythons it found) and `internal test-cell --context` reads. */
#define BUILDGRAPH_TEST_CONTEXT "test-context.json"
/* The project's metadata that the command writes (only when it changed) and the pack steps
 * read and depend on, instead of pyproject.toml. */
#define BUILDGRAPH_PROJECT_JSON "project.json"
/* The list of the packages' files that the graph writes (only when it changed) and every stage
 * step depends on: a file renamed, added or removed restages, though no input's mtime and no
 * command changed. */
#define BUILDGRAPH_STAGE_FILES "stage-files.txt"

struct build_opts {
	int jobs;               /* parallel jobs ninja will run (for nvcc --threads) */
	const char *ccache;     /* ccache path, or NULL for no compiler cache */
	const char *cuwheel;    /* absolute path of this cuwheel binary */
	const char *bwrap;      /* bubblewrap, where kernels with device line info compile with
	                         * the project and the build dir at fixed paths (`cuwheel
	                         * internal canon`), else NULL (they name the project's own) */
	bool run_tests;         /* add test edges (when the config has a test command) */
	bool imported_archives; /* archives come from --import: no kernel compile edges */
	bool no_proof_objects;  /* ninja compiles every shared torch source, also one whose
	                         * object the Python-free proof kept (--dry-run) */
	bool defer_proofs;      /* the proof's compiles the scan cache cannot answer are the
	                         * build's (PROOF_DEFER): out->tentative */
	bool record_proofs;     /* the build's compiles passed: the proof's answers are written
	                         * into the scan cache (PROOF_RECORD; resolve only) */
	bool no_write;          /* resolve for `cuwheel plan`: the build dir is not made (the
	                         * torch scan still keeps its cache and links there) */
	bool guess_kernels;     /* the kernels' decisions guessed (PROOF_GUESS) and only the
	                         * kernel archives rendered: the commands `cuwheel build` starts
	                         * early, before the scans end */
};

/* What the graph promises per cell and per toolkit (paths relative to the build dir). */
struct cell_paths {
	const char *dir;    /* cells/<id> */
	const char *module; /* the linked extension module */
	const char *wheel;  /* the packed wheel before the audit */
	const char *final;  /* stamp holding the path of the wheel placed in dist/ */
	const char *tested; /* stamp written when the tests passed, or NULL */
	const char *compat; /* torch-compat's table (compat.json), or NULL */
	const char *target; /* the phony target naming the cell: its id */
};

struct archive_paths {
	const char *dir;     /* kernels/cu130-<key> */
	const char *archive; /* kernels/cu130-<key>/libkernels.a */
	const char *key;     /* hex digest of toolkit + flags */
	size_t n_objects;
};

/* One edge of the graph as the build's result names it (the renderer's step table): its output
 * (build-dir relative, as .ninja_log names it), its step ("nvcc kernels/a.cu", "cc kernels/b.c",
 * "link dlink.o", "ar", "pch torch/all.h", "cc binding", "nvcc binding", "cc shared",
 * "nvcc shared", "copy shared" (an object the Python-free proof compiled), "link", "stage",
 * "pack", "torch-compat", "audit", "test") and its row: the
 * toolkit of a kernel archive or the cell, -1 for none (a shared object). */
struct graph_step {
	const char *output;
	const char *name;
	const char *rule; /* its ninja rule ("nvcc", "nvcc_canon", "cc", ...) */
	long toolkit, cell;
};

struct build_graph {
	const char *build_dir;    /* absolute */
	const char *ninja_file;   /* absolute */
	char *text;               /* the build.ninja contents */
	struct cell_paths *cells; /* parallel to plan->cells; dir NULL when not in the graph */
	struct archive_paths *archives; /* parallel to plan->toolkits; dir NULL when unused */
	struct strv targets;            /* the cell targets to build */
	const char *summary;            /* one line: what the graph holds */
	struct strv files;      /* build-dir files the graph reads (absolute): source stubs, PCH
	                         * headers, BUILDGRAPH_STAGE_FILES; written when they change */
	struct strv file_texts; /* parallel: their contents */
	struct strv exec_files; /* those of files written executable (the nvcc-overlap script) */
	const char *plan_json;  /* the resolved plan it was rendered from (BUILDGRAPH_PLAN_JSON) */
	bool tentative;         /* a torch decision waits for its compile in this graph (see
	                         * build_opts.defer_proofs) */
	size_t per_python;      /* the torch extensions' sources compiled per Python (decisions
	                         * of every torch) */
	struct graph_step *steps; /* every edge but the phony ones, in the order written */
	size_t n_steps;
};

/* The kernels of one toolkit that include torch headers: the torch they are built against. */
struct graph_ktorch {
	const struct interp *py; /* its interpreter; NULL: the kernels include no torch header */
	struct torch_flags tf;   /* its flags: include dirs through the build dir's torch link,
	                          * post flags less the -std= the kernels' nvcc-flags set */
	struct strv cpp_post;    /* the post flags for .cpp kernels (host-flags' -std=) */
};

/* A plan resolved for the graph: the plan and every fact the renderer needs that the machine,
 * the environment, the file system or the preprocessor gives. buildgraph_resolve finds them
 * (and writes the torch links and the scan cache); the renderer reads nothing else. */
struct graph_plan {
	const struct plan *plan;
	struct build_opts o;
	const char *build_dir;         /* absolute */
	const char *proj;              /* the project dir relative to build_dir */
	const char *cc, *cxx;          /* the config's CC and CXX, else cc and c++ */
	int ncpu;                      /* the machine's online CPUs */
	int nvcc_threads;              /* CUWHEEL_NVCC_THREADS (1..64), else 0 */
	struct torch_plan tp;          /* the preprocessor's torch decisions */
	struct graph_ktorch *ktorch;   /* parallel to plan->toolkits */
	struct torch_flags *ext_flags; /* [cell * n_extensions + ext]: the C++ kinds' flags */
	struct strv pkgfiles;          /* the packages' files (project-relative), package order */
};

/* Resolves plan for its selected, buildable cells into r: creates the build dir. False +
 * diagnostic when a path cannot be expressed in build.ninja or a fact a cell needs is missing
 * (torch's flags, pybind11's headers). */
bool buildgraph_resolve(struct arena *a, struct diag *d, const struct plan *plan,
                        const struct build_opts *o, struct graph_plan *r);

/* The resolved plan beside build.ninja that `cuwheel build` (-n too) writes, `cuwheel plan --json`
 * prints and `cuwheel internal render-ninja` renders; its "format" is BUILDGRAPH_PLAN_FORMAT. */
#define BUILDGRAPH_PLAN_JSON   "plan.json"
#define BUILDGRAPH_PLAN_FORMAT 1

/* r as the plan document's text, which `build` writes to plan.json and `plan --json` prints:
 * the fields the renderer reads, the torch decisions' reasons, and the matrix (r->plan's every
 * cell and toolkit, as `cuwheel plan` shows them); checked with buildgraph_plan_check. NULL +
 * diagnostic. */
char *buildgraph_plan_text(struct arena *a, struct diag *d, const struct graph_plan *r);
/* Reads doc (read from file, for messages) into out, in a: a plan that renders alone (no
 * discovery, no config file). False + diagnostic naming file and the JSON path. */
bool buildgraph_plan_read(struct arena *a, struct diag *d, const char *file, json_t *doc,
                          struct graph_plan *out);
/* Checks every string of doc (a plan, read from file or about to be written there) for what
 * build.ninja cannot express: a line break, a carriage return, a NUL. False + one diagnostic
 * per such string, naming its JSON path ($.cc: CC from the environment). */
bool buildgraph_plan_check(struct arena *a, struct diag *d, const char *file, json_t *doc);
/* Renders r into out: a pure function of r (no file system, no process, no environment); the
 * build-dir files the graph reads are out's files, for the caller to write. */
void buildgraph_render(struct arena *a, const struct graph_plan *r, struct build_graph *out);

/* Generates the graph for the selected, buildable cells of plan. False + diagnostic when a
 * path cannot be expressed or a needed tool is missing. */
bool buildgraph_generate(struct arena *a, struct diag *d, const struct plan *plan,
                         const struct build_opts *o, struct build_graph *out);
/* The kernel archives of plan alone, their decisions guessed before any scan ran
 * (build_opts.guess_kernels): the graph `cuwheel build` starts the kernels' compiles from
 * early (cli/early.h). Writes the files those edges read; false + diagnostic as
 * buildgraph_generate. */
bool buildgraph_early(struct arena *a, struct diag *d, const struct plan *plan,
                      const struct build_opts *o, struct build_graph *out);
/* Returns the Py_LIMITED_API value for an abi3 baseline "3.10" -> "0x030A0000". */
char *buildgraph_limited_api(struct arena *a, const char *python);

#endif
