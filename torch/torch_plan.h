/* torch_plan.h: the torch decisions of one plan, taken by the preprocessor (torch_scan.h):
 * whether the kernels include torch headers, and per source of each torch-kind extension
 * whether it is compiled per Python or once per (toolkit, torch, flags), and with the
 * precompiled header (torch/all.h shared per flag set, or torch/extension.h per cell) or not.
 * `plan` shows them; buildgraph follows them. */
#ifndef CUWHEEL_TORCH_TORCH_PLAN_H
#define CUWHEEL_TORCH_TORCH_PLAN_H

#include <stdbool.h>

#include "matrix/matrix.h"
#include "torch/torch_scan.h"
#include "torch/torchflags.h"

/* The sources of one torch-kind extension, decided for one torch version; or of an extension of
 * another kind (torch NULL), decided for one toolkit. */
struct torch_plan_ext {
	size_t ext;             /* index into cfg->extensions */
	const char *torch;      /* the full version: "2.11.0+cu130"; NULL: not a torch extension */
	size_t toolkit;         /* torch NULL: the toolkit (plan->toolkits) decided for */
	const char *link;       /* build-dir-relative link to that torch's package */
	const struct cell *rep; /* the cell whose flags the preprocessor ran with */
	const char *platform; /* a cross torch's platform (torch_info.platform); NULL: the host's */
	bool pch_shared; /* the PCH is of torch/all.h, one per flag set; else of torch/extension.h,
	                  * one per cell */
	struct binding_decision *srcs; /* parallel to the extension's files */
};

struct torch_plan {
	bool kernels_use_torch;
	const char *kernels_why; /* "csrc/a.cu includes ATen/ATen.h", "uses-torch = on" */
	bool kernels_pyfree;     /* a kernel includes Python's headers, proven not to use them:
	                          * the kernels are compiled with the stand-ins first */
	const char *standins;    /* the Python-free proof's stand-in include dir (build-dir
	                          * relative), or NULL when no proof ran */
	struct torch_plan_ext *exts;
	size_t n_exts;
	struct scan_ctx scan;
	const char *cxx;             /* the host C++ compiler the graph's binding compiles run */
	const char *bwrap, *cuwheel; /* where .cu sources with device line info compile at fixed
	                              * paths (torchplan_cu_proj): bubblewrap, and the binary
	                              * whose `internal canon` runs them; else NULL */
	bool tentative; /* a source or kernel proven by the expansion alone: its compile in
	                 * the build decides (torchplan_make's defer) */
};

/* Decides for the selected, buildable cells of plan. proofs: what the Python-free proof does
 * with a compile the cache cannot answer: runs it (PROOF_RUN); leaves it to the build, whose
 * compile of that source is the same (PROOF_DEFER: such a decision is tentative, and a build
 * whose compile failed takes the decisions again with PROOF_RUN); or, after a build whose
 * every step passed, writes the answer "passed" into the cache (PROOF_RECORD: the same
 * decisions again, from the cache, running nothing); or takes the kernels' decisions alone,
 * from the cache and, where it has no answer, from the kernels' text (PROOF_GUESS: no scan
 * runs, the stand-ins' probe does; torch/kernel_guess.h). build_dir is absolute; the scan cache
 * and the torch links go there. cxx/cc: the host compilers the graph uses. The scans the
 * decisions need run first on up to workers threads, each one once (torchscan_prefill); the
 * decisions are the same for any workers. bwrap, cuwheel: as build_opts names them (a torch
 * extension's .cu sources with device line info then compile at fixed paths, the proof's
 * compile of one too), or NULL. False + diagnostic when a preprocessor run fails or refuses
 * PCH where pch = "on". */
bool torchplan_make(struct arena *a, struct diag *d, const struct plan *plan, const char *build_dir,
                    const char *cxx, const char *cc, int workers, enum proof_mode proofs,
                    const char *bwrap, const char *cuwheel, struct torch_plan *out);
/* Returns the decisions for extension ext of cell c (its torch version and platform), or NULL. */
const struct torch_plan_ext *torchplan_find(const struct torch_plan *tp, size_t ext,
                                            const struct cell *c);
/* Returns the decisions for extension ext, not of kind torch, in cell c's toolkit, or NULL: an
 * extension of one source that is no .cu (its binding) is not asked, and one whose sources all
 * include Python's headers keeps none. Sources it says hold no Python header (a .cu, or a
 * .c/.cpp kernel among the extension's sources) are compiled once per (toolkit, flags) for
 * every Python (plainflags.h); a .cu that holds one is compiled per Python by nvcc. */
const struct torch_plan_ext *torchplan_find_plain(const struct torch_plan *tp, size_t ext,
                                                  const struct cell *c);
/* The C++ compiler of toolkit tkp's torch sources: a cross toolkit's own (the target's g++),
 * else cxx (the build's). */
