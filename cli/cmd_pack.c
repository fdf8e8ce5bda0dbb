/* cmd_pack.c: `cuwheel pack`: a staged tree + the project's [project] table -> one wheel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "cli/plan_common.h"
#include "cli/cli.h"
#include "matrix/config.h"
#include "packager/wheel.h"

enum pack_option {
	PACK_TAG,
	PACK_LOCAL,
	PACK_OUT_DIR,
	PACK_BUILD,
	PACK_COMPRESSION,
	PACK_PURELIB,
	PACK_JOBS,
	PACK_QUIET,
	PACK_REQUIRES,
	PACK_PROJECT_JSON,
	PACK_DATA,
	PACK_NO_LOCAL,
};

static const struct cli_option pack_options[] = {
    {"tag", 0, "PY-ABI-PLATFORM", PACK_TAG,
     "the wheel's tags; each part may be a '.'-joined set\n"
     "(cp312-cp312-linux_x86_64, cp310-abi3-manylinux_2_28_x86_64)"},
    {"local", 0, "LABEL", PACK_LOCAL,
     "local version label (cu130, pt26.cu124); default: the one\n"
     "written in the version, if any"},
    {"no-local", 0, NULL, PACK_NO_LOCAL,
     "no label but the one written in the version (what build.ninja\n"
     "passes for local-version = \"\")"},
    {"out-dir", 'o', "DIR", PACK_OUT_DIR,
     "where to write the wheel (default: the project's dist dir)"},
    {"build", 0, "N", PACK_BUILD, "build tag (starts with a digit)"},
    {"compression", 0, "N", PACK_COMPRESSION,
     "0 = stored, 1..9 = deflate level (default: the project's, 6)"},
    {"purelib", 0, NULL, PACK_PURELIB, "Root-Is-Purelib: true (a pure-Python wheel)"},
    {"jobs", 'j', "N", PACK_JOBS, "deflate threads (default: one per CPU)"},
    {"quiet", 'q', NULL, PACK_QUIET, "do not print the path of the wheel written"},
    {"requires", 0, "REQ", PACK_REQUIRES,
     "one more Requires-Dist (PEP 508), after the project's\n"
     "dependencies; repeatable (a torch cell: \"torch>=2.11,<2.12\")"},
    {"data", 0, NULL, PACK_DATA,
     "pack the staged tree's <name>-<version>.data directory (scripts/\n"
     "install into bin/); without it any top-level *.data is refused,\n"
     "and cuwheel build never passes it"},
    {"project-json", 0, "FILE", PACK_PROJECT_JSON,
     "the metadata as `cuwheel build` writes it (build/cuwheel/\n"
     "project.json), instead of reading pyproject.toml"},
    {0},
};

const struct cli_help cmd_pack_help = {
    .text =
        "usage: cuwheel pack STAGED_DIR --tag PY-ABI-PLATFORM [--local LABEL] [-o DIR]\n"
        "                    [--build N] [--compression N] [--purelib] [--data] [-j N]\n"
        "                    [--requires REQ]... [--project-json FILE]\n"
        "\n"
        "Writes one wheel from STAGED_DIR (its contents become the wheel's root) and the\n"
        "metadata of the project's pyproject.toml ([project], read from -C DIR). The version\n"
        "is the project's, with the local label stamped (+cu130). The wheel is reproducible:\n"
        "members sorted with the .dist-info last, modes 0644/0755, timestamps from\n"
        "SOURCE_DATE_EPOCH (else 1980-01-01), never the files' mtimes. It is written to a hidden\n"
        "temp file in DIR and renamed into place when complete; on an error or a signal nothing\n"
        "is left behind (a temp file left by SIGKILL is removed by the next pack of that wheel).\n"
        "Symbolic links in STAGED_DIR are refused: stage a copy of the target.\n"
        "Prints the path of the wheel written.\n",
    .groups = {{NULL, pack_options}},
    .more = "Examples:\n"
            "  cuwheel pack build/stage/cp312 --tag cp312-cp312-linux_x86_64 --local cu130 -o "
            "dist/\n"
            "  SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) cuwheel -C proj pack stage --tag \\\n"
            "      py3-none-any --purelib\n",
};

/* Parses 0..9. */
static bool pack_level(struct cli *c, const char *val, int *out)
{
	char *end;
	long v = strtol(val, &end, 10);
	if (!*val || *end || v < 0 || v > 9) {
		cli_usage(c, "pack", "--compression expects 0..9, got '%s'", val);
		return false;
	}
	*out = (int)v;
	return true;
}

