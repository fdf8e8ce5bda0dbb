/* cli.h: what every subcommand receives, and the helpers they share. Only cli/ prints to the
 * terminal and decides exit codes. */
#ifndef CUWHEEL_CLI_CLI_H
#define CUWHEEL_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "base/arena.h"
#include "base/diag.h"
#include "cli/options.h"

enum cli_exit {
	CLI_OK = 0,
	CLI_FAIL = 1,
	CLI_USAGE = 2,
	CLI_NOTHING = 3, /* nothing selected */
};

/* What a command has loaded for it (git's RUN_SETUP): the command table's needs column. The
 * options that say which project (-C, --config, the SDIST, --setup-env, --only) are the
 * command's own, so the command parses them and calls cli_setup (plan_common.h), which loads
 * what its row says, once. */
enum cli_needs {
	CLI_NEEDS_NOTHING, /* no project: wheels, toolkits, Pythons, a plan file */
	CLI_NEEDS_CONFIG,  /* the project's config (pyproject.toml, --config, setup.py's capture) */
	CLI_NEEDS_PLAN,    /* the config, the toolkits and Pythons found, the matrix expanded */
};

struct plan_ctx;

struct cli {
	struct arena arena;
	struct diag diag;
	const char *project_dir; /* -C DIR, default "." */
	bool color;              /* stderr is a terminal and NO_COLOR is unset */
	const char *const *env;  /* environ */
	const char *config_file; /* --config FILE: the manifest beside the project, or NULL */
	const char *sdist;       /* build/plan SDIST.tar.gz: the project to unpack, or NULL */
	struct strv setup_env;   /* --setup-env K=V: setup.py's switches when it is captured */
	bool unsandboxed;        /* --unsandboxed: the capture runs setup.py without the sandbox */
	enum cli_needs needs;    /* the running command's row of the command table */
	struct plan_ctx *setup;  /* what cli_setup loaded for it, or NULL */
};

typedef int cli_cmd_fn(struct cli *c, int argc, char **argv);

/* name, what it needs loaded, one-line summary. Long help lives beside each function as
 * cmd_X_help, its option sections generated from the same tables that parse the command's
 * arguments. */
#define CLI_COMMANDS(X)                                                                            \
	X(plan, PLAN,                                                                              \
	  "Expand the build matrix and show every cell, its wheel and whether it can build")       \
	X(build, PLAN,                                                                             \
	  "Build the matrix: kernels once per toolkit, a binding per Python, the wheels")          \
	X(init, NOTHING,                                                                           \
	  "Write a [tool.cuwheel] config read from the project's setup.py, to review")             \
	X(doctor, NOTHING,                                                                         \
	  "Show the CUDA toolkits and Pythons found on this machine, and where we looked")         \
	X(pack, NOTHING, "Write a wheel from a staged tree and the project's metadata")            \
	X(retag, NOTHING,                                                                          \
	  "Change a wheel's local version or tags without recompressing its payload")              \
	X(audit, NOTHING,                                                                          \
	  "Check wheels: ELF dependencies, symbol versions, CUDA policy, zip and RECORD")          \
	X(test, CONFIG,                                                                            \
	  "Install each wheel into a fresh venv of its Python and run the project's tests")        \
	X(index, NOTHING,                                                                          \
	  "Write a PEP 503/691 simple index (one per local variant) for a dist directory")         \
	X(toolkit, NOTHING, "Install, list or remove CUDA toolkits provisioned from PyPI")         \
	X(python, NOTHING,                                                                         \
	  "Install, list or remove CPython 3.14/3.15 provisioned from Debian's packages")          \
	X(cross, NOTHING, "Install, list or remove what building linux_aarch64 wheels here needs") \
	X(ci, CONFIG, "Write a CI workflow (GitHub Actions) that spreads the matrix over runners") \
	X(report, CONFIG,                                                                          \
	  "Write the HTML/JSON/trace report of the last build (grid, timeline, audit)")            \
	X(internal, NOTHING, "Developer tools: toml-decode, render-ninja")

#define X(name, needs, summary)                                                                    \
	int cmd_##name(struct cli *c, int argc, char **argv);                                      \
	extern const struct cli_help cmd_##name##_help;
CLI_COMMANDS(X)
#undef X

/* The --library option of audit, index and retag: one spelling, one help text, one check
 * (cli_library_add). */
#define CLI_LIBRARY_OPTION(option_id)                                                              \
	{                                                                                          \
		"library", 0, "MODULE", (option_id),                                               \
		    "MODULE (dotted: pkg._ops) is a shared library its package loads by\n"         \
		    "path (torch.ops.load_library, ctypes), not imported: no PyInit_ is\n"         \
		    "asked of it, every other check stays (repeatable; the config's\n"             \
		    "loaded-by = \"path\")"                                                        \
	}
/* The paragraph of index's and retag's help on the libraries loaded by path. */
#define CLI_LIBRARIES_HELP                                                                         \
	"A shared library its package loads by path (torch.ops.load_library, ctypes) exports no\n" \
	"PyInit_, which the audit asks of every extension module: --library names one, for "       \
	"every\n"                                                                                  \
	"wheel. In a project with a config (-C DIR's pyproject.toml with [tool.cuwheel], or\n"     \
	"--config FILE; setup.py is never run for it), the modules of its extensions with\n"       \
	"loaded-by = \"path\" are read too, for that project's wheels alone (a note says "         \
	"which).\n"
/* Adds module, the value of cmd's --library, to *libraries; a usage error (false) when it is
 * no dotted Python module name. */
bool cli_library_add(struct cli *c, const char *cmd, const char *module, struct strv *libraries);
struct audit_libraries;
/* For index and retag, which read no project unless there is a config: when --config names
 * one or -C DIR's pyproject.toml has [tool.cuwheel] (setup.py is never run for it), sets
 * out->project and out->own to its project and its loaded-by = "path" modules, and says so
 * in a note. A config that cannot be loaded is reported as warnings and left out. */
void cli_libraries_from_config(struct cli *c, struct audit_libraries *out);
/* The diagnostic printer installed on c->diag (cuwheel: file:line:col: error: msg + caret). */
void cli_print_diag(void *user, const struct diag_msg *m);
struct audit_result;
/* Reports r's errors and warnings (not its notes) through c's diagnostic sink, each located at
 * the wheel and member. */
void cli_report_findings(struct cli *c, const struct audit_result *r);
/* A sink for a step whose failure the command survives: what it reports reaches c's sink, its
 * errors told as warnings. */
struct diag cli_diag_as_warnings(struct cli *c);
/* Reports a usage error for command cmd and returns CLI_USAGE. */
int cli_usage(struct cli *c, const char *cmd, const char *fmt, ...) CW_PRINTF(3, 4);
/* True when arg names a source distribution (ends in .tar.gz or .tgz). */
bool cli_is_sdist(const char *arg);
/* Parses a positive integer option value; reports a usage error and returns false otherwise. */
bool cli_parse_int(struct cli *c, const char *cmd, const char *opt, const char *val, int *out);

#endif