const char *torchplan_cxx(const struct toolkit_plan *tkp, const char *cxx);
/* Which compile of a torch-kind binding source the flags are for. */
enum bind_mode {
	BIND_CELL,     /* per Python (torch through link, as in every mode) */
	BIND_CELL_PCH, /* per Python with the shared PCH forced first: torch through link */
	BIND_PCH,      /* the PCH of torch/all.h: BIND_CELL_PCH less the Python include dir, so
	                * every Python of one flag set (-fwrapv or -fno-strict-overflow) shares it */
	BIND_SHARED,   /* once per (toolkit, torch, flags) for every Python: torch through link,
	                * no Python include dir, the stricter -fno-strict-overflow */
};

/* Appends the compile flags of one source of extension x in cell c (no compiler, no -c/-o);
 * link names torch's package independently of the venv (tf's -I dirs mapped to it). */
void torchplan_binding_flags(struct arena *a, const struct config *cfg,
                             const struct extension_cfg *x, const struct cell *c,
                             const struct toolkit *tk, const struct torch_flags *tf,
                             const char *proj, const char *link, enum bind_mode mode,
                             struct strv *out);
/* Appends the nvcc flags of one .cu source of extension x in cell c (mode BIND_CELL or
 * BIND_SHARED), less cuwheel's own (-O3, -Xcompiler=..., toolkit and arch flags), in
 * BuildExtension's order: the extension's defines and include dirs, torch's include
 * dirs, the Python include dir (BIND_CELL), COMMON_NVCC_FLAGS, the extension's nvcc-flags or
 * else the kernels' (the project's nvcc flags), then the defines torch appends and -std=c++17. proj
 * names the project (relative to the build dir, or absolute where device line info is asked for).
 */
void torchplan_cu_flags(struct arena *a, const struct config *cfg, const struct extension_cfg *x,
                        const struct cell *c, const struct torch_flags *tf, const char *proj,
                        const char *link, enum bind_mode mode, struct strv *out);
/* True when the kernels' nvcc flags ask for device line info or device debug info: then .cu
 * commands name the project by its absolute path (cicc records absolute paths anyway). */
bool torchplan_line_info(const struct kernels_cfg *k);
/* torchplan_line_info for extension x's own .cu sources (their nvcc flags). */
bool torchplan_ext_line_info(const struct config *cfg, const struct extension_cfg *x);
/* The project as the compiles of extension x's .cu sources name it: rel (relative to the build
 * dir) without device line info; with it, SANDBOX_CANON_PROJECT where bwrap is given (they
 * then run through `cuwheel internal canon`), else the project's own
 * absolute path. */
const char *torchplan_cu_proj(const struct config *cfg, const struct extension_cfg *x,
                              const char *bwrap, const char *rel);
/* The flags of a source of extension x compiled once for every Python of cell c's (toolkit,
 * torch) (BIND_SHARED; torchplan_cu_flags for a .cu, else torchplan_binding_flags), with the
 * stand-in include dir first when standins is not NULL (proven Python-free). The proof of
 * such a source and its shared compile both take these. */
void torchplan_shared_flags(struct arena *a, const struct config *cfg,
                            const struct extension_cfg *x, const struct cell *c,
                            const struct toolkit *tk, const struct torch_flags *tf,
                            const char *proj, const char *link, const char *standins, bool cu,
                            struct strv *out);
/* The whole compile command of a torch extension source but -MD/-MF/-c/-o, from flags (one of
 * the above): for a .cu, nvcc, cuwheel's own flags (-O3, -Xcompiler=-fPIC and visibility, the
 * prefix map of proj, toolchain_nvcc_args for name with a thread per arch (at most 16),
 * toolkit tkp's arch flags),
 * then flags; else cxx then flags. The graph's compile and the Python-free proof's compile
 * are this one command, so the proof's object is the build's. */
void torchplan_compile_argv(struct arena *a, const struct toolkit_plan *tkp, const char *cxx,
                            const char *proj, const char *name, bool cu, const struct strv *flags,
                            struct strv *out);
/* The digest that names the directory of what is shared by the Pythons of one (toolkit, torch,
 * flags): toolkit tkp's version, cxx and flags. */
char *torchplan_shared_key(struct arena *a, const struct toolkit_plan *tkp, const char *cxx,
                           const struct strv *flags);
/* The object a shared compile of source name (a .cu when cu) of extension module with flags
 * (torchplan_shared_flags) writes, relative to the build dir:
 * shared/cu<XY>-<digest of the toolkit, cxx and flags>/obj/<module>/<name>.o, a .cu's in a
 * directory of its own (<name>/<basename>.o). */
const char *torchplan_shared_obj(struct arena *a, const struct toolkit_plan *tkp, const char *cxx,
                                 const char *module, const char *name, bool cu,
                                 const struct strv *flags);
/* Copies flags replacing each -I<dir> under ti's torch package by the same dir under link. */
void torchplan_relink(struct arena *a, const struct strv *flags, const struct torch_info *ti,
                      const char *link, struct strv *out);

#endif
