/* provision_cmd.h: what `cuwheel toolkit` and `cuwheel python` share: the subcommands install,
 * list and remove with their options, remove itself, an install's report and the packages as
 * JSON. */
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
	const struct cli_option *install_options, *list_options, *remove_options;
	int (*install)(struct cli *c, const struct prov_opts *o);
	int (*list)(struct cli *c, const struct prov_opts *o);
	/* Removes an installed version; false + diagnostic. */
	bool (*remove)(struct arena *a, struct diag *d, const char *cache_dir, const char *version,
	               const char **removed);
	const char *remove_example; /* a VERSION for the usage message: "13.1.80" */
};

/* Runs `cuwheel NAME SUB ARGS...` (argv[0] is NAME): checks SUB, parses its options and runs
 * it; returns the exit status (CLI_USAGE for a bad command or option). */
int prov_main(struct cli *c, const struct prov_cmd *pc, int argc, char **argv);
/* Prints one install's outcome ("installed CUDA 13.1.80 in ROOT", escaped, in a); false when
 * it failed. */
bool prov_report_install(struct arena *a, enum provision_result r, const char *what,
                         const char *version, const char *root);
/* The packages as a JSON array of {name, version, filename, sha256, size}. */
json_t *prov_pkgs_json(const struct provision_pkg *p, size_t n);
/* Prints j indented, in its order, and frees it. */
void prov_print_json(json_t *j);

#endif
