/* provision_cmd.h: what `cuwheel toolkit` and `cuwheel python` share: the subcommands install,
 * list and remove with their options, the lock file's lookup, install and remove themselves,
 * an install's report and the packages as JSON. */
#ifndef CUWHEEL_CLI_PROVISION_CMD_H
#define CUWHEEL_CLI_PROVISION_CMD_H

#include <jansson.h>
#include <stdbool.h>

#include "cli/cli.h"
#include "toolchain/provision.h"

enum prov_option { PROV_WHEELS, PROV_PYTHON, PROV_LOCK, PROV_JSON, PROV_AVAILABLE };

struct prov_opts {
	const char *wheels, *python, *lock;
	bool json, available;
	const char **args; /* the operands */
	int n_args;
};

struct prov_cmd {
	const char *name; /* "toolkit", "python" */
	const char *what; /* what install reports: "CUDA", "Python" */
	const struct cli_option *install_options, *list_options, *remove_options;
	int (*list)(struct cli *c, const struct prov_cmd *pc, const struct prov_opts *o);
	/* The lock file: --lock, else lock_path's; when there is none the error names lock_noun
	 * ("toolkit") and the hint lock_env and lock_file, the source tree's. */
	const char *lock_noun, *lock_env, *lock_file;
	const char *(*lock_path)(struct arena *a, const char *const *env);
	/* Loads the lock at path into a new value in a; NULL + diagnostic. */
	const void *(*lock_load)(struct arena *a, struct diag *d, const char *path);
	/* The set of lock that VERSION names; NULL + diagnostic. */
	const struct provision_set *(*resolve)(struct arena *a, struct diag *d, const void *lock,
	                                       const char *version);
	/* Installs a resolved set; *root gets its root. PROVISION_FAILED + diagnostic. */
	enum provision_result (*install_set)(struct arena *a, struct diag *d,
	                                     const struct provision_opts *o,
	                                     const struct provision_set *s, const char **root);
	const char *wheels_env; /* the variable that stands for --wheels; NULL: none */
	/* Removes an installed version; false + diagnostic. */
	bool (*remove)(struct arena *a, struct diag *d, const char *cache_dir, const char *version,
	               const char **removed);
	const char *install_example, *remove_example; /* VERSIONs for usage: "13.1", "13.1.80" */
};

/* Runs `cuwheel NAME SUB ARGS...` (argv[0] is NAME): checks SUB, parses its options and runs
 * it; returns the exit status (CLI_USAGE for a bad command or option). */
int prov_main(struct cli *c, const struct prov_cmd *pc, int argc, char **argv);
/* The lock pc->lock_load read from --lock or the default file; NULL + diagnostic. */
const void *prov_lock(struct cli *c, const struct prov_cmd *pc, const struct prov_opts *o);
/* The bytes to download for s (its packages' sizes). */
int64_t prov_set_size(const struct provision_set *s);
/* s as `list --available --json` shows it: version, minor, source, download_size, packages. */
json_t *prov_set_json(const struct provision_set *s, const char *source);
/* The packages as a JSON array of {name, version, filename, sha256, size}. */
json_t *prov_pkgs_json(const struct provision_pkg *p, size_t n);
/* Prints j indented, in its order, and frees it. */
void prov_print_json(json_t *j);

#endif
