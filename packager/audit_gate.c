/* audit_gate.c: the one verdict on a wheel that retag and index pass on: the audit's. */
#include <string.h>

#include "packager/audit.h"
#include "standards/tags.h"

/* The libraries of libs that the wheel at wheel_path gets (any, and own when the file name
 * names libs->project); NULL when libs is NULL or there are none. */
static const struct strv *libraries_for(struct arena *a, const struct audit_libraries *libs,
                                        const char *wheel_path)
{
	if (!libs)
		return NULL;
	struct strv *out = arena_calloc(a, 1, sizeof(*out));
	for (size_t i = 0; libs->any && i < libs->any->n; i++)
		strv_push(a, out, libs->any->v[i]);
	/* The project's own libraries only for its own wheels: another project's wheel that
	 * holds a module of the same name still has to define PyInit_. */
	const char *slash = strrchr(wheel_path, '/');
	struct wheel_name wn;
	const char *err;
	if (libs->project && libs->own &&
	    wheel_filename_parse(a, slash ? slash + 1 : wheel_path, &wn, &err) &&
	    !strcmp(name_normalize(a, wn.distribution), name_normalize(a, libs->project)))
		for (size_t i = 0; i < libs->own->n; i++)
			if (!strv_contains(out, libs->own->v[i]))
				strv_push(a, out, libs->own->v[i]);
	return out->n ? out : NULL;
}

bool audit_gate(struct arena *a, struct diag *d, const char *wheel_path, const char *verb,
                const struct audit_libraries *libs, const char *trace)
{
	struct audit_result res;
	struct diag quiet = {0};
	const struct audit_opts defaults = {
	    .libraries = libraries_for(a, libs, wheel_path),
	    .trace = trace,
	};
	if (audit_wheel(a, &quiet, wheel_path, &defaults, &res))
		return true;
	for (size_t i = 0; i < res.n_findings; i++) {
		const struct audit_finding *f = &res.findings[i];
		if (f->level != AUDIT_ERROR)
			continue;
		diag_path(d, DIAG_ERROR, wheel_path, "refused to %s: the audit fails: %s%s%s (%s)",
		          verb, f->member ? f->member : "", f->member ? ": " : "", f->message,
		          f->code);
		if (f->hint)
			diag_path(d, DIAG_HINT, wheel_path, "%s", f->hint);
	}
	if (res.errors == 0) /* strict is off, so only an error fails it; be safe anyway */
		diag_path(d, DIAG_ERROR, wheel_path, "refused to %s: the audit fails", verb);
	return false;
}
