/* init.h: the setup.py capture as `cuwheel init` and an on-the-fly build use it. */
#ifndef CUWHEEL_CLI_INIT_H
#define CUWHEEL_CLI_INIT_H

#include <stdbool.h>

#include "cli/cli.h"
#include "init/capture.h"

struct capture_request {
	const char *tree;          /* the project (a checkout, or an unpacked sdist) */
	const char *sdist;         /* the sdist it came from, as given, or NULL */
	const char *build_dir;     /* probes, the scan cache and the capture's temp dir */
	const char *const *setenv; /* --setup-env K=V, NULL-terminated, or NULL */
	int timeout_s;             /* 0: the default */
	const char *build_dir_key; /* written into the config as build-dir (or NULL) */
	const char *dist_dir_key;  /* and dist-dir */
	const char *header;        /* the config's first comment */
	/* The python and cuda axes of a torch extension from ci/torch_builds.def's row of the torch
	 * setup.py ran with (its Pythons, the CUDA of PyPI's build), not from this machine. */
	bool table_axes;
};

struct capture_result {
	struct capture cap;
	char *text;         /* the config */
	const char *python; /* the interpreter that ran setup.py */
	const char *mode;   /* "in a bubblewrap sandbox" or "without a sandbox" */
	bool tried;         /* setup.py was started: a failure after it is setup.py's or later */
	bool ran;           /* setup.py ran to setup(): a failure after it is the config's */
};

/* The build dir of a project without config: $CUWHEEL_BUILD_DIR, else build/cuwheel in the
 * directory cuwheel runs in (-C DIR); absolute. */
const char *cli_default_build_dir(struct cli *c);
/* Captures q->tree's setup.py and derives its config into res; false after diagnostics. */
/* The tree setup.py runs in: the sdist unpacked under q->build_dir/sdist, or the project
 * directory; sets q->tree (and q->sdist); false after diagnostics. */
bool cli_capture_tree(struct cli *c, struct capture_request *q);
bool cli_capture_config(struct cli *c, const struct capture_request *q, struct capture_result *res);
/* True when the command has no --config and the project has no [tool.cuwheel] (an sdist, or a
 * directory whose pyproject.toml lacks it, with a setup.py). */
bool cli_needs_capture(struct cli *c);
/* True when the command has a config that needs no capture: --config, or a pyproject.toml
 * in -C DIR with a [tool.cuwheel] table (more than setup-env); one that cannot be read is
 * reported on d. */
bool cli_has_config(struct cli *c, struct diag *d);
/* For build/plan without config: unpacks the sdist (if any), captures, writes the config into
 * <build dir>/init/cuwheel.toml and says so in one line; *tree and *config are then what
 * config_load_with takes. False after diagnostics. */
bool cli_capture_on_the_fly(struct cli *c, const char **tree, const char **config);

#endif
