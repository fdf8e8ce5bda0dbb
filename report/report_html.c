/* report_html.c: the build report as one self-contained HTML page: inline CSS, SVG and a few
 * lines of script; nothing loaded from elsewhere, so it opens from a CI artifact as is. */
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "report/report.h"

static void esc(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			sb_puts(sb, "&amp;");
			break;
		case '<':
			sb_puts(sb, "&lt;");
			break;
		case '>':
			sb_puts(sb, "&gt;");
			break;
		case '"':
			sb_puts(sb, "&quot;");
			break;
		default:
			sb_putc(sb, *s);
		}
	}
}

static const char *basename_of(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

static void human_size(struct strbuf *sb, long long n)
{
	if (n >= 1 << 20)
		sb_printf(sb, "%.1f MB", (double)n / (1 << 20));
	else
		sb_printf(sb, "%.1f kB", (double)n / 1024);
}

static const char *result_class(const struct result_row *w)
{
	switch (w->state) {
	case RESULT_OK:
		return "ok";
	case RESULT_NOT_SELECTED:
		return "unselected";
	case RESULT_CANNOT_BUILD:
		return "skipped";
	default:
		return "failed";
	}
}

/* The grid's column of a cell: its CUDA, and torch. */
static const char *column_of(struct arena *a, const struct result_row *w)
{
	if (!w->cuda)
		return "?";
	return w->torch ? arena_printf(a, "CUDA %s, torch %s", w->cuda, w->torch)
	                : arena_printf(a, "CUDA %s", w->cuda);
}

/* One cell of the grid: id, result, size and time or why not, the wheel. */
static void grid_cell(struct strbuf *sb, const struct result_row *w)
{
	const char *result = result_word(w);
	sb_printf(sb, "<div class=\"cell %s\" data-row=\"", result_class(w));
	esc(sb, w->name);
	sb_puts(sb, "\" style=\"padding:6px;margin:2px 0\"><div class=\"r\">");
	esc(sb, w->name);
	sb_puts(sb, "</div><div>");
	esc(sb, result);
	if (w->state == RESULT_OK) {
		sb_puts(sb, " &middot; ");
		human_size(sb, w->size);
		if (w->seconds < 0)
			sb_puts(sb, " &middot; up to date");
		else
			sb_printf(sb, " &middot; %.1fs", w->seconds);
	}
	sb_puts(sb, "</div>");
	if (w->wheel) {
		sb_puts(sb, "<div class=\"w\">");
		esc(sb, basename_of(w->wheel));
		sb_puts(sb, "</div>");
	} else if (w->reason) {
		sb_puts(sb, "<div class=\"sub\">");
		esc(sb, w->reason);
		sb_puts(sb, "</div>");
	}
	sb_puts(sb, "</div>");
}

static const char css[] =
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#1d2330;"
    "background:#fafbfc}h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}"
    ".sub{color:#5b6475}table{border-collapse:collapse}td,th{padding:6px 10px;border:1px solid "
    "#d9dee7;vertical-align:top}th{background:#eef1f6;text-align:left}"
    ".grid .w{font-family:ui-monospace,"
    "monospace;font-size:11px;word-break:break-all}.ok{background:#d9f2dd}.failed{background:"
    "#f9d3d3}.skipped{background:#eceff3;color:#6b7280}.unselected{background:#fff;color:#9aa1ad}"
    ".r{font-weight:600}.tl{background:#fff;border:1px solid #d9dee7}.tl rect.s{stroke:#fff;"
    "stroke-width:.5}.tl rect.k{fill:#6d4fd8}.tl rect.c{fill:#1a9e8f}.tl rect.dim{opacity:.25}"
    ".legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:"
    "-2px}.lvl-error{color:#b42318;font-weight:600}.lvl-warning{color:#a15c07}.lvl-note{color:"
    "#5b6475}code{font-family:ui-monospace,monospace;font-size:12px}";

static void grid(struct strbuf *sb, const struct build_result *m)
{
	struct arena a = {0};
	struct strv rows = {0}, cols = {0};
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct result_row *w = &m->rows[i];
		if (w->is_archive)
			continue;
		const char *row = w->python ? w->python : "?", *col = column_of(&a, w);
		if (!strv_contains(&rows, row))
			strv_push(&a, &rows, row);
		if (!strv_contains(&cols, col))
			strv_push(&a, &cols, col);
	}
	sb_puts(sb, "<table class=\"grid\" id=\"grid\"><tr><th>Python</th>");
	for (size_t j = 0; j < cols.n; j++) {
		sb_puts(sb, "<th>");
		esc(sb, cols.v[j]);
		sb_puts(sb, "</th>");
	}
	sb_puts(sb, "</tr>\n");
	for (size_t k = 0; k < rows.n; k++) {
		sb_puts(sb, "<tr><th>");
		esc(sb, rows.v[k]);
		sb_puts(sb, "</th>");
		for (size_t j = 0; j < cols.n; j++) {
			bool any = false;
			for (size_t i = 0; i < m->n_rows; i++) {
				const struct result_row *w = &m->rows[i];
				if (w->is_archive ||
				    strcmp(w->python ? w->python : "?", rows.v[k]) ||
				    strcmp(column_of(&a, w), cols.v[j]))
					continue;
				if (!any)
					sb_puts(sb, "<td class=\"cell-group\">");
				any = true;
				grid_cell(sb, w);
			}
			sb_puts(sb, any ? "</td>" : "<td></td>");
		}
		sb_puts(sb, "</tr>\n");
	}
	sb_puts(sb, "</table>\n");
	arena_free(&a);
}

