/* options.h: a command's options as a table, the one parser every command uses, and the help
 * text generated from the same table. */
#ifndef CUWHEEL_CLI_OPTIONS_H
#define CUWHEEL_CLI_OPTIONS_H

#include <stdio.h>

struct cli;

/* One option. A table ends with an entry whose name and short_name are both unset. */
struct cli_option {
	const char *name; /* long name without "--", or NULL for a short-only option */
	int short_name;   /* 'j' for -j, or 0 */
	const char *arg;  /* the value's placeholder in the help ("N", "DIR"); NULL: a flag */
	int id;           /* what cli_args_next returns for it */
	const char *help; /* one or more lines, '\n'-separated, no trailing newline */
};

/* Options of one subcommand ("install" for `cuwheel toolkit install`), or of the command itself
 * (sub NULL). */
struct cli_option_group {
	const char *sub;
	const struct cli_option *options;
};

enum { CLI_HELP_GROUPS = 5 };

/* A command's long help: the hand-written usage and description, the generated option
 * sections ("Options:", or "Options of SUB:" per subcommand), and the text after them. */
struct cli_help {
	const char *text;
	struct cli_option_group groups[CLI_HELP_GROUPS]; /* ends at the first NULL options */
	const char *more;                                /* examples, exit status; or NULL */
};

/* Where the operands (the arguments that are not options) may stand. */
enum cli_args_order {
	CLI_ARGS_ANYWHERE, /* among the options; collected at argv[next..] when the parse ends */
	CLI_ARGS_IN_TURN,  /* among the options; each returned as CLI_ARG_OPERAND where it stands */
	CLI_ARGS_LAST,     /* the first operand ends the options (the rest may be an inner argv) */
};

enum {
	CLI_ARG_END = -1,     /* no more options; the operands are argv[next..argc) */
	CLI_ARG_ERROR = -2,   /* a usage error, already reported; the command returns CLI_USAGE */
	CLI_ARG_OPERAND = -3, /* CLI_ARGS_IN_TURN only: value is the operand */
};

/* The state of one parse. argv[0] is the command (or subcommand) name and is skipped. */
struct cli_args {
	struct cli *c;
	const char *cmd;                  /* named in the hint: "see 'cuwheel CMD --help'" */
	const struct cli_option *options; /* the table */
	int argc;
	char **argv;
	const char *value; /* the current option's value (NULL for a flag), or the operand */
	const char *given; /* how the current option was spelled: "--jobs" or "-j" */
	int next;          /* after CLI_ARG_END: the index of the first operand in argv */
	void *longopts_;   /* private: the getopt_long arrays built from the table */
	char *shortopts_;
};

/* Starts a parse of argv[1..argc) against the table; the arrays live in c's arena. */
void cli_args_init(struct cli_args *p, struct cli *c, const char *cmd,
                   const struct cli_option *options, enum cli_args_order order, int argc,
                   char **argv);
/* Returns the next option's id, CLI_ARG_OPERAND, CLI_ARG_END, or CLI_ARG_ERROR after reporting
 * "option '--x' needs a value", "option '--x' takes no value" or "unknown option '--y'" (with
 * a did-you-mean hint) through c's diagnostic sink. */
int cli_args_next(struct cli_args *p);

/* Prints the option sections of help: each table as aligned "  -s, --name ARG  help" lines. */
void cli_help_print_options(FILE *f, const char *cmd, const struct cli_help *help);

#endif
