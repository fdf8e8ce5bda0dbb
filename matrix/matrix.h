/* matrix.h: the build matrix expanded into cells, each with its identifier, wheel name and
 * whether this machine can build it (and if not, why). */
#ifndef CUWHEEL_MATRIX_MATRIX_H
#define CUWHEEL_MATRIX_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "matrix/config.h"
#include "toolchain/discover.h"

/* An architecture the config asked for that a toolkit cannot build, and why. */
struct arch_drop {
	struct arch arch;
	const char *why;
};

/* The kernels of one toolkit: compiled once, shared by every cell that names this toolkit. */
struct toolkit_plan {
	const char *cuda;             /* "13.0" */
	const char *platform;         /* a cross toolkit's platform ("linux_aarch64"), else NULL */
	const char *cross_missing;    /* a cross toolkit's part not installed ("gcc"), else NULL */
	bool provisionable;           /* not here, but cuwheel can provision it */
	const char *provision_source; /* then from where: "PyPI", "Debian bookworm" */
	const struct toolkit *tk;     /* NULL when not on this machine */
	struct arch *archs;           /* the config's list filtered to what tk supports */
	size_t n_archs;
	struct arch_drop *dropped;
	size_t n_dropped;
	bool used; /* some selected, buildable cell needs it */
};

struct cell {
	const char *id; /* cp312-cu130-linux_x86_64, cp310-abi3-cu130-..., cp312-pt26-cu124-... */
	const char *python;   /* "3.12", "3.13t"; abi3: the minimum, "3.10" */
	const char *cuda;     /* "13.0" */
	const char *torch;    /* NULL or "2.6" */
	const char *platform; /* "linux_x86_64" */
	bool abi3;
	bool torch_stable; /* built against torch's stable ABI with the oldest torch of the axis
	                    * (torch), for it and every later torch: tested with each */
	const char *py_tag, *abi_tag;
	const char *local;       /* "cu130"; NULL for no label */
	const char *version;     /* project version with the local label */
	const char *wheel;       /* file name before the audit stamps the platform tag */
	size_t toolkit;          /* index into plan.toolkits */
	const struct interp *py; /* the interpreter that builds it (abi3: the oldest suitable) */
	bool buildable;
	const char *why_not;       /* when !buildable */
	bool selected;             /* after build/skip/--only */
	const char *unselected_by; /* "skip = cp310-*", "--only cp312-cu130-linux_x86_64" */
	/* Torch cells: why this (torch, CUDA) pair is not one to build (torch 2.6 from PyPI is
	 * built for CUDA 12.4: its cell with CUDA 13.0 is not paired), else NULL. Such a cell is
	 * not selected, with this as unselected_by. */
	const char *unpaired;
};

struct plan {
	const struct config *cfg;
	const struct discovery *ds;
	const char *host_platform;
	struct cell *cells;
	size_t n_cells;
	struct toolkit_plan *toolkits;
	size_t n_toolkits;
	size_t n_selected, n_buildable; /* buildable counts only selected cells */
	struct strv pythons;            /* the python axis (the config's, or the default) */
	bool only_unmatched;            /* an --only pattern named no cell (a usage error) */
	bool wheel_clash;               /* two cells would write the same wheel (a config error) */
};

struct matrix_opts {
	struct strv only; /* --only IDs (exact identifiers or globs) */
	struct strv
	    provisionable; /* CUDA minors `cuwheel toolkit install` can provision ("13.2") */
	struct strv provision_sources; /* where each comes from ("PyPI"), index for index */
	/* Python minors `cuwheel python install` can provision ("3.14"), and from where ("Debian
	 * sid"); why it has no free-threaded build (NULL: none is provisionable either). */
	struct strv python_provisionable;
	const char *python_source;
	const char *python_no_freethreaded;
	/* The platforms this machine can cross-build for, with what the cross lock pins
	 * (provision_cross.h); NULL when there is no lock. */
	const struct cross_lock *cross;
};

/* Expands the matrix of cfg against what ds found. False (with a message) for errors found at
 * this stage: an --only that names no cell (only_unmatched), two cells with one wheel name
 * (wheel_clash), no cuda axis and no toolkit. */
bool matrix_expand(struct arena *a, struct diag *d, const struct config *cfg,
                   const struct discovery *ds, const struct matrix_opts *o, struct plan *out);
/* Fills the local-version template for a cell ("cu{cuda_nodot}" -> "cu130"). */
char *matrix_local_label(struct arena *a, const char *tmpl, const char *python, const char *cuda,
                         const char *torch);

#endif
