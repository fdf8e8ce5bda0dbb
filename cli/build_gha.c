/* build_gha.c: build progress under GitHub Actions: a group per row, ::error annotations from
 * gcc, nvcc and audit messages, and the step summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os.h"
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
	char *abs = path[0] == '/' ? arena_strdup(a, path) : os_join(a, r->g->build_dir, path);
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
	struct strbuf *out = &r->rows[row].notes;
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
			    gha_escape(a, arena_printf(a, "audit %s", r->rows[row].name), true),
			    gha_escape(a, line + strlen("cuwheel: "), false));
		}
	}
	if (out->len == before)
		sb_printf(out, "::error title=%s::%s\n",
		          gha_escape(a, arena_printf(a, "%s failed", r->rows[row].name), true),
		          gha_escape(a,
		                     arena_printf(a, "%s failed; its output is in the group %s",
		                                  step, r->rows[row].name),
		                     false));
}

/* GitHub Actions: a finished row's lines as one group, then its annotations. */
void build_gha_group(struct run *r, size_t row)
{
	struct row *w = &r->rows[row];
	if (!r->gha || (w->log.len == 0 && w->notes.len == 0))
		return;
	double el = w->t_start < 0 ? 0 : w->t_end - w->t_start;
	printf("::group::%s %s %s\n%s::endgroup::\n%s", w->name, build_state_word(w),
	       build_fmt_secs(&r->c->arena, el), sb_str(&w->log), sb_str(&w->notes));
	fflush(stdout);
	sb_reset(&w->log);
	sb_reset(&w->notes);
}

/* GitHub Actions: the table of rows as Markdown in $GITHUB_STEP_SUMMARY. */
void build_gha_summary(struct run *r)
{
	const char *path = env_nonempty(r->c->env, "GITHUB_STEP_SUMMARY");
	if (!path)
		return;
	struct arena *a = &r->c->arena;
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "### cuwheel build\n\n| cell | result | wheel | size | time |\n"
	           "|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct row *w = &r->rows[i];
		const char *wheel = "", *size = "";
		struct source s;
		struct diag quiet = {0}; /* a probe: a row without a stamp shows no wheel */
		if (w->final && w->state == ROW_OK &&
		    os_read_file(a, &quiet, os_join(a, r->g->build_dir, w->final), &s)) {
			char *path_w = arena_strndup(a, s.text, strcspn(s.text, "\n"));
			struct stat st;
			wheel = strrchr(path_w, '/') ? strrchr(path_w, '/') + 1 : path_w;
			if (stat(path_w, &st) == 0)
				size =
				    st.st_size >= 1 << 20
				        ? arena_printf(a, "%.1f MB", (double)st.st_size / (1 << 20))
				        : arena_printf(a, "%.1f kB", (double)st.st_size / 1024);
		}
		double el = w->t_start < 0 ? 0 : w->t_end - w->t_start;
		fprintf(f, "| `%s` | %s | %s%s%s | %s | %s |\n", w->name,
		        w->state == ROW_OK       ? "ok"
		        : w->state == ROW_FAILED ? "**FAILED**"
		                                 : build_state_word(w),
		        *wheel ? "`" : "", wheel, *wheel ? "`" : "", size, build_fmt_secs(a, el));
	}
	fputc('\n', f);
	fclose(f);
}
