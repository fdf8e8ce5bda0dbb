/* main.c: cuwheel's entry point: global options, the command table, help, exit codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/env.h"
#include "base/os-file.h"
#include "base/os-tmp.h"
#include "cli/cli.h"

extern char **environ;

struct command {
	const char *name;
	cli_cmd_fn *fn;
	enum cli_needs needs;
	const char *summary;
	const struct cli_help *help;
};

static const struct command commands[] = {
#define X(name, needs, summary) {#name, cmd_##name, CLI_NEEDS_##needs, summary, &cmd_##name##_help},
    CLI_COMMANDS(X)
#undef X
};
enum { N_COMMANDS = sizeof(commands) / sizeof(commands[0]) };

enum global_option { GLOBAL_DIR, GLOBAL_CONFIG, GLOBAL_VERSION, GLOBAL_HELP };

static const struct cli_option global_options[] = {
    {NULL, 'C', "DIR", GLOBAL_DIR, "run as if started in DIR (the project holding pyproject.toml)"},
    {"config", 0, "FILE", GLOBAL_CONFIG,
     "read [tool.cuwheel] (and [project]) from FILE instead of the project's\n"
     "pyproject.toml; the metadata then comes from the project's PKG-INFO"},
    {"version", 0, NULL, GLOBAL_VERSION, "print cuwheel's version"},
    {"help", 'h', NULL, GLOBAL_HELP,
     "show this help; 'cuwheel help COMMAND' or 'cuwheel COMMAND --help'"},
    {0},
};

static const struct cli_help main_help = {
    .text = "usage: cuwheel [-C DIR] [--version] [--help] COMMAND [ARGS]\n"
            "\n"
            "Builds the prebuilt-wheel matrix of a Python package with CUDA kernels: every\n"
            "Python x CUDA toolkit (x PyTorch) x platform, with the kernels compiled once per "
            "toolkit.\n",
    .groups = {{NULL, global_options}},
    .more = "Exit status: 0 ok, 1 failure, 2 usage error, 3 nothing selected.\n",
};

static void print_main_help(FILE *f)
{
	fputs(main_help.text, f);
	cli_help_print_options(f, "", &main_help);
	fprintf(f, "\n%s\nCommands:\n", main_help.more);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int unknown_command(struct cli *c, const char *name)
{
	const char *names[N_COMMANDS];
	for (size_t i = 0; i < N_COMMANDS; i++)
		names[i] = commands[i].name;
	const char *close = diag_did_you_mean(name, names, N_COMMANDS);
	diag_msg(&c->diag, DIAG_ERROR, "'%s' is not a cuwheel command", name);
	if (close)
		diag_msg(&c->diag, DIAG_HINT, "did you mean 'cuwheel %s'?", close);
	else
		diag_msg(&c->diag, DIAG_HINT, "see 'cuwheel --help'");
	return CLI_USAGE;
}

static void print_command_help(const struct command *cmd)
{
	static const char *const loads[] = {
	    [CLI_NEEDS_CONFIG] = "the project's config ([tool.cuwheel], --config, or setup.py's "
	                         "capture)",
	    [CLI_NEEDS_PLAN] = "the project's config, the toolkits and Pythons found here, and "
	                       "the matrix expanded"};
	printf("cuwheel %s: %s\n\n%s", cmd->name, cmd->summary, cmd->help->text);
	if (cmd->needs != CLI_NEEDS_NOTHING)
		printf("\nLoads, before it runs: %s.\n", loads[cmd->needs]);
	cli_help_print_options(stdout, cmd->name, cmd->help);
	if (cmd->help->more)
		printf("\n%s", cmd->help->more);
}

/* True when argv asks for help before any "--". */
static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	}
	return false;
}

/* The global options, then the command or the help: every way out returns to main, which frees
 * what was allocated (an early return here once leaked the option parser's arena). */
static int dispatch(struct cli *c, int argc, char **argv)
{
	struct cli_args p;
	cli_args_init(&p, c, NULL, global_options, CLI_ARGS_LAST, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case GLOBAL_DIR:
			c->project_dir = p.value;
			break;
		case GLOBAL_CONFIG:
			c->config_file = p.value;
			break;
		case GLOBAL_VERSION:
			printf("cuwheel %s\n", CUWHEEL_VERSION);
			return CLI_OK;
		case GLOBAL_HELP:
			print_main_help(stdout);
			return CLI_OK;
		default:
			return CLI_USAGE;
		}
	}
	int i = p.next;
	if (i >= argc) {
		print_main_help(stderr);
		return CLI_USAGE;
	}
	if (!os_is_dir(c->project_dir))
		return cli_usage(c, NULL, "-C %s: not a directory", c->project_dir);

	const char *name = argv[i];
	if (strcmp(name, "help") == 0) {
		if (i + 1 >= argc) {
			print_main_help(stdout);
			return CLI_OK;
		}
		const struct command *cmd = find_command(argv[i + 1]);
		if (!cmd)
			return unknown_command(c, argv[i + 1]);
		print_command_help(cmd);
		return CLI_OK;
	}
	const struct command *cmd = find_command(name);
	if (!cmd)
		return unknown_command(c, name);
	int cargc = argc - i;
	char **cargv = argv + i;
	if (wants_help(cargc, cargv)) {
		print_command_help(cmd);
		return CLI_OK;
	}
	c->needs = cmd->needs;
	return cmd->fn(c, cargc, cargv);
}

int main(int argc, char **argv)
{
	os_std_fds_open(); /* first: before anything opens a file */
	struct cli c = {0};
	c.project_dir = ".";
	c.env = (const char *const *)environ;
	c.color = isatty(2) && !env_value(c.env, "NO_COLOR");
	c.diag.emit = cli_print_diag;
	c.diag.user = &c;
	os_install_signal_cleanup();
	int rc = dispatch(&c, argc, argv);
	os_tmp_cleanup();
	arena_free(&c.arena);
	fflush(stdout);
	if (ferror(stdout) && rc == CLI_OK) {
		diag_msg(&c.diag, DIAG_ERROR, "cannot write to standard output");
		rc = CLI_FAIL;
	}
	return rc;
}