/* The Gantt chart: one lane per core, a bar per step; the kernel stage in violet. */
static void timeline(struct strbuf *sb, const struct build_result *r)
{
	if (r->n_steps == 0) {
		sb_puts(sb, "<p class=\"sub\" id=\"timeline\">No steps ran in the last build "
		            "(nothing to do, or no .ninja_log).</p>\n");
		return;
	}
	const int left = 70, width = 1000, lane_h = 22, top = 24;
	int height = top + r->n_lanes * lane_h + 10;
	double span = r->span_ms > 0 ? (double)r->span_ms : 1;
	double scale = width / span;
	sb_printf(sb,
	          "<svg class=\"tl\" id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" "
	          "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
	          left + width + 20, height, left + width + 20, height);
	/* Ticks at a round interval giving about ten of them. */
	static const double steps_s[] = {0.1, 0.2, 0.5, 1,   2,   5,    10,   15,
	                                 30,  60,  120, 300, 600, 1200, 1800, 3600};
	double tick = 3600;
	for (size_t i = 0; i < sizeof(steps_s) / sizeof(*steps_s); i++) {
		if (span / 1000.0 / steps_s[i] <= 10) {
			tick = steps_s[i];
			break;
		}
	}
	for (double t = 0; t * 1000 <= span; t += tick) {
		double x = left + t * 1000 * scale;
		sb_printf(sb,
		          "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e3e7ee\"/>"
		          "<text x=\"%.1f\" y=\"14\" font-size=\"11\" text-anchor=\"middle\" "
		          "fill=\"#5b6475\">%gs</text>\n",
		          x, top - 4, x, height - 6, x, t);
	}
	for (int l = 0; l < r->n_lanes; l++)
		sb_printf(
		    sb, "<text x=\"4\" y=\"%d\" font-size=\"11\" fill=\"#5b6475\">core %d</text>\n",
		    top + l * lane_h + 15, l + 1);
	for (size_t i = 0; i < r->n_steps; i++) {
		const struct result_step *s = &r->steps[i];
		double x = left + (double)s->start_ms * scale;
		double w = (double)(s->end_ms - s->start_ms) * scale;
		if (w < 1)
			w = 1;
		sb_printf(sb,
		          "<rect class=\"s %s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
		          "data-row=\"",
		          s->kernels ? "k" : "c", x, top + s->lane * lane_h, w, lane_h - 4);
		esc(sb, s->row);
		sb_puts(sb, "\"><title>");
		esc(sb, s->row);
		sb_puts(sb, ": ");
		esc(sb, s->name);
		sb_printf(sb, " (%.2fs)</title></rect>\n",
		          (double)(s->end_ms - s->start_ms) / 1000);
	}
	sb_puts(sb, "</svg>\n<div class=\"legend sub\"><span style=\"background:#6d4fd8\"></span>"
	            "kernel archive (once per toolkit)<span style=\"background:#1a9e8f\"></span>"
	            "per-Python cell (binding, link, stage, pack, audit, test)</div>\n");
}

