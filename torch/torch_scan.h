/* torch_scan.h: what the preprocessor says a source includes under its real compiler and flags:
 * whether the kernels include torch headers (nvcc's own defines, so `#ifndef __CUDACC__` guards
 * count), whether a torch binding source needs Python at all, and whether forcing a precompiled
 * header (torch/extension.h, or torch/all.h: the same less torch/python.h, so no Python header)
 * in front of it keeps its meaning. Answers are cached in the build dir. */
#ifndef CUWHEEL_TORCH_TORCH_SCAN_H
#define CUWHEEL_TORCH_TORCH_SCAN_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/diag.h"
#include "toolchain/discover.h"

struct scan_batch;

/* What the Python-free proof does with a compile the scan cache cannot answer. */
enum proof_mode {
	PROOF_RUN,    /* runs it (plan; a build's decisions again after a failed compile) */
	PROOF_DEFER,  /* leaves it to the build's own compile of the source: the decision is
	               * tentative */
	PROOF_RECORD, /* the build's compile of it succeeded (ninja ran every step): answered
	               * so, in the cache, with no object kept; no -E runs (one the cache cannot
	               * answer is pending, and the proof behind it not recorded), a -M does */
	PROOF_GUESS,  /* nothing runs but the stand-ins' probe: what the cache cannot answer is
	               * pending (a proof taken as passed), and a kernel's -M is guessed from its
	               * text (torch/kernel_guess.h): the kernels' commands before the scans end
	               * (`cuwheel build`'s early compiles) */
};

struct filetab;

struct scan_ctx {
	struct arena *a;
	struct diag *d;
	const char *build_dir; /* absolute; commands run here, the cache is build_dir/scan */
	const char *proj;      /* the project dir relative to build_dir (as build.ninja names it) */
	const char *canon_project;      /* the project's absolute path where a compile may see it at
	                                 * SANDBOX_CANON_PROJECT (`cuwheel internal canon`): such
	                                 * paths are read here below it; else NULL */
	struct scan_batch *batch;       /* set in torchscan_prefill's passes: what the cache cannot
	                                 * answer is queued, not run */
	enum proof_mode proofs;         /* the proof's compile where the cache cannot answer it */
	struct strv failed, failed_why; /* preprocessor runs the prefill made that failed (a
	                                 * failure is not cached): cache files and outputs */
	size_t ran;                     /* runs made outside a prefill pass, one at a time */
	struct filetab *mtimes;         /* the mtime of each file a cached answer names, statted
	                                 * once per run (torchscan_mtimes), or NULL */
};

/* A table for scan_ctx.mtimes, in arena a: answers share most headers (torch's 5,700), each
 * statted once per plan instead of once per answer. */
struct filetab *torchscan_mtimes(struct arena *a);

/* One preprocessor run: its include closure and, for -E runs, a digest of what each file
 * expanded to (parallel to files). */
struct scan_closure {
	bool ok;
	const char *error;     /* the compiler's output when !ok */
	bool cached;           /* answered from build_dir/scan */
	bool pending;          /* a prefill pass: not in the cache yet, queued (ok, no files) */
	const char *obj;       /* a compile that keeps its object (ok): it, build-dir relative */
	bool deferred;         /* a compile left to the build (PROOF_DEFER): not run, ok */
	bool built;            /* a compile the build ran (PROOF_RECORD): ok, no object kept */
	struct strv files;     /* every file entered, as the compiler named it */
	struct strv digests;   /* -E only: per file, its expanded lines' digest */
	struct strv pydigests; /* -E without Python: per file, the digest of its lines written
	                        * while a Python header was open (left out of digests) */
};

enum pch_state {
	PCH_NONE,     /* not a torch/extension.h source, or the extension does not use PCH */
	PCH_USE,      /* the precompiled header is forced first */
	PCH_EXCLUDED, /* named by pch-exclude */
	PCH_REFUSED,  /* the preprocessor says forcing it first changes the meaning */
};

/* Whether a source that includes Python's headers was proven not to use them. */
enum pyfree_state {
	PYFREE_NONE,    /* not asked: no Python header in it, a .c source, or not a candidate */
	PYFREE_PROVEN,  /* both checks hold: compiled once, Python-free, for every Python */
	PYFREE_OFF,     /* python-free = "off" */
	PYFREE_EXPAND,  /* a file outside Python's headers expands to other text without them */
	PYFREE_COMPILE, /* without Python's headers it does not compile (or preprocess) */
	PYFREE_MODULE,  /* its text defines the module (module_guess): decided without the proof */
};

/* The decision for one source of a torch-kind extension. */
struct binding_decision {
	bool python;            /* its closure has Python.h or pybind11: compiled per Python */
	const char *python_via; /* the first such header, for the plan */
	bool torch_ext;         /* its closure has torch/extension.h */
	enum pch_state pch;
	const char *pch_why; /* PCH_REFUSED: which file expands differently */
	enum pyfree_state pyfree;
	const char *pyfree_why; /* PYFREE_EXPAND, PYFREE_COMPILE: the check and its first line;
	                         * PYFREE_MODULE: where the module is defined */
	const char *obj;        /* PYFREE_PROVEN by the build's own compile: the object it kept
	                         * (build-dir relative, in the scan cache), else NULL */
	const char *obj_for;    /* the shared object obj is (torchplan_shared_obj) */
	bool tentative;         /* PYFREE_PROVEN by the expansion alone, the compile left to the
	                         * build's own (PROOF_DEFER): a failure there re-decides */
};

