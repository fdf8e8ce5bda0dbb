/* audit_finding.c: the findings every check of the audit (audit_*.c) records, and their
 * level names. */
#include <stdarg.h>

#include "packager/audit_int.h"

const char *audit_level_name(enum audit_level l)
{
	return l == AUDIT_ERROR ? "error" : l == AUDIT_WARNING ? "warning" : "note";
}

void audit_add(struct audit_ctx *c, enum audit_level lvl, const char *code, const char *member,
               const char *hint, const char *fmt, ...)
{
	struct audit_result *r = c->r;
	if (r->n_findings == c->cap_findings) {
		size_t nc = c->cap_findings ? c->cap_findings * 2 : 16;
		r->findings =
		    arena_realloc(c->a, r->findings, c->cap_findings, nc, sizeof *r->findings);
		c->cap_findings = nc;
	}
	struct audit_finding *f = &r->findings[r->n_findings++];
	va_list ap;
	va_start(ap, fmt);
	f->message = arena_vprintf(c->a, fmt, ap);
	va_end(ap);
	f->level = lvl;
	f->code = code;
	f->member = member ? arena_strdup(c->a, member) : NULL;
	f->hint = hint;
	if (lvl == AUDIT_ERROR)
		r->errors++;
	else if (lvl == AUDIT_WARNING)
		r->warnings++;
}