static void audits(struct strbuf *sb, const struct build_result *m)
{
	bool any = false;
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct result_row *rc = &m->rows[i];
		if (!rc->audited)
			continue;
		any = true;
		const struct audit_result *a = &rc->audit;
		sb_puts(sb, "<h3 style=\"font-size:14px;margin:16px 0 4px\"><code>");
		esc(sb, rc->wheel ? basename_of(rc->wheel) : rc->audit.wheel);
		sb_printf(sb, "</code> &mdash; %s, %d error%s, %d warning%s",
		          a->ok ? "passes" : "fails", a->errors, a->errors == 1 ? "" : "s",
		          a->warnings, a->warnings == 1 ? "" : "s");
		if (a->platform_tag) {
			sb_puts(sb, ", <code>");
			esc(sb, a->platform_tag);
			sb_puts(sb, "</code>");
		}
		sb_puts(sb, "</h3>\n");
		if (a->why_not_higher) {
			sb_puts(sb, "<div class=\"sub\">Not higher: ");
			esc(sb, a->why_not_higher);
			sb_puts(sb, "</div>\n");
		}
		if (a->n_findings == 0) {
			sb_puts(sb, "<div class=\"sub\">No findings.</div>\n");
			continue;
		}
		sb_puts(sb, "<table><tr><th>level</th><th>code</th><th>member</th><th>message</th>"
		            "</tr>\n");
		for (size_t k = 0; k < a->n_findings; k++) {
			const struct audit_finding *f = &a->findings[k];
			sb_printf(sb, "<tr><td class=\"lvl-%s\">%s</td><td><code>",
			          audit_level_name(f->level), audit_level_name(f->level));
			esc(sb, f->code);
			sb_puts(sb, "</code></td><td><code>");
			esc(sb, f->member ? f->member : "");
			sb_puts(sb, "</code></td><td>");
			esc(sb, f->message);
			if (f->hint) {
				sb_puts(sb, "<div class=\"sub\">hint: ");
				esc(sb, f->hint);
				sb_puts(sb, "</div>");
			}
			sb_puts(sb, "</td></tr>\n");
		}
		sb_puts(sb, "</table>\n");
	}
	if (!any)
		sb_puts(sb, "<p class=\"sub\">No wheel to audit.</p>\n");
}

/* torch-compat's table per cell (only where it ran): torch, Python, result, the failing step
 * and its first error line, then the range the passes prove. */
static void torch_compat(struct strbuf *sb, const struct build_result *m)
{
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct result_row *rc = &m->rows[i];
		if (!rc->compat_done)
			continue;
		const struct compat_result *c = &rc->compat;
		sb_puts(sb, "<h3 style=\"font-size:14px;margin:16px 0 4px\"><code>");
		esc(sb, rc->name);
		sb_puts(sb, "</code> &mdash; built against torch ");
		esc(sb, c->torch ? c->torch : "?");
		sb_puts(sb, ", proven <code>");
		esc(sb, c->requirement ? c->requirement : "-");
		sb_puts(sb, "</code></h3>\n<table><tr><th>torch</th><th>Python</th><th>result</th>"
		            "<th>why</th></tr>\n");
		for (size_t k = 0; k < c->n_rows; k++) {
			const struct compat_row *r = &c->rows[k];
			sb_puts(sb, "<tr><td>");
			esc(sb, r->torch_version ? r->torch_version : r->torch);
			sb_puts(sb, "</td><td>");
			esc(sb, r->python ? r->python : "-");
			sb_puts(sb, "</td><td>");
			esc(sb, r->result);
			sb_puts(sb, "</td><td>");
			esc(sb, r->step ? r->step : "");
			if (r->error) {
				sb_puts(sb, ": <code>");
				esc(sb, r->error);
				sb_puts(sb, "</code>");
			}
			sb_puts(sb, "</td></tr>\n");
		}
		sb_puts(sb, "</table>\n");
	}
}

