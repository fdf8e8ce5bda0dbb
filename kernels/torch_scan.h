/* torch_scan.h: what the preprocessor says a source includes under its real compiler and flags:
 * whether the kernels include torch headers (nvcc's own defines, so `#ifndef __CUDACC__` guards
 * count), whether a torch binding source needs Python at all, and whether forcing a precompiled
 * header (torch/extension.h, or torch/all.h: the same less torch/python.h, so no Python header)
 * in front of it keeps its meaning. Answers are cached in the build dir. */
#ifndef CUWHEEL_KERNELS_TORCH_SCAN_H
#define CUWHEEL_KERNELS_TORCH_SCAN_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/diag.h"
#include "toolchain/discover.h"

struct scan_ctx {
	struct arena *a;
	struct diag *d;
	const char *build_dir; /* absolute; commands run here, the cache is build_dir/scan */
	const char *proj;      /* the project dir relative to build_dir (as build.ninja names it) */
};

/* One preprocessor run: its include closure and, for -E runs, a digest of what each file
 * expanded to (parallel to files). */
struct scan_closure {
	bool ok;
	const char *error;   /* the compiler's output when !ok */
	bool cached;         /* answered from build_dir/scan */
	struct strv files;   /* every file entered, as the compiler named it */
	struct strv digests; /* -E only: per file, its expanded lines' digest */
};

enum pch_state {
	PCH_NONE,     /* not a torch/extension.h source, or the extension does not use PCH */
	PCH_USE,      /* the precompiled header is forced first */
	PCH_EXCLUDED, /* named by pch-exclude */
	PCH_REFUSED,  /* the preprocessor says forcing it first changes the meaning */
};

/* The decision for one source of a torch-kind extension. */
struct binding_decision {
	bool python;            /* its closure has Python.h or pybind11: compiled per Python */
	const char *python_via; /* the first such header, for the plan */
	bool torch_ext;         /* its closure has torch/extension.h */
	enum pch_state pch;
	const char *pch_why; /* PCH_REFUSED: which file expands differently */
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
 * header, for messages) are set; false + diagnostic when the preprocessor fails otherwise. */
bool torchscan_kernel(struct scan_ctx *s, const struct strv *argv, const char *src,
                      const struct strv *torch_dirs, bool *uses, const char **which);
/* Decides for one torch-kind binding source compiled by argv (the real flags, no output
 * options): per Python or shared, and, when pch_header is not NULL ("torch/all.h",
 * "torch/extension.h") and the source is per Python and includes torch/extension.h, whether
 * that header may be forced first. False + diagnostic when the preprocessor fails on it. */
bool torchscan_binding(struct scan_ctx *s, const struct strv *argv, const char *src,
                       const char *pch_header, struct binding_decision *out);
/* Returns the name of a pch_state for plan ("yes", "excluded", ...). */
const char *pch_state_name(enum pch_state p);

#endif
