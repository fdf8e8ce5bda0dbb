/* cmd_index.c: `cuwheel index DIST --out SITE`: a static PEP 503/691 index of a dist dir, with
 * one sub-index per local variant. */
#include <stdio.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "cli/cli.h"
#include "packager/audit.h"
#include "packager/index.h"

enum index_option { INDEX_OUT, INDEX_COPY, INDEX_LINKS, INDEX_LIBRARY };

static const struct cli_option index_options[] = {
    {"out", 'o', "SITE", INDEX_OUT, "where the index goes (required)"},
    {"copy", 0, NULL, INDEX_COPY,
     "copy the wheels; by default they are hard-linked when DIST and SITE share a\n"
     "filesystem (cuwheel replaces wheels by rename, so a link never changes)"},
    {"links", 0, "URL", INDEX_LINKS,
     "list each wheel at URL/<its path under DIST> and put no wheel into SITE\n"
     "(DIST/v1.0/x.whl: URL/v1.0/x.whl, as GitHub serves a release's assets)"},
    CLI_LIBRARY_OPTION(INDEX_LIBRARY),
    {0},
};

static const char index_help_text[] =
    "usage: cuwheel index DIST --out SITE [--copy | --links URL] [--library MODULE]...\n"
    "\n"
    "Writes a simple repository for the wheels in DIST, readable by pip and uv as\n"
    "--index-url file://SITE/ or from any static web server:\n"
    "  SITE/index.html, index.json              every project\n"
    "  SITE/<project>/index.html, index.json    its files: href with #sha256=, %2B for '+',\n"
    "                                           data-requires-python, data-core-metadata\n"
    "  SITE/<project>/<wheel>, <wheel>.metadata the wheel and its METADATA (PEP 658)\n"
    "  SITE/<local>/...                         the same for the wheels of one local variant\n"
    "                                           (SITE/cu130/ holds only the +cu130 wheels)\n"
    "Each wheel is stored once: a variant's wheel in SITE/<local>/<project>/, which the root's\n"
    "page links to (../<local>/<project>/<wheel>). DIST may hold one directory per release\n"
    "(DIST/v1.0/*.whl, DIST/v1.1/*.whl): the index lists them all; a file name twice is\n"
    "refused. With --links URL no wheel is stored: each is listed at URL/<its path under\n"
    "DIST>, without PEP 658 attributes (pip reads the METADATA from the wheel).\n"
    "HTML is PEP 503 with PEP 629/658/714 attributes; JSON is PEP 691\n"
    "(application/vnd.pypi.simple.v1+json), api-version 1.1 with versions and size, no\n"
    "upload-time. A web server should send index.json to clients that ask for that type.\n"
    "\n"
    "Every wheel is read with the hardened zip reader: its file name, its METADATA and the\n"
    "Name and Version there must agree, and audited as 'cuwheel audit' does. One refused\n"
    "wheel refuses the run, and nothing is written.\n"
    "\n" CLI_LIBRARIES_HELP "\n"
    "Updates are atomic: the new site is written into a hidden directory beside SITE and\n"
    "swapped in with one rename (renameat2 RENAME_EXCHANGE; where that is missing, two\n"
    "renames), then the old one is removed. A reader sees the old index or the new one, never a\n"
    "mix or a partial file. SITE must be empty, missing or an earlier cuwheel index.\n";

const struct cli_help cmd_index_help = {
    .text = index_help_text,
    .groups = {{NULL, index_options}},
    .more =
        "Exit status: 0 written, 1 a wheel was refused or writing failed, 2 usage, 3 no wheels.\n",
};

int cmd_index(struct cli *c, int argc, char **argv)
{
	struct strv given = {0};
	struct audit_libraries libs = {.any = &given};
	struct index_opts o = {.audit_trace = env_nonempty(c->env, "CUWHEEL_AUDIT_TRACE"),
	                       .libraries = &libs};
	struct cli_args p;
	cli_args_init(&p, c, "index", index_options, CLI_ARGS_ANYWHERE, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case INDEX_OUT:
			o.site_dir = p.value;
			break;
		case INDEX_COPY:
			o.copy = true;
			break;
		case INDEX_LINKS:
			if (strncmp(p.value, "https://", 8) && strncmp(p.value, "file://", 7))
				return cli_usage(c, "index",
				                 "--links wants an https:// or file:// URL");
			o.links = p.value;
			break;
		case INDEX_LIBRARY:
			if (!cli_library_add(c, "index", p.value, &given))
				return CLI_USAGE;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (p.next < argc)
		o.dist_dir = argv[p.next];
	if (p.next + 1 < argc)
		return cli_usage(c, "index", "one DIST directory, not '%s' too", argv[p.next + 1]);
	if (!o.dist_dir)
		return cli_usage(c, "index", "name the DIST directory holding the wheels");
	if (!o.site_dir)
		return cli_usage(c, "index", "--out SITE is required");
	if (o.links && o.copy)
		return cli_usage(c, "index", "--links stores no wheel: --copy goes without it");
	if (!os_is_dir(o.dist_dir))
		return cli_usage(c, "index", "%s: not a directory", o.dist_dir);
	cli_libraries_from_config(c, &libs);

	struct index_summary s;
	if (!index_write(&c->arena, &c->diag, &o, &s))
		return s.empty ? CLI_NOTHING : CLI_FAIL;
	const char *site = esc_str(&c->arena, ESC_TERM, o.site_dir);
	printf("cuwheel: wrote %s: %zu project%s, %zu wheel%s\n", site, s.n_projects,
	       s.n_projects == 1 ? "" : "s", s.n_files, s.n_files == 1 ? "" : "s");
	for (size_t v = 0; v < s.variants.n; v++) {
		size_t k = 0;
		for (size_t i = 0; i < s.n_files; i++)
			k += s.files[i].local && !strcmp(s.files[i].local, s.variants.v[v]);
		printf("  %s/%s/: %zu wheel%s\n", site,
		       esc_str(&c->arena, ESC_TERM, s.variants.v[v]), k, /* from wheel names */
		       k == 1 ? "" : "s");
	}
	return CLI_OK;
}
