/* discover_project.h: discovery as a project's config asks for it: the config's environment,
 * its explicit toolkits and Pythons, where its probes are cached and whether they import torch. */
#ifndef CUWHEEL_MATRIX_DISCOVER_PROJECT_H
#define CUWHEEL_MATRIX_DISCOVER_PROJECT_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/diag.h"
#include "matrix/config.h"
#include "toolchain/discover.h"

/* Finds toolkits and interpreters as the config and its environment say (cfg->env;
 * toolchain/discover.h names the variables), importing torch in the probes when the config
 * needs it; probes are cached in cache_dir (may be NULL: no cache). Never fails for a missing
 * tool: it is recorded in looked. Returns false only for errors that make discovery
 * meaningless (unwritable cache dir). */
bool discover(struct arena *a, struct diag *d, const struct config *cfg, const char *cache_dir,
              struct discovery *out);
/* discover() with options (NULL: defaults; o->probe_torch imports torch even when the config
 * does not need it). Same contract. */
bool discover_with(struct arena *a, struct diag *d, const struct config *cfg, const char *cache_dir,
                   const struct discover_opts *o, struct discovery *out);
/* Returns where a project's probes are cached: <build_dir>/probes (build/cuwheel/probes by
 * default) when the config has a build dir, else <cuwheel_cache_dir(cfg->env)>/probes. */
const char *discover_cache_dir(struct arena *a, const struct config *cfg);

#endif
