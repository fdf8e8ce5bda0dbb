/* build_gha.c: build progress under GitHub Actions: a group per row, ::error annotations from
 * gcc, nvcc and audit messages, and the step summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "cli/build_internal.h"

void build_gha_init(struct run *r)
{
	struct arena *a = &r->c->arena;
	const char *ws = env_nonempty(r->c->env, "GITHUB_WORKSPACE");
	r->repo_root = ws ? os_realpath(a, ws) : NULL;
	if (!r->repo_root)
		r->repo_root = os_realpath(a, r->p->cfg->project_dir);
	if (!r->repo_root)
		r->repo_root = r->p->cfg->project_dir;
	/* gcc/clang "file:line:col: error: msg"; nvcc "file(line): error: msg". */
	regcomp(&r->re_gcc, "^(.+):([0-9]+):([0-9]+): (fatal error|error): (.*)$", REG_EXTENDED);
	regcomp(&r->re_nvcc, "^(.+)\\(([0-9]+)\\): (error.*)$", REG_EXTENDED);
	regcomp(&r->re_audit, "^cuwheel: .*: error: ", REG_EXTENDED);
}

void build_gha_free(struct run *r)
{
	regfree(&r->re_gcc);
	regfree(&r->re_nvcc);
	regfree(&r->re_audit);
}

/* Escapes a workflow command's data (prop: a property value as well): base/escape's one
 * function, so CR/LF cannot end the command and no control byte reaches the log raw. */
static char *gha_escape(struct arena *a, const char *s, bool prop)
{
	return esc_str(a, prop ? ESC_WORKFLOW_PROP : ESC_WORKFLOW, s);
}

/* A compiler's path (relative to the build dir) as the repository names it. */
static const char *repo_path(struct run *r, const char *path)
{
	struct arena *a = &r->c->arena;
	char *abs = path[0] == '/' ? arena_strdup(a, path) : os_join(a, r->m->build_dir, path);
	char *real = os_realpath(a, abs);
	if (real)
		abs = real;
	size_t n = strlen(r->repo_root);
	if (!strncmp(abs, r->repo_root, n) && abs[n] == '/')
		return abs + n + 1;
	return abs;
}

/* Annotations for the errors in a failed step's output: compiler diagnostics and audit
 * findings; a failure with neither gets one annotation naming the step. */
void build_gha_annotate(struct run *r, size_t row, const char *step, const char *text)
{
	struct arena *a = &r->c->arena;
	struct strbuf *out = &r->views[row].notes;
	size_t before = out->len;
	const char *s = text;
	while (*s) {
		size_t n = strcspn(s, "\n");
		char *line = arena_strndup(a, s, n);
		s += n + (s[n] == '\n');
		regmatch_t m[6];
		if (!regexec(&r->re_gcc, line, 6, m, 0)) {
			line[m[1].rm_eo] = line[m[2].rm_eo] = '\0';
			if (m[3].rm_so >= 0)
				line[m[3].rm_eo] = '\0';
			sb_printf(out, "::error file=%s,line=%s%s%s::%s\n",
			          gha_escape(a, repo_path(r, line), true), line + m[2].rm_so,
			          m[3].rm_so >= 0 ? ",col=" : "",
			          m[3].rm_so >= 0 ? line + m[3].rm_so : "",
			          gha_escape(a, line + m[5].rm_so, false));
		} else if (!regexec(&r->re_nvcc, line, 6, m, 0)) {
			line[m[1].rm_eo] = line[m[2].rm_eo] = '\0';
			sb_printf(out, "::error file=%s,line=%s::%s\n",
			          gha_escape(a, repo_path(r, line), true), line + m[2].rm_so,
			          gha_escape(a, line + m[3].rm_so, false));
		} else if (!regexec(&r->re_audit, line, 6, m, 0)) {
			sb_printf(
			    out, "::error title=%s::%s\n",
			    gha_escape(a, arena_printf(a, "audit %s", r->m->rows[row].name), true),
			    gha_escape(a, line + strlen("cuwheel: "), false));
		}
	}
	if (out->len == before)
		sb_printf(out, "::error title=%s::%s\n",
		          gha_escape(a, arena_printf(a, "%s failed", r->m->rows[row].name), true),
		          gha_escape(a,
		                     arena_printf(a, "%s failed; its output is in the group %s",
		                                  step, r->m->rows[row].name),
		                     false));
}

/* GitHub Actions: a finished row's lines as one group, then its annotations. */
void build_gha_group(struct run *r, size_t row)
{
	const struct result_row *w = &r->m->rows[row];
	struct row_view *v = &r->views[row];
	if (!r->gha || (v->log.len == 0 && v->notes.len == 0))
		return;
	double el = w->t_start < 0 ? 0 : w->t_end - w->t_start;
	/* The title is a workflow command's message: the row's name escaped as one (the ids are
	 * validated, the escape keeps that from mattering here). */
	printf("::group::%s %s %s\n%s::endgroup::\n%s", gha_escape(&r->c->arena, w->name, false),
	       result_state_word(w), build_fmt_secs(&r->c->arena, el), sb_str(&v->log),
	       sb_str(&v->notes));
	fflush(stdout);
	sb_reset(&v->log);
	sb_reset(&v->notes);
}

void build_gha_summary(struct cli *c, const struct build_result *m)
{
	const char *gha = env_value(c->env, "GITHUB_ACTIONS");
	const char *path = env_nonempty(c->env, "GITHUB_STEP_SUMMARY");
	if (!gha || strcmp(gha, "true") || !path)
		return;
	struct arena *a = &c->arena;
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "### cuwheel build\n\n| cell | result | wheel | size | time |\n"
	           "|---|---|---|---|---|\n");
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct result_row *w = &m->rows[i];
		if (!w->shown)
			continue;
		const char *slash = w->wheel ? strrchr(w->wheel, '/') : NULL;
		const char *wheel = w->wheel ? (slash ? slash + 1 : w->wheel) : "";
		const char *size = !w->wheel ? ""
		                   : w->size >= 1 << 20
		                       ? arena_printf(a, "%.1f MB", (double)w->size / (1 << 20))
		                       : arena_printf(a, "%.1f kB", (double)w->size / 1024);
		const char *tm = w->seconds >= 0         ? build_fmt_secs(a, w->seconds)
		                 : w->state == RESULT_OK ? "up to date"
		                                         : "-";
		/* The wheel's name comes from the project's metadata: escaped, as every field that
		 * is not cuwheel's own word or figure, and never in a code span, where a backtick
		 * or a '|' would still end it. */
		fprintf(f, "| %s | %s | %s | %s | %s |\n", esc_str(a, ESC_MARKDOWN, w->name),
		        w->state == RESULT_OK       ? "ok"
		        : w->state == RESULT_FAILED ? "**FAILED**"
		                                    : result_state_word(w),
		        esc_str(a, ESC_MARKDOWN, wheel), size, tm);
	}
	fputc('\n', f);
	fclose(f);
}
