/* audit.c: runs the audit of one wheel (zip bytes, names, RECORD, ELF, policy) and parses the
 * --require-arch list. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/os-file.h"
#include "packager/audit_int.h"

/* The reader's refusals (duplicates, bad names, methods) become findings, unless the raw
 * check already reported the same member. */
struct open_capture {
	struct audit_ctx *c;
	int before;
};

static void capture_open(void *user, const struct diag_msg *m)
{
	struct open_capture *oc = user;
	if (oc->c->r->errors > oc->before)
		return;
	audit_add(oc->c, m->level == DIAG_WARNING ? AUDIT_WARNING : AUDIT_ERROR, "zip", NULL, NULL,
	          "%s", m->text);
}

bool audit_wheel(struct arena *a, struct diag *d, const char *wheel_path,
                 const struct audit_opts *opts, struct audit_result *out)
{
	static const struct audit_opts none = {0};
	memset(out, 0, sizeof *out);
	/* Tests count the audits a command runs: one line per audit, appended. */
	const char *trace = opts ? opts->trace : NULL;
	if (trace && *trace) {
		os_append(trace, arena_printf(a, "%s\n", wheel_path));
	}
	struct audit_ctx c = {.a = a, .opts = opts ? opts : &none, .r = out, .path = wheel_path};
	const char *slash = strrchr(wheel_path, '/');
	out->wheel = arena_strdup(a, slash ? slash + 1 : wheel_path);
	/* Say why a path cannot be read at all (missing, a directory, a FIFO that would block)
	 * rather than calling it a bad zip. */
	struct os_stat st;
	bool st_ok = os_stat(wheel_path, &st);
	if (!st_ok || st.kind != OS_KIND_FILE) {
		const char *why = !st_ok ? strerror(errno) : "not a regular file";
		diag_path(d, DIAG_ERROR, wheel_path, "cannot open: %s", why);
		audit_add(&c, AUDIT_ERROR, "zip-open", NULL, NULL, "cannot open: %s", why);
		return false;
	}
	const char *why;
	if (!audit_zip_raw(&c, &why)) {
		diag_path(d, DIAG_ERROR, wheel_path, "cannot read it as a zip archive: %s", why);
		audit_add(&c, AUDIT_ERROR, "zip-open", NULL, NULL,
		          "cannot read it as a zip archive: %s", why);
		return false;
	}
	struct open_capture oc = {.c = &c, .before = out->errors};
	struct diag od = {.emit = capture_open, .user = &oc};
	struct extract_limits lim;
	extract_limits_default(&lim);
	if (!zip_reader_open(a, &od, wheel_path, &lim, &c.zr)) {
		if (out->errors == oc.before)
			audit_add(&c, AUDIT_ERROR, "zip", NULL, NULL, "the archive is refused");
		out->ok = false;
		return false;
	}
	out->opened = true;
	c.n_members = c.zr.n_members;
	c.members = arena_calloc(a, c.n_members ? c.n_members : 1, sizeof *c.members);
	for (size_t i = 0; i < c.n_members; i++)
		c.members[i].zm = &c.zr.members[i];
	audit_names(&c);
	audit_declared(&c);
	audit_record(&c);
	audit_read_elfs(&c);
	audit_check_elfs(&c);
	audit_check_pes(&c);
	audit_policy(&c);
	zip_reader_close(&c.zr);
	out->ok = out->errors == 0 && !(c.opts->strict && out->warnings > 0);
	return out->ok;
}