/* The toolchain the build used, as it recorded it: nothing here asks this machine. */
static void toolchain(struct strbuf *sb, const struct build_result *m)
{
	sb_puts(sb,
	        "<table id=\"toolchain\"><tr><th>tool</th><th>version</th><th>path</th></tr>\n");
	for (size_t t = 0; t < m->n_toolkits; t++) {
		const struct result_toolkit *tk = &m->toolkits[t];
		sb_puts(sb, "<tr><td>nvcc (CUDA ");
		esc(sb, tk->cuda);
		sb_puts(sb, ")</td><td>");
		esc(sb, tk->version);
		sb_puts(sb, "</td><td><code>");
		esc(sb, tk->nvcc);
		sb_puts(sb, "</code></td></tr>\n<tr><td>host compiler (CUDA ");
		esc(sb, tk->cuda);
		sb_puts(sb, ")</td><td>");
		esc(sb, tk->cc_version ? tk->cc_version : "(unknown)");
		sb_puts(sb, "</td><td><code>");
		esc(sb, tk->cc);
		sb_puts(sb, "</code>, <code>");
		esc(sb, tk->cxx);
		sb_puts(sb, "</code></td></tr>\n");
	}
	for (size_t i = 0; i < m->n_pythons; i++) {
		const struct result_python *py = &m->pythons[i];
		sb_puts(sb, "<tr><td>Python</td><td>");
		esc(sb, py->version);
		if (py->torch) {
			sb_puts(sb, ", torch ");
			esc(sb, py->torch);
		}
		sb_puts(sb, "</td><td><code>");
		esc(sb, py->path);
		sb_puts(sb, "</code></td></tr>\n");
	}
	sb_puts(sb, "</table>\n");
}

/* Hovering a cell of the grid highlights its steps in the timeline. */
static const char script[] =
    "(function(){var g=document.querySelectorAll('#grid .cell');"
    "var bars=document.querySelectorAll('#timeline rect.s');"
    "function mark(row){for(var i=0;i<bars.length;i++){var b=bars[i];"
    "if(row&&b.getAttribute('data-row')!==row)b.classList.add('dim');"
    "else b.classList.remove('dim');}}"
    "for(var i=0;i<g.length;i++){g[i].addEventListener('mouseenter',function(e){"
    "mark(e.currentTarget.getAttribute('data-row'));});"
    "g[i].addEventListener('mouseleave',function(){mark(null);});}"
    "document.body.setAttribute('data-ready','1');})();";

char *report_html(struct arena *a, const struct build_result *m)
{
	struct strbuf sb = {0};
	size_t ok, failed, skipped, n_cells = 0;
	result_count(m, &ok, &failed, &skipped);
	for (size_t i = 0; i < m->n_rows; i++)
		n_cells += !m->rows[i].is_archive;
	sb_puts(&sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	             "<title>cuwheel report: ");
	esc(&sb, m->project);
	sb_printf(&sb, "</title><style>%s</style></head><body>\n<h1>", css);
	esc(&sb, m->project);
	sb_putc(&sb, ' ');
	esc(&sb, m->version);
	sb_printf(
	    &sb,
	    "</h1><div class=\"sub\">%zu wheel%s built, %zu failed, %zu cell%s in the matrix; "
	    "%.1fs wall; %zu step%s on %d core%s in the last run</div>\n",
	    ok, ok == 1 ? "" : "s", failed, n_cells, n_cells == 1 ? "" : "s", m->wall_seconds,
	    m->n_steps, m->n_steps == 1 ? "" : "s", m->n_lanes, m->n_lanes == 1 ? "" : "s");
	sb_puts(&sb, "<h2>Matrix</h2>\n");
	grid(&sb, m);
	sb_puts(&sb, "<h2>Timeline</h2>\n");
	timeline(&sb, m);
	sb_puts(&sb, "<h2>Audit</h2>\n");
	audits(&sb, m);
	bool compat = false;
	for (size_t i = 0; i < m->n_rows; i++)
		compat |= m->rows[i].compat_done;
	if (compat) {
		sb_puts(&sb, "<h2>Torch compatibility</h2>\n");
		torch_compat(&sb, m);
	}
	sb_puts(&sb, "<h2>Toolchain</h2>\n");
	toolchain(&sb, m);
	sb_printf(&sb, "<script>%s</script>\n</body></html>\n", script);
	return sb_to_arena(&sb, a);
}