/* Makes build_dir/torch/<version>-<abi digest> a link to the torch package of ti and returns
 * that path relative to the build dir: kernel and shared-object commands name torch's headers
 * through it, so they do not change with the venv that provided that torch. NULL +
 * diagnostic on failure. */
const char *torchscan_link(struct scan_ctx *s, const struct torch_info *ti);
/* Returns ti's include dirs as seen through link (those under the torch package; others as
 * they are). */
void torchscan_link_includes(struct scan_ctx *s, const struct torch_info *ti, const char *link,
                             struct strv *out);
/* Decides whether one kernel source includes a torch header: argv is its compiler with the
 * real flags (torch's include dirs among them when a torch is at hand). *uses and *which (the
 * header, for messages) are set, and *python to the first Python header it includes (else
 * NULL: then the answer is only that); false + diagnostic when the preprocessor fails
 * otherwise. */
bool torchscan_kernel(struct scan_ctx *s, const struct strv *argv, const char *src,
                      const struct strv *torch_dirs, bool *uses, const char **which,
                      const char **python);
/* Reports a kernel source that includes Python's headers (header) and was not proven
 * Python-free (why: the failed check, or NULL when no proof could run). */
void torchscan_kernel_python(struct scan_ctx *s, const char *src, const char *header,
                             const char *why);
/* Decides for one torch-kind binding source compiled by argv (the real flags, no output
 * options): per Python or shared, and, when pch_header is not NULL ("torch/all.h",
 * "torch/extension.h") and the source is per Python and includes torch/extension.h, whether
 * that header may be forced first. False + diagnostic when the preprocessor fails on it. */
bool torchscan_binding(struct scan_ctx *s, const struct strv *argv, const char *src,
                       const char *pch_header, struct binding_decision *out);
/* Writes the stand-in include dir of the Python-free proof into the build dir: torch/extension.h
 * narrowed to torch/all.h, and torch/python.h, Python.h and every pybind11 header that an
 * include dir of argv holds, empty. Returns it relative to the build dir ("pyfree/include"),
 * to be placed first; NULL + diagnostic when it cannot be written. */
const char *torchscan_standins(struct scan_ctx *s, const struct strv *argv);
/* The Python-free proof of src, which includes Python's headers: with (the real compile
 * flags) and without (the shared flags, no Python include dir, the stand-ins first) must
 * expand every file outside Python's headers to the same text, and compile must succeed:
 * with object, compile is the build's own compile of the shared object (less -MD/-MF/-c/-o),
 * whose object is kept in the cache (out->obj) for the graph to use; else without's flags
 * plus -fsyntax-only, or nvcc's -cuda. With PROOF_DEFER a compile the cache cannot answer is
 * not run: the expansion alone proves it, out->tentative (the build's own compile decides);
 * with PROOF_RECORD it is answered as passed, in the cache (the build's compile passed), and a
 * later plan or build reads that answer: no object (out->obj NULL), the graph compiles the
 * source as the build did. csrc: src as compile names it (src, or its path below
 * SANDBOX_CANON_PROJECT when compile runs through `cuwheel internal canon`: s->canon_project
 * set). Sets out->pyfree (and, proven, out->python = false) and pyfree_why;
 * every answer is cached like the scan. False + diagnostic only when a command cannot run or the
 * cache cannot be written. */
bool torchscan_pyfree(struct scan_ctx *s, const struct strv *with, const struct strv *without,
                      const struct strv *compile, bool object, const char *src, const char *csrc,
                      struct binding_decision *out);
/* Fills the scan cache on up to workers threads before the decisions are taken: pass(ctx, s)
 * takes every decision with s (its own arena, a diagnostic sink that only counts, and
 * s->batch set), so that each scan the cache cannot answer is queued, answered "pending",
 * instead of run; the queue then runs, every answer written to the cache, and the pass repeats
 * until it queues nothing new (a scan that waits on another's answer is queued the pass after
 * it). The caller then takes the decisions as ever, from the cache: the prefill changes no
 * answer and reports nothing, a scan that failed to run is run again and reported then. A
 * preprocessor run that failed (not cached) is kept in s->failed for the passes after it and
 * the decisions. workers <= 1: nothing is done. */
void torchscan_prefill(struct scan_ctx *s, size_t workers,
                       void (*pass)(void *ctx, struct scan_ctx *s), void *ctx);
/* Returns the name of a pyfree_state for plan ("proven", "off", ...). */
const char *pyfree_state_name(enum pyfree_state p);
/* Returns the name of a pch_state for plan ("yes", "excluded", ...). */
const char *pch_state_name(enum pch_state p);

#endif
