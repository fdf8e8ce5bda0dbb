/* github_steps.c: what every job writer of the workflow (github.c, github_jobs.c,
 * github_publish.c) uses: the pinned actions' `uses:` lines, a job's Pythons, and the libraries
 * loaded by path that each `cuwheel index` and `retag` is given. */
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "ci/actions.h"
#include "ci/github_internal.h"
#include "ci/yaml.h"
#include "matrix/config.h"
#include "standards/version.h"

const char gh_matrix_python[] = "${{ matrix.python }}";
const char gh_matrix_venvs[] = "${{ matrix.torch_venvs }}";
const char gh_matrix_cell[] = "${{ matrix.cell }}";

void gh_kv(struct emit *e, int ind, const char *key, const char *v)
{
	if (v == gh_matrix_python || v == gh_matrix_venvs || v == gh_matrix_cell)
		yaml_kv_expr(&e->sb, ind, key, v);
	else
		yaml_kv(&e->sb, ind, key, v);
}

static void add_python(struct emit *e, struct strv *seen, struct strbuf *sb, const char *py)
{
	if (strv_contains(seen, py))
		return;
	strv_push(e->a, seen, py);
	sb_printf(sb, "%s%s", seen->n > 1 ? "\n" : "", py);
}

/* A torch cell's own Python (a shared one: the one it is built with); an abi3 cell without
 * torch brings every Python of the axis it serves: the job tests its wheel with each. */
const char *gh_pythons(struct emit *e, const size_t *cells, size_t n)
{
	struct strv seen = {0};
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++) {
		const struct cell *c = &e->p->cells[cells[i]];
		add_python(e, &seen, &sb, torch_build_python(e->p, c));
		for (size_t k = 0; c->abi3 && !c->torch && k < e->p->pythons.n; k++)
			if (version_dotted_cmp(e->p->pythons.v[k], c->python) >= 0 &&
			    !strchr(e->p->pythons.v[k], 't'))
				add_python(e, &seen, &sb, e->p->pythons.v[k]);
	}
	return sb_to_arena(&sb, e->a);
}

static const struct {
	const char *use, *tag;
} actions[] = {
#define X(en, use, tag) {use, tag},
    CI_ACTIONS(X)
#undef X
};

void gh_uses(struct emit *e, int ind, enum ci_action act, bool item)
{
	sb_printf(&e->sb, "%*s%suses: %s # %s\n", ind, "", item ? "- " : "", actions[act].use,
	          actions[act].tag);
}

static const struct {
	const char *sym, *text;
} scripts[] = {
#define X(name) {#name, CI_SCRIPT(name)},
    CI_SCRIPTS(X)
#undef X
};

/* The embedded script of file name ("source_args.sh"), or NULL. */
static const char *script_named(struct emit *e, const char *name, size_t n)
{
	char *sym = arena_strndup(e->a, name, n);
	for (char *c = sym; *c; c++)
		if (*c == '.')
			*c = '_';
	for (size_t i = 0; i < sizeof(scripts) / sizeof(*scripts); i++)
		if (!strcmp(scripts[i].sym, sym))
			return scripts[i].text;
	return NULL;
}

const char *gh_script(struct emit *e, const char *script)
{
	/* The "# after:" line, among the comment lines the script opens with. */
	const char *line = script;
	while (*line == '#' && strncmp(line, "# after: ", 9)) {
		const char *nl = strchr(line, '\n');
		line = nl ? nl + 1 : "";
	}
	if (strncmp(line, "# after: ", 9))
		return script;
	struct strbuf sb = {0};
	const char *p = line + 9, *end = p + strcspn(p, "\n");
	while (p < end) {
		size_t n = strcspn(p, " \n");
		const char *before = n ? script_named(e, p, n) : NULL;
		if (before)
			sb_puts(&sb, before);
		p += n + (p[n] == ' ');
	}
	sb_puts(&sb, script);
	return sb_to_arena(&sb, e->a);
}

/* The config's libraries loaded by path, space-separated (module names: no space in one);
 * NULL when there are none. */
static const char *libraries_text(struct emit *e)
{
	struct strv mods = {0};
	config_libraries(e->a, e->p->cfg, &mods);
	if (!mods.n)
		return NULL;
	struct strbuf sb = {0};
	for (size_t i = 0; i < mods.n; i++)
		sb_printf(&sb, "%s%s", i ? " " : "", mods.v[i]);
	return sb_to_arena(&sb, e->a);
}

void gh_libraries_env(struct emit *e, int ind)
{
	const char *text = libraries_text(e);
	if (text)
		yaml_kv(&e->sb, ind, "LIBRARIES", text);
}

/* The length of the command words of line up to and including `index` or `retag` when the
 * line runs `cuwheel [GLOBAL OPTIONS] index|retag ...`; 0 for any other line. */
static size_t audit_command_len(const char *line)
{
	const char *p = line + strspn(line, " ");
	if (strncmp(p, "cuwheel ", 8))
		return 0;
	p += 8;
	while (*p == '-' || *p == '"') { /* global options: -C "$PROJECT", "${src[@]}" */
		size_t w = strcspn(p, " \n");
		p += w + (p[w] == ' ');
	}
	if (!strncmp(p, "index ", 6) || !strncmp(p, "retag ", 6))
		return (size_t)(p + 6 - line);
	return 0;
}

const char *gh_with_libraries(struct emit *e, const char *script)
{
	if (!libraries_text(e))
		return script;
	struct strbuf sb = {0};
	sb_puts(&sb, CI_SCRIPT(library_args_sh));
	for (const char *line = script; *line;) {
		size_t n = strcspn(line, "\n"), cmd = audit_command_len(line);
		if (cmd)
			sb_printf(&sb, "%.*s\"${library_args[@]}\" %.*s", (int)cmd, line,
			          (int)(n - cmd), line + cmd);
		else
			sb_printf(&sb, "%.*s", (int)n, line);
		if (line[n] == '\n')
			sb_putc(&sb, '\n');
		line += n + (line[n] == '\n');
	}
	return sb_to_arena(&sb, e->a);
}

bool gh_shared(const struct cell *c)
{
	return c->abi3 && c->torch;
}

const char *gh_shared_job(struct emit *e, const struct leg *l)
{
	for (size_t k = 0; k < l->n; k++)
		if (gh_shared(&e->p->cells[l->cells[k]]))
			return arena_printf(e->a, "testpairs-%s", l->id);
	return NULL;
}
