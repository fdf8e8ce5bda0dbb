/* provision_cmd.c: the subcommand shape `cuwheel toolkit` and `cuwheel python` share (see
 * provision_cmd.h). */
#include "base/escape.h"
#include "cli/provision_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standards/json_values.h"
#include "toolchain/discover.h"

/* Parses the options and operands of subcommand argv[0] against its table; returns CLI_OK or
 * CLI_USAGE. */
static int prov_parse(struct cli *c, const char *name, const struct cli_option *table, int argc,
                      char **argv, struct prov_opts *o)
{
	struct cli_args p;
	cli_args_init(&p, c, name, table, CLI_ARGS_ANYWHERE, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case PROV_WHEELS:
			o->wheels = p.value;
			break;
		case PROV_PYTHON:
			o->python = p.value;
			break;
		case PROV_LOCK:
			o->lock = p.value;
			break;
		case PROV_JSON:
			o->json = true;
			break;
		case PROV_AVAILABLE:
			o->available = true;
			break;
		default:
			return CLI_USAGE;
		}
	}
	o->args = (const char **)(argv + p.next);
	o->n_args = argc - p.next;
	return CLI_OK;
}

static int prov_remove(struct cli *c, const struct prov_cmd *pc, const struct prov_opts *o)
{
	if (o->n_args == 0)
		return cli_usage(c, pc->name, "%s remove needs a VERSION (e.g. %s)", pc->name,
		                 pc->remove_example);
	const char *cache = cuwheel_cache_dir(&c->arena, c->env);
	int rc = CLI_OK;
	for (int i = 0; i < o->n_args; i++) {
		const char *removed;
		if (pc->remove(&c->arena, &c->diag, cache, o->args[i], &removed))
			printf("removed %s\n", esc_str(&c->arena, ESC_TERM, removed));
		else
			rc = CLI_FAIL;
	}
	return rc;
}

int prov_main(struct cli *c, const struct prov_cmd *pc, int argc, char **argv)
{
	static const char *const subs[] = {"install", "list", "remove"};
	if (argc < 2)
		return cli_usage(c, pc->name, "%s needs a command: install, list or remove",
		                 pc->name);
	const char *sub = argv[1];
	struct prov_opts o = {0};
	int rc;
	if (strcmp(sub, "install") != 0 && strcmp(sub, "list") != 0 && strcmp(sub, "remove") != 0) {
		const char *close = diag_did_you_mean(sub, subs, 3);
		if (close)
			return cli_usage(c, pc->name,
			                 "'%s' is not a %s command; did you mean '%s'?", sub,
			                 pc->name, close);
		return cli_usage(c, pc->name, "'%s' is not a %s command (install, list, remove)",
		                 sub, pc->name);
	}
	const struct cli_option *table = strcmp(sub, "install") == 0 ? pc->install_options
	                                 : strcmp(sub, "list") == 0  ? pc->list_options
	                                                             : pc->remove_options;
	if ((rc = prov_parse(c, pc->name, table, argc - 1, argv + 1, &o)) != CLI_OK)
		return rc;
	if (strcmp(sub, "install") == 0)
		return pc->install(c, &o);
	if (strcmp(sub, "list") == 0)
		return pc->list(c, &o);
	return prov_remove(c, pc, &o);
}

bool prov_report_install(struct arena *a, enum provision_result r, const char *what,
                         const char *version, const char *root)
{
	/* The version is the lock file's, the root under the cache dir the environment names. */
	version = esc_str(a, ESC_TERM, version);
	root = esc_str(a, ESC_TERM, root);
	switch (r) {
	case PROVISION_INSTALLED:
		printf("installed %s %s in %s\n", what, version, root);
		break;
	case PROVISION_ALREADY:
		printf("%s %s is already installed in %s\n", what, version, root);
		break;
	case PROVISION_FAILED:
		return false;
	}
	fflush(stdout);
	return true;
}

json_t *prov_pkgs_json(const struct provision_pkg *p, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:I}", "name", p[i].name,
		                                     "version", p[i].version, "filename",
		                                     p[i].filename, "sha256", p[i].sha256, "size",
		                                     (json_int_t)p[i].size));
	return arr;
}

void prov_print_json(json_t *j)
{
	struct arena a = {0};
	char *s = json_dump_text(&a, j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (s)
		puts(s);
	arena_free(&a);
	json_decref(j);
}
