/* cmd_retag.c: `cuwheel retag`: new local label, tags or build tag, payload not recompressed. */
#include <getopt.h>
#include <stdio.h>

#include "base/env.h"
#include "cli/cli.h"
#include "packager/retag.h"

const char cmd_retag_help[] =
    "usage: cuwheel retag WHEEL... [--local LABEL | --no-local] [--python P] [--abi A]\n"
    "                     [--platform P] [--build N | --no-build] [-o DIR] [--in-place]\n"
    "\n"
    "Writes a copy of each WHEEL with a new local version label and/or new tags. Payload\n"
    "members are copied still compressed (their CRC and RECORD hash are verified on the\n"
    "way); only WHEEL, RECORD and METADATA's Version line are rewritten, and the .dist-info\n"
    "(and .data) directory is renamed when the version changes. Hostile archives (path\n"
    "traversal, absolute names, symlinks, duplicates, bad CRCs, lying sizes, zip bombs) are\n"
    "refused before anything is written. Prints the path of each wheel written.\n"
    "\n"
    "Options:\n"
    "  --local LABEL     set the local label (+cu130); replaces any existing one\n"
    "  --no-local        remove the local label\n"
    "  --python P        new python tag set (cp312, or py3.py2)\n"
    "  --abi A           new abi tag set\n"
    "  --platform P      new platform tag set (manylinux_2_28_x86_64, or a '.'-joined set)\n"
    "  --build N         set the build tag;  --no-build removes it\n"
    "  -o, --out-dir DIR write the new wheels into DIR (default: beside each WHEEL)\n"
    "  --in-place        remove each original once its replacement is written\n"
    "\n"
    "Examples:\n"
    "  cuwheel retag dist/pkg-1.0+cu130-cp312-cp312-linux_x86_64.whl \\\n"
    "      --platform manylinux_2_28_x86_64 --in-place\n"
    "  cuwheel retag dist/*.whl --no-local -o upload/\n";

int cmd_retag(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"local", required_argument, NULL, 'l'},    {"no-local", no_argument, NULL, 'L'},
	    {"python", required_argument, NULL, 'y'},   {"abi", required_argument, NULL, 'a'},
	    {"platform", required_argument, NULL, 'p'}, {"build", required_argument, NULL, 'b'},
	    {"no-build", no_argument, NULL, 'B'},       {"out-dir", required_argument, NULL, 'o'},
	    {"in-place", no_argument, NULL, 'i'},       {NULL, 0, NULL, 0},
	};
	struct retag_opts o = {.audit_trace = env_nonempty(c->env, "CUWHEEL_AUDIT_TRACE")};
	const char *out = NULL;
	optind = 0;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (ch) {
		case 'l':
			o.local = optarg;
			break;
		case 'L':
			o.remove_local = true;
			break;
		case 'y':
			o.python = optarg;
			break;
		case 'a':
			o.abi = optarg;
			break;
		case 'p':
			o.platform = optarg;
			break;
		case 'b':
			o.build = optarg;
			break;
		case 'B':
			o.build = "";
			break;
		case 'o':
			out = optarg;
			break;
		case 'i':
			o.remove_original = true;
			break;
		default:
			return cli_usage(c, "retag", "unknown option or missing value '%s'",
			                 argv[optind - 1]);
		}
	}
	if (o.local && o.remove_local)
		return cli_usage(c, "retag", "--local and --no-local conflict");
	if (optind >= argc)
		return cli_usage(c, "retag", "missing WHEEL");
	int rc = CLI_OK;
	for (int i = optind; i < argc; i++) {
		char *path;
		if (wheel_retag(&c->arena, &c->diag, argv[i], &o, out, &path))
			printf("%s\n", path);
		else
			rc = CLI_FAIL;
	}
	return rc;
}
