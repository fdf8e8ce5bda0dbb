/* audit_gate.c: the one verdict on a wheel that retag and index pass on: the audit's. */
#include "packager/audit.h"

bool audit_gate(struct arena *a, struct diag *d, const char *wheel_path, const char *verb,
                const char *trace)
{
	struct audit_result res;
	struct diag quiet = {0};
	const struct audit_opts defaults = {.trace = trace};
	if (audit_wheel(a, &quiet, wheel_path, &defaults, &res))
		return true;
	for (size_t i = 0; i < res.n_findings; i++) {
		const struct audit_finding *f = &res.findings[i];
		if (f->level != AUDIT_ERROR)
			continue;
		diag_path(d, DIAG_ERROR, wheel_path, "refused to %s: the audit fails: %s%s%s (%s)",
		          verb, f->member ? f->member : "", f->member ? ": " : "", f->message,
		          f->code);
	}
	if (res.errors == 0) /* strict is off, so only an error fails it; be safe anyway */
		diag_path(d, DIAG_ERROR, wheel_path, "refused to %s: the audit fails", verb);
	return false;
}
