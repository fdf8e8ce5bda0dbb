/* provision_cmd.c: the subcommand shape `cuwheel toolkit` and `cuwheel python` share (see
 * provision_cmd.h). */
#include "cli/provision_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
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

const void *prov_lock(struct cli *c, const struct prov_cmd *pc, const struct prov_opts *o)
{
	const char *path = o->lock ? o->lock : pc->lock_path(&c->arena, c->env);
	if (!path) {
		diag_msg(&c->diag, DIAG_ERROR, "no %s lock file found", pc->lock_noun);
		diag_msg(&c->diag, DIAG_HINT,
		         "pass --lock FILE or set %s to %s of cuwheel's source tree", pc->lock_env,
		         pc->lock_file);
		return NULL;
	}
	return pc->lock_load(&c->arena, &c->diag, path);
}

/* Prints one install's outcome ("installed CUDA 13.1.80 in ROOT", escaped, in a); false when
 * it failed. */
static bool prov_report_install(struct arena *a, enum provision_result r, const char *what,
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

/* Resolves and installs each VERSION operand; a failed one does not stop the others. */
static int prov_install(struct cli *c, const struct prov_cmd *pc, const struct prov_opts *o)
{
	if (o->n_args == 0)
		return cli_usage(c, pc->name, "%s install needs a VERSION (e.g. %s)", pc->name,
		                 pc->install_example);
	const void *lock = prov_lock(c, pc, o);
	if (!lock)
		return CLI_FAIL;
	struct provision_opts po = {
	    .cache_dir = cuwheel_cache_dir(&c->arena, c->env),
	    .python = o->python,
	    .wheels_dir = o->wheels        ? o->wheels
	                  : pc->wheels_env ? env_nonempty(c->env, pc->wheels_env)
	                                   : NULL,
	    .env = c->env,
	};
	if (po.wheels_dir)
		po.wheels_dir = os_abspath(&c->arena, po.wheels_dir);
	int rc = CLI_OK;
	for (int i = 0; i < o->n_args; i++) {
		const struct provision_set *s = pc->resolve(&c->arena, &c->diag, lock, o->args[i]);
		if (!s) {
			rc = CLI_FAIL;
			continue;
		}
		const char *root = NULL;
		enum provision_result r = pc->install_set(&c->arena, &c->diag, &po, s, &root);
		if (!prov_report_install(&c->arena, r, pc->what, s->version, root))
			rc = CLI_FAIL;
	}
	return rc;
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
		return prov_install(c, pc, &o);
	if (strcmp(sub, "list") == 0)
		return pc->list(c, pc, &o);
	return prov_remove(c, pc, &o);
}

int64_t prov_set_size(const struct provision_set *s)
{
	int64_t size = 0;
	for (size_t j = 0; j < s->n_pkgs; j++)
		size += s->pkgs[j].size > 0 ? s->pkgs[j].size : 0;
	return size;
}

json_t *prov_set_json(const struct provision_set *s, const char *source)
{
	return json_pack("{s:s, s:s, s:s, s:I, s:o}", "version", s->version, "minor", s->minor,
	                 "source", source, "download_size", (json_int_t)prov_set_size(s),
	                 "packages", prov_pkgs_json(s->pkgs, s->n_pkgs));
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
