/* init_config.h: a [tool.cuwheel] config derived from what setup.py said (init/capture.h),
 * each source classified by the preprocessor (kernels once per toolkit, the rest per Python),
 * written as TOML with every value's origin in a comment. */
#ifndef CUWHEEL_INIT_INIT_CONFIG_H
#define CUWHEEL_INIT_INIT_CONFIG_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/diag.h"
#include "init/capture.h"
#include "toolchain/discover.h"

struct init_inputs {
	const struct capture *cap;
	const char *project_dir;   /* absolute: the project the sources are read from */
	const char *build_dir;     /* absolute: the preprocessor's cache goes to scan/ */
	const struct interp *py;   /* the interpreter that ran setup.py (torch's headers) */
	const struct toolkit *tk;  /* nvcc's toolkit (its include dir), or NULL */
	const char *cxx, *cc;      /* the host compilers the scan runs */
	const char *const *setenv; /* the --setup-env switches, NULL-terminated, or NULL */
	struct strv pythons;       /* the python axis to write ("3.12"), may be empty */
	const char *axes_from;     /* where pythons and the cuda came from, when not this machine
	                            * ("PyPI's torch 2.11.0 (ci/torch_builds.def)"); NULL: here */
	bool metadata_elsewhere;   /* PKG-INFO or pyproject.toml's [project] gives the metadata */
	bool has_pkginfo;          /* PKG-INFO (entry points go in a partial [project]) */
	const char *build_dir_key; /* written as build-dir when not NULL (absolute) */
	const char *dist_dir_key;  /* written as dist-dir when not NULL (absolute) */
	const char *header;        /* a first comment line saying how the file was made */
};

/* Classifies the sources and renders the config into *text. False + diagnostic when the
 * preprocessor fails on a source or the extensions cannot share one kernels table. */
bool init_config_write(struct arena *a, struct diag *d, const struct init_inputs *in, char **text);

#endif
