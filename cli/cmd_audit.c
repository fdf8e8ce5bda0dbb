/* cmd_audit.c: `cuwheel audit`: checks wheels and prints a report (or JSON). */
#include <stdio.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "cli/cli.h"
#include "packager/audit.h"
#include "packager/audit_codes.h"

enum audit_option {
	AUDIT_JSON,
	AUDIT_MIN_MANYLINUX,
	AUDIT_REQUIRE_ARCH,
	AUDIT_STRICT,
	AUDIT_EXPORT_LIMIT,
	AUDIT_CODES,
	AUDIT_TORCH_ABI,
	AUDIT_LIBRARY,
};

static const struct cli_option audit_options[] = {
    {"json", 0, NULL, AUDIT_JSON, "print a JSON array, one object per wheel (stable keys)"},
    {"min-manylinux", 0, "TAG", AUDIT_MIN_MANYLINUX,
     "fail when the binaries need a newer glibc than TAG allows\n"
     "(manylinux_2_28, manylinux2014, ...)"},
    {"require-arch", 0, "LIST", AUDIT_REQUIRE_ARCH,
     "CUDA architectures the fatbins must hold: 75,80,86,90a,120+PTX\n"
     "(TORCH_CUDA_ARCH_LIST spellings such as 8.6;9.0+PTX work too)"},
    {"strict", 0, NULL, AUDIT_STRICT, "warnings fail the audit as well"},
    {"export-limit", 0, "N", AUDIT_EXPORT_LIMIT,
     "dynamic exports besides PyInit_ tolerated before the warning\n"
     "that suggests -fvisibility=hidden (default 16)"},
    {"codes", 0, NULL, AUDIT_CODES, "print every finding code, its severity and its meaning"},
    {"torch-abi", 0, "stable", AUDIT_TORCH_ABI,
     "the modules are built for torch's stable ABI: refuse any torch, c10 or\n"
     "ATen C++ symbol (only the stable C shim may be used)"},
    CLI_LIBRARY_OPTION(AUDIT_LIBRARY),
    {0},
};

static const char audit_help_text[] =
    "usage: cuwheel audit WHEEL... [--json] [--min-manylinux TAG] [--require-arch LIST]\n"
    "                     [--strict] [--export-limit N] [--library MODULE]...\n"
    "       cuwheel audit --codes\n"
    "\n"
    "Checks each WHEEL the way PyPI, pip and auditwheel would, before it ships:\n"
    "  zip        STORED/DEFLATED only, no data descriptors, comment, trailing bytes or\n"
    "             duplicates; local and central headers agree; UTF-8 names\n"
    "  names      one .dist-info matching the file name; METADATA Name/Version; WHEEL's Tag\n"
    "             lines equal the file name's tags; Root-Is-Purelib consistent\n"
    "  RECORD     every member listed once with its sha256 and size; RECORD's row ',,'\n"
    "  ELF        the manylinux tag the binaries honour (auditwheel's policy: symbol\n"
    "             versions, allowed libraries, blacklisted symbols), or linux_<arch> and\n"
    "             why; RPATH/RUNPATH entries must start with $ORIGIN\n"
    "  CUDA       libcuda.so.1 is the driver: a dependency, never bundled; libcudart and the\n"
    "             other toolkit libraries only with a Requires-Dist that provides them\n"
    "             (torch, or nvidia-* with an $ORIGIN RPATH); torch's libraries need torch\n"
    "  modules    each extension exports PyInit_<name> (not a --library), its suffix\n"
    "             matches the wheel's ABI\n"
    "             tag (cpython-312 <-> cp312, .abi3.so <-> abi3); few other exports\n"
    "  archs      every architecture of --require-arch is in the fatbin (SASS, and PTX\n"
    "             for +PTX)\n"
    "\n"
    "Libraries provided from outside the wheel (the driver, torch, nvidia-*) are left out of\n"
    "the manylinux decision, like 'auditwheel repair --exclude'. Exit status 1 when any wheel\n"
    "has an error (or, with --strict, a warning).\n";

const struct cli_help cmd_audit_help = {
    .text = audit_help_text,
    .groups = {{NULL, audit_options}},
    .more = "Examples:\n"
            "  cuwheel audit dist/*.whl\n"
            "  cuwheel audit --min-manylinux manylinux_2_28 --require-arch 75,80,90,120+PTX \\\n"
            "      dist/tinyraster-0.1.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl\n",
};