int cmd_pack(struct cli *c, int argc, char **argv)
{
	const char *project_json = NULL;
	struct pack_opts po = {0};
	const char *tag = NULL, *out = NULL;
	struct strv requires = {0};
	int level = -1;
	bool quiet = false;
	struct cli_args p;
	cli_args_init(&p, c, "pack", pack_options, CLI_ARGS_ANYWHERE, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case PACK_QUIET:
			quiet = true;
			break;
		case PACK_PROJECT_JSON:
			project_json = p.value;
			break;
		case PACK_TAG:
			tag = p.value;
			break;
		case PACK_LOCAL:
			po.local = p.value;
			break;
		case PACK_NO_LOCAL:
			po.local = NULL;
			break;
		case PACK_OUT_DIR:
			out = p.value;
			break;
		case PACK_BUILD:
			po.build = p.value;
			break;
		case PACK_COMPRESSION:
			if (!pack_level(c, p.value, &level))
				return CLI_USAGE;
			break;
		case PACK_PURELIB:
			po.root_is_purelib = true;
			break;
		case PACK_DATA:
			po.own_data = true;
			break;
		case PACK_REQUIRES:
			if (!*p.value)
				return cli_usage(c, "pack", "--requires expects a requirement");
			strv_push(&c->arena, &requires, p.value);
			break;
		case PACK_JOBS:
			if (!cli_parse_int(c, "pack", "--jobs", p.value, &po.threads))
				return CLI_USAGE;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (p.next >= argc)
		return cli_usage(c, "pack", "missing STAGED_DIR");
	if (p.next + 1 < argc)
		return cli_usage(c, "pack", "unexpected argument '%s'", argv[p.next + 1]);
	po.staged_dir = argv[p.next];
	if (!tag)
		return cli_usage(c, "pack", "missing --tag PY-ABI-PLATFORM");
	const char *d1 = strchr(tag, '-');
	const char *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
	if (!d1 || !d2 || strchr(d2 + 1, '-') || d1 == tag || d2 == d1 + 1 || !d2[1])
		return cli_usage(c, "pack", "--tag '%s' is not PY-ABI-PLATFORM", tag);
	po.python = arena_strndup(&c->arena, tag, (size_t)(d1 - tag));
	po.abi = arena_strndup(&c->arena, d1 + 1, (size_t)(d2 - d1 - 1));
	po.platform = d2 + 1;

	po.source_date_epoch = -1;
	const char *sde = env_nonempty(c->env, "SOURCE_DATE_EPOCH");
	if (sde) {
		char *end;
		long long v = strtoll(sde, &end, 10);
		if (*end || v < 0)
			return cli_usage(c, "pack",
			                 "SOURCE_DATE_EPOCH='%s' is not a number of seconds", sde);
		po.source_date_epoch = v;
	}

	/* The build's pack steps read the metadata the build wrote, not pyproject.toml. */
	struct config cfg = {.compression = 6};
	if (project_json ? !project_meta_read(&c->arena, &c->diag, project_json, &cfg.project,
	                                      &cfg.project_dir)
	                 : !cli_config_load(c, &cfg))
		return CLI_FAIL;
	/* --requires: the cell's own dependencies (the torch it was built against). */
	struct project_meta meta = cfg.project;
	if (requires.n) {
		meta.dependencies = (struct strv){0};
		for (size_t i = 0; i < cfg.project.dependencies.n; i++)
			strv_push(&c->arena, &meta.dependencies, cfg.project.dependencies.v[i]);
		for (size_t i = 0; i < requires.n; i++)
			strv_push(&c->arena, &meta.dependencies, requires.v[i]);
	}
	po.meta = &meta;
	po.project_dir = cfg.project_dir;
	po.compression = level >= 0 ? level : cfg.compression;
	po.out_dir = out ? out : cfg.dist_dir ? cfg.dist_dir : "dist";
	char *path;
	if (!wheel_pack(&c->arena, &c->diag, &po, &path))
		return CLI_FAIL;
	if (!quiet) /* the path holds --out-dir or dist-dir as given: untrusted */
		printf("%s\n", esc_str(&c->arena, ESC_TERM, path));
	return CLI_OK;
}
