/* cmd_retag.c: `cuwheel retag`: new local label, tags or build tag, payload not recompressed. */
#include <stdio.h>

#include "base/env.h"
#include "base/escape.h"
#include "cli/cli.h"
#include "packager/audit.h"
#include "packager/retag.h"

enum retag_option {
	RETAG_LOCAL,
	RETAG_NO_LOCAL,
	RETAG_PYTHON,
	RETAG_ABI,
	RETAG_PLATFORM,
	RETAG_BUILD,
	RETAG_NO_BUILD,
	RETAG_OUT_DIR,
	RETAG_IN_PLACE,
	RETAG_LIBRARY,
};

static const struct cli_option retag_options[] = {
    {"local", 0, "LABEL", RETAG_LOCAL, "set the local label (+cu130); replaces any existing one"},
    {"no-local", 0, NULL, RETAG_NO_LOCAL, "remove the local label"},
    {"python", 0, "P", RETAG_PYTHON, "new python tag set (cp312, or py3.py2)"},
    {"abi", 0, "A", RETAG_ABI, "new abi tag set"},
    {"platform", 0, "P", RETAG_PLATFORM,
     "new platform tag set (manylinux_2_28_x86_64, or a '.'-joined set)"},
    {"build", 0, "N", RETAG_BUILD, "set the build tag"},
    {"no-build", 0, NULL, RETAG_NO_BUILD, "remove the build tag"},
    {"out-dir", 'o', "DIR", RETAG_OUT_DIR,
     "write the new wheels into DIR (default: beside each WHEEL)"},
    {"in-place", 0, NULL, RETAG_IN_PLACE, "remove each original once its replacement is written"},
    CLI_LIBRARY_OPTION(RETAG_LIBRARY),
    {0},
};

const struct cli_help cmd_retag_help = {
    .text = "usage: cuwheel retag WHEEL... [--local LABEL | --no-local] [--python P] [--abi A]\n"
            "                     [--platform P] [--build N | --no-build] [-o DIR] [--in-place]\n"
            "                     [--library MODULE]...\n"
            "\n"
            "Writes a copy of each WHEEL with a new local version label and/or new tags. Payload\n"
            "members are copied still compressed (their CRC and RECORD hash are verified on the\n"
            "way); only WHEEL, RECORD and METADATA's Version line are rewritten, and the\n"
            ".dist-info (and .data) directory is renamed when the version changes. Hostile\n"
            "archives (path traversal, absolute names, symlinks, duplicates, bad CRCs, lying\n"
            "sizes, zip bombs) are refused before anything is written, and so is a wheel that\n"
            "'cuwheel audit' refuses. Prints the path of each wheel written.\n"
            "\n" CLI_LIBRARIES_HELP,
    .groups = {{NULL, retag_options}},
    .more = "Examples:\n"
            "  cuwheel retag dist/pkg-1.0+cu130-cp312-cp312-linux_x86_64.whl \\\n"
            "      --platform manylinux_2_28_x86_64 --in-place\n"
            "  cuwheel retag dist/*.whl --no-local -o upload/\n",
};

int cmd_retag(struct cli *c, int argc, char **argv)
{
	struct strv given = {0};
	struct audit_libraries libs = {.any = &given};
	struct retag_opts o = {.audit_trace = env_nonempty(c->env, "CUWHEEL_AUDIT_TRACE"),
	                       .libraries = &libs};
	const char *out = NULL;
	struct cli_args p;
	cli_args_init(&p, c, "retag", retag_options, CLI_ARGS_ANYWHERE, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case RETAG_LOCAL:
			o.local = p.value;
			break;
		case RETAG_NO_LOCAL:
			o.remove_local = true;
			break;
		case RETAG_PYTHON:
			o.python = p.value;
			break;
		case RETAG_ABI:
			o.abi = p.value;
			break;
		case RETAG_PLATFORM:
			o.platform = p.value;
			break;
		case RETAG_BUILD:
			o.build = p.value;
			break;
		case RETAG_NO_BUILD:
			o.build = "";
			break;
		case RETAG_OUT_DIR:
			out = p.value;
			break;
		case RETAG_IN_PLACE:
			o.remove_original = true;
			break;
		case RETAG_LIBRARY:
			if (!cli_library_add(c, "retag", p.value, &given))
				return CLI_USAGE;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (o.local && o.remove_local)
		return cli_usage(c, "retag", "--local and --no-local conflict");
	if (p.next >= argc)
		return cli_usage(c, "retag", "missing WHEEL");
	cli_libraries_from_config(c, &libs);
	int rc = CLI_OK;
	for (int i = p.next; i < argc; i++) {
		char *path;
		if (wheel_retag(&c->arena, &c->diag, argv[i], &o, out, &path))
			printf("%s\n", esc_str(&c->arena, ESC_TERM, path));
		else
			rc = CLI_FAIL;
	}
	return rc;
}
