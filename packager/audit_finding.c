/* audit_finding.c: the findings every check of the audit (audit_*.c) records, their level
 * names, and what the ELF and PE module checks share: which modules are libraries loaded by
 * path, and the hint of a missing PyInit_. */
#include <stdarg.h>

#include <string.h>

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

/* The dotted module of member, a module file named mod ("pkg._ops" for pkg/_ops.cpython-...so):
 * what --library and loaded-by name it by. */
static const char *dotted_module(struct audit_ctx *c, const char *member, const char *mod)
{
	const char *slash = strrchr(member, '/');
	struct strbuf sb = {0};
	for (const char *p = member; slash && p < slash; p++)
		sb_putc(&sb, *p == '/' ? '.' : *p);
	sb_printf(&sb, "%s%s", slash ? "." : "", mod);
	return sb_to_arena(&sb, c->a);
}

bool audit_is_library(struct audit_ctx *c, const char *member, const char *mod)
{
	const struct strv *libs = c->opts->libraries;
	return libs && libs->n && strv_contains(libs, dotted_module(c, member, mod));
}

const char *audit_pyinit_hint(struct audit_ctx *c, const char *member, const char *mod,
                              const char *define)
{
	return arena_printf(c->a,
	                    "%s; or, when its package loads it by path (torch.ops.load_library, "
	                    "ctypes.CDLL), it is a library: --library %s (cuwheel audit, index, "
	                    "retag), set for a project's wheels by loaded-by = \"path\" in its "
	                    "[[tool.cuwheel.extension]]",
	                    define, dotted_module(c, member, mod));
}