/* Every string that came from the wheel (its name, member names, sonames, and the findings
 * that quote them) is escaped for the terminal. */
static void print_result(const struct audit_result *r)
{
	struct arena ea = {0};
	struct arena *a = &ea;
#define E(s) esc_str(a, ESC_TERM, (s))
	printf("%s: %s\n", E(r->wheel), r->ok ? "OK" : "FAIL");
	if (r->pure) {
		printf("  pure Python: no compiled code\n");
	} else if (r->platform_tag) {
		printf("  platform:  %s\n", E(r->platform_tag));
		if (r->why_not_higher && strcmp(r->policy, "linux") != 0)
			printf("             not older because %s\n",
			       esc_str(a, ESC_LOG, r->why_not_higher));
	}
	if (r->n_libs) {
		printf("  libraries:");
		for (size_t i = 0; i < r->n_libs; i++)
			printf("%s %s (%s)", i ? "," : "", E(r->libs[i].soname),
			       r->libs[i].provider ? E(r->libs[i].provider) : "no provider");
		printf("\n");
	}
	for (size_t i = 0; i < r->n_elfs; i++)
		if (r->elfs[i].cubins.n) {
			printf("  cuda:      %s:", E(r->elfs[i].member));
			for (size_t j = 0; j < r->elfs[i].cubins.n; j++)
				printf(" %s", E(r->elfs[i].cubins.v[j]));
			printf("\n");
		}
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct audit_finding *f = &r->findings[i];
		printf("  %s: %s%s%s\n", audit_level_name(f->level), f->member ? E(f->member) : "",
		       f->member ? ": " : "", esc_str(a, ESC_LOG, f->message));
		if (f->hint)
			printf("    hint: %s\n", esc_str(a, ESC_LOG, f->hint));
	}
#undef E
	arena_free(&ea);
}

int cmd_audit(struct cli *c, int argc, char **argv)
{
	struct strv libraries = {0};
	struct audit_opts o = {.trace = env_nonempty(c->env, "CUWHEEL_AUDIT_TRACE"),
	                       .libraries = &libraries};
	bool json = false;
	int limit;
	const char *err;
	struct arch *archs;
	struct cli_args p;
	cli_args_init(&p, c, "audit", audit_options, CLI_ARGS_ANYWHERE, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case AUDIT_JSON:
			json = true;
			break;
		case AUDIT_CODES: {
			size_t nc;
			const struct audit_code *t = audit_codes(&nc);
			for (size_t i = 0; i < nc; i++)
				printf("%s\t%s\t%s\n", t[i].code,
				       audit_level_name((enum audit_level)t[i].severity),
				       t[i].meaning);
			return CLI_OK;
		}
		case AUDIT_MIN_MANYLINUX:
			o.min_manylinux = p.value;
			break;
		case AUDIT_REQUIRE_ARCH:
			if (!cuda_arch_parse_list(&c->arena, p.value, ARCH_SPELL_NVCC, &archs,
			                          &o.n_archs, &err))
				return cli_usage(c, "audit", "--require-arch: %s", err);
			o.archs = archs;
			break;
		case AUDIT_STRICT:
			o.strict = true;
			break;
		case AUDIT_TORCH_ABI:
			if (strcmp(p.value, "stable") != 0)
				return cli_usage(c, "audit", "--torch-abi: '%s' is not 'stable'",
				                 p.value);
			o.torch_stable = true;
			break;
		case AUDIT_LIBRARY:
			if (!cli_library_add(c, "audit", p.value, &libraries))
				return CLI_USAGE;
			break;
		case AUDIT_EXPORT_LIMIT:
			if (!cli_parse_int(c, "audit", "--export-limit", p.value, &limit))
				return CLI_USAGE;
			o.export_limit = (size_t)limit;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (p.next >= argc)
		return cli_usage(c, "audit", "missing WHEEL");
	size_t n = (size_t)(argc - p.next);
	struct audit_result *res = arena_calloc(&c->arena, n, sizeof *res);
	int rc = CLI_OK;
	for (size_t i = 0; i < n; i++) {
		if (!audit_wheel(&c->arena, &c->diag, argv[p.next + (int)i], &o, &res[i]))
			rc = CLI_FAIL;
		if (!json)
			print_result(&res[i]);
	}
	if (json)
		printf("%s\n", audit_results_json(&c->arena, res, n));
	return rc;
}
