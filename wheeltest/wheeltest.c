/* wheeltest.c: `cuwheel test`'s engine: which Pythons a wheel runs on, and per (wheel, Python) a
 * fresh venv, pip install, and the project's test command, several pairs at once. */
#define _GNU_SOURCE /* confstr(_CS_GNU_LIBC_VERSION) */
#include "wheeltest/wheeltest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "base/os-file.h"
#include "base/os-run.h"
#include "base/os-sys.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "matrix/testcmd.h"
#include "standards/tags.h"
#include "standards/version.h"
#include "standards/wheel_read.h"
#include "wheeltest/cross_venv.h"

const char *wheeltest_result_name(enum wheeltest_result r)
{
	switch (r) {
	case WHEELTEST_PASS:
		return "pass";
	case WHEELTEST_FAIL:
		return "fail";
	case WHEELTEST_SKIP:
		return "skip";
	}
	return "fail";
}

/* Returns the test command with {project} and {wheel} replaced by "$CUWHEEL_PROJECT" and
 * "$CUWHEEL_WHEEL" (which the command's environment holds), or NULL + *why when a placeholder
 * stands where that would not be one plain argument (matrix/testcmd.h). */
static char *wheeltest_expand_command(struct arena *a, const char *command, const char **why)
{
	size_t at;
	return testcmd_expand(a, command, why, &at);
}

/* Tags and uname agree on Linux architecture names (x86_64, aarch64, i686, ...). */
static bool arch_matches(const char *arch, const char *host)
{
	return !strcmp(arch, host);
}

/* Returns why this machine cannot run a wheel for platform tag plat (static or arena text), or
 * NULL when it can. host_arch is uname's machine ("x86_64"); glibc "2.36" or NULL (musl). */
static const char *wheeltest_platform_problem(struct arena *a, const char *plat,
                                              const char *host_arch, const char *glibc)
{
	const char *arch;
	int maj, min;
	switch (tag_platform_os(a, plat, &arch)) {
	case TAG_OS_ANY:
		return NULL;
	case TAG_OS_WINDOWS:
		return arena_printf(a, "a Windows wheel (%s): this machine is Linux %s", plat,
		                    host_arch);
	case TAG_OS_MACOS:
		return arena_printf(a, "a macOS wheel (%s): this machine is Linux %s", plat,
		                    host_arch);
	case TAG_OS_LINUX:
		if (arch_matches(arch, host_arch))
			return NULL;
		return arena_printf(a, "a Linux %s wheel (%s): this machine is Linux %s", arch,
		                    plat, host_arch);
	case TAG_OS_MANYLINUX: {
		if (!arch_matches(arch, host_arch))
			return arena_printf(a, "a Linux %s wheel (%s): this machine is Linux %s",
			                    arch, plat, host_arch);
		if (!glibc)
			return arena_printf(a, "a glibc wheel (%s): this machine has no glibc",
			                    plat);
		int hmaj = 0, hmin = 0;
		if (sscanf(glibc, "%d.%d", &hmaj, &hmin) != 2 ||
		    !tag_manylinux_parse(a, plat, &maj, &min, &arch))
			return NULL; /* unknown: let pip decide */
		if (hmaj > maj || (hmaj == maj && hmin >= min))
			return NULL;
		return arena_printf(a, "%s needs glibc %d.%d: this machine has %s", plat, maj, min,
		                    glibc);
	}
	case TAG_OS_MUSLLINUX:
		if (glibc)
			return arena_printf(a, "a musl wheel (%s): this machine uses glibc %s",
			                    plat, glibc);
		return NULL;
	case TAG_OS_OTHER:
		break;
	}
	return arena_printf(a, "platform %s is not this machine's (Linux %s)", plat, host_arch);
}

static const char *interp_key(struct arena *a, const struct interp *ip)
{
	bool ft = ip->freethreaded || (ip->abiflags && strchr(ip->abiflags, 't'));
	return arena_printf(a, "%d.%d%s", ip->major, ip->minor, ft ? "t" : "");
}

static bool interp_ft(const struct interp *ip)
{
	return ip->freethreaded || (ip->abiflags && strchr(ip->abiflags, 't'));
}

static bool version_ge(const struct interp *ip, int major, int minor)
{
	if (ip->major != major)
		return ip->major > major;
	return minor < 0 || ip->minor >= minor;
}

static bool in_matrix(struct arena *a, const struct config *cfg, const struct interp *ip)
{
	if (!cfg || !cfg->matrix.python.n)
		return true;
	return strv_contains(&cfg->matrix.python, interp_key(a, ip));
}

/* Whether interpreter ip can install a wheel with this (python, abi) tag pair. */
static bool tag_fits(struct arena *a, const struct config *cfg, const struct wheel_tag *t,
                     const struct interp *ip)
{
	if (ip->implementation && strcmp(ip->implementation, "cpython"))
		return false;
	struct python_tag py;
	if (!tag_python_parse(t->python, &py))
		return false;
	if (!strcmp(t->abi, "abi3"))
		return py.kind == 'c' && !interp_ft(ip) && version_ge(ip, py.major, py.minor) &&
		       in_matrix(a, cfg, ip);
	if (!strcmp(t->abi, "none")) {
		if (py.kind == 'c')
			return ip->major == py.major && ip->minor == py.minor;
		return version_ge(ip, py.major, py.minor) && in_matrix(a, cfg, ip);
	}
	return false; /* cpXY-cpXY(t): tag_fits_exact */
}

static bool tag_fits_exact(const struct wheel_tag *t, const struct interp *ip)
{
	int major, minor;
	const char *flags;
	if (!tag_abi_parse(t->abi, &major, &minor, &flags) || ip->major != major ||
	    ip->minor != minor)
		return false;
	if (ip->implementation && strcmp(ip->implementation, "cpython"))
		return false;
	bool want_ft = strchr(flags, 't') != NULL;
	return want_ft == interp_ft(ip);
}

/* Describes the Pythons a tag asks for, for a skip reason. */
static const char *tag_wants(struct arena *a, const struct wheel_tag *t)
{
	struct python_tag py;
	if (!tag_python_parse(t->python, &py))
		return arena_printf(a, "an interpreter for %s-%s", t->python, t->abi);
	if (!strcmp(t->abi, "abi3") || (py.kind == 'p' && !strcmp(t->abi, "none")))
		return py.minor < 0 ? arena_printf(a, "a Python %d of the matrix", py.major)
		                    : arena_printf(a, "a CPython >= %d.%d of the matrix", py.major,
		                                   py.minor);
	int am, an;
	const char *flags;
	if (tag_abi_parse(t->abi, &am, &an, &flags))
		return arena_printf(a, "%sPython %d.%d", strchr(flags, 't') ? "free-threaded " : "",
		                    am, an);
	return arena_printf(a, "Python %d.%d", py.major, py.minor);
}

struct host {
	const char *arch;
	const char *glibc;
};

static struct host host_facts(struct arena *a)
{
	struct host h = {"x86_64", NULL};
	struct utsname u;
	if (uname(&u) == 0)
		h.arch = arena_strdup(a, u.machine);
#ifdef _CS_GNU_LIBC_VERSION
	char buf[64];
	size_t n = confstr(_CS_GNU_LIBC_VERSION, buf, sizeof(buf));
	if (n > 0 && n <= sizeof(buf) && !strncmp(buf, "glibc ", 6))
		h.glibc = arena_strdup(a, buf + 6);
#endif
	return h;
}

static bool selected(struct arena *a, const struct wheeltest_opts *o, const struct interp *ip)
{
	if (!o->pythons || !o->pythons->n)
		return true;
	const char *key = interp_key(a, ip);
	for (size_t i = 0; i < o->pythons->n; i++)
		if (!strcmp(o->pythons->v[i], key) || !strcmp(o->pythons->v[i], ip->version))
			return true;
	return false;
}

static void wheel_requires_except_torch(struct arena *a, const char *wheel, struct strv *out,
                                        const char **torch_req);

/* The torch "MAJOR.MINOR" a wheel was built against (its Requires-Dist: torch>=2.6,<2.7, as
 * cuwheel writes it), or NULL. */
static const char *wheel_torch_minor(struct arena *a, const char *wheel)
{
	/* The local label first: with torch-requires = "tested" the requirement names a range
	 * (torch>=2.9,<2.12) whose lower bound is not the build's torch. "+pt211cu130". */
	const char *slash = strrchr(wheel, '/');
	const char *base = slash ? slash + 1 : wheel;
	const char *plus = strchr(base, '+'), *dash = plus ? strchr(plus, '-') : NULL;
	for (const char *p = plus; p && dash && p < dash; p++) {
		if ((p == plus + 1 || p[-1] == '.' || p[-1] == '_') && p[0] == 'p' && p[1] == 't' &&
		    p[2] >= '1' && p[2] <= '9' && p[3] >= '0' && p[3] <= '9') {
			size_t nd = strspn(p + 3, "0123456789");
			if (p + 3 + nd <= dash)
				return arena_printf(a, "%c.%.*s", p[2], (int)nd, p + 3);
		}
	}
	const char *req = NULL;
	wheel_requires_except_torch(a, wheel, NULL, &req);
	const char *ge = req ? strstr(req, ">=") : NULL;
	int major, minor;
	if (!ge || sscanf(ge + 2, "%d.%d", &major, &minor) != 2)
		return NULL;
	return arena_printf(a, "%d.%d", major, minor);
}

const char *wheeltest_wheel_torch(struct arena *a, const char *wheel)
{
	return wheel_torch_minor(a, wheel);
}

static bool torch_is(const struct interp *ip, const char *minor)
{
	return minor && ip->torch.present && ip->torch.version_short &&
	       !strcmp(ip->torch.version_short, minor);
}

/* True when the wheel's torch requirement has a lower bound and no upper one (torch>=2.11, as
 * cuwheel writes it for a module built against torch's stable ABI). */
static bool wheel_torch_open(struct arena *a, const char *wheel)
{
	const char *req = NULL;
	wheel_requires_except_torch(a, wheel, NULL, &req);
	return req && strstr(req, ">=") && !strchr(req, '<');
}

const char *wheeltest_job_python(struct arena *a, const struct wheeltest_job *j)
{
	if (!j->py)
		return j->py_key;
	if (strstr(j->py_key, "-torch") && j->py->torch.version)
		return arena_printf(a, "%s with torch %s", j->py->version, j->py->torch.version);
	return j->py->version;
}

/* For a stable-ABI torch wheel: whether ip's torch is one to test it with: at least the one it
 * was built against and, when the config has a torch axis, one of the axis. */
static bool torch_tests_open(const struct config *cfg, const struct interp *ip, const char *minor)
{
	if (!minor || !ip->torch.present || !ip->torch.version_short ||
	    version_dotted_cmp(ip->torch.version_short, minor) < 0)
		return false;
	return !cfg || !cfg->matrix.torch.n ||
	       strv_contains(&cfg->matrix.torch, ip->torch.version_short);
}

static void push_job(struct arena *a, struct wheeltest_job **v, size_t *n, size_t *cap,
                     const struct wheeltest_job *j)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		*v = arena_realloc(a, *v, *cap, nc, sizeof(**v));
		*cap = nc;
	}
	(*v)[(*n)++] = *j;
}

/* torch-compat: the jobs of one wheel with o->compat_torch: one per Python the wheel fits
 * that has an interpreter with that torch; a skip saying what is missing otherwise. */
static void plan_compat(struct arena *a, const struct wheeltest_opts *o,
                        const struct wheeltest_job *base, const char *torch, bool open,
                        const bool *fit, struct wheeltest_job **v, size_t *n, size_t *cap)
{
	struct wheeltest_job j = *base;
	if (!torch || open) {
		j.result = WHEELTEST_SKIP;
		j.reason = torch ? "a stable-ABI wheel: its torch axis is its test axis"
		                 : "no torch requirement: not a torch wheel";
		push_job(a, v, n, cap, &j);
		return;
	}
	if (!strcmp(torch, o->compat_torch)) {
		j.result = WHEELTEST_SKIP;
		j.reason = "built against it (the test step's)";
		push_job(a, v, n, cap, &j);
		return;
	}
	size_t before = *n;
	struct strv fitting = {0};
	for (size_t i = 0; i < o->ds->n_pythons; i++) {
		const struct interp *ip = &o->ds->pythons[i];
		if (!fit[i])
			continue;
		const char *key = interp_key(a, ip);
		if (!strv_contains(&fitting, key))
			strv_push(a, &fitting, key);
		if (!torch_is(ip, o->compat_torch) || !selected(a, o, ip))
			continue;
		bool dup = false; /* one per Python */
		for (size_t k = before; k < *n && !dup; k++)
			dup = !strcmp((*v)[k].py->path, ip->path) ||
			      !strcmp(interp_key(a, (*v)[k].py), key);
		if (dup)
			continue;
		j.py = ip;
		j.py_key = arena_printf(a, "%s-torch%s", key, o->compat_torch);
		push_job(a, v, n, cap, &j);
	}
	if (*n > before)
		return;
	j.result = WHEELTEST_SKIP;
	j.reason = arena_printf(a,
	                        "no Python %s with torch %s here (examples/torchext/setup-pythons "
	                        "--torch %s makes one; list it in [tool.cuwheel.pythons])",
	                        fitting.n ? fitting.v[0] : "of this wheel", o->compat_torch,
	                        o->compat_torch);
	push_job(a, v, n, cap, &j);
}

/* A Linux wheel of another architecture than this machine's (no tag plat_ok): where a cross
 * Python of that architecture is installed and qemu-user runs it, marks its tags runnable,
 * points *pys at those interpreters and sets base's qemu and platform; returns why not
 * otherwise (problem, said more fully). */
static const char *plan_cross(struct arena *a, const struct wheeltest_opts *o,
                              const struct wheel_name *wn, const char *host_arch, bool *plat_ok,
                              struct wheeltest_job *base, const char *problem,
                              const struct interp **pys, size_t *n_pys)
{
	for (size_t t = 0; t < wn->n_tags; t++) {
		const char *arch = NULL;
		enum tag_os os = tag_platform_os(a, wn->tags[t].platform, &arch);
		if ((os != TAG_OS_LINUX && os != TAG_OS_MANYLINUX) || !arch ||
		    arch_matches(arch, host_arch))
			continue;
		size_t k;
		struct interp *v = cross_interps(a, o->ds, arch, &k);
		if (!k)
			return arena_printf(
			    a,
			    "%s, and no linux_%s CPython is installed to run it under "
			    "qemu-user (cuwheel cross install python-3.X)",
			    problem, arch);
		const char *qemu = cross_qemu(a, o->env, arch);
		if (!qemu)
			return arena_printf(
			    a,
			    "%s, and qemu-%s-static is not on PATH to run it (Debian's "
			    "qemu-user-static)",
			    problem, arch);
		for (size_t u = 0; u < wn->n_tags; u++) {
			const char *ua = NULL;
			tag_platform_os(a, wn->tags[u].platform, &ua);
			plat_ok[u] = ua && !strcmp(ua, arch);
		}
		base->qemu = qemu;
		base->cross_platform = wn->tags[t].platform;
		*pys = v;
		*n_pys = k;
		return problem;
	}
	return problem;
}

bool wheeltest_plan(struct arena *a, struct diag *d, const struct wheeltest_opts *o,
                    struct wheeltest_job **jobs, size_t *n_jobs)
{
	struct host h = host_facts(a);
	struct wheeltest_job *v = NULL;
	size_t n = 0, cap = 0;
	bool ok = true;
	for (size_t w = 0; w < o->wheels->n; w++) {
		const char *path = os_abspath(a, o->wheels->v[w]);
		const char *slash = strrchr(path, '/');
		const char *file = slash ? slash + 1 : path;
		struct wheel_name wn;
		const char *err;
		if (!wheel_filename_parse(a, file, &wn, &err)) {
			diag_path(d, DIAG_ERROR, o->wheels->v[w], "not a wheel file name: %s", err);
			ok = false;
			continue;
		}
		if (!os_exists(path) || os_is_dir(path)) {
			diag_path(d, DIAG_ERROR, o->wheels->v[w], "no such wheel file");
			ok = false;
			continue;
		}
		struct wheeltest_job base = {.wheel = path, .filename = file, .py_key = "-"};
		/* Tags whose platform this machine runs; the first problem explains a skip. */
		const char *problem = NULL;
		size_t n_ok = 0;
		bool *plat_ok = arena_calloc(a, wn.n_tags ? wn.n_tags : 1, sizeof(bool));
		for (size_t t = 0; t < wn.n_tags; t++) {
			const char *p =
			    wheeltest_platform_problem(a, wn.tags[t].platform, h.arch, h.glibc);
			plat_ok[t] = !p;
			n_ok += !p;
			if (p && !problem)
				problem = p;
		}
		const struct interp *pys = o->ds->pythons;
		size_t n_pys = o->ds->n_pythons;
		if (!n_ok && !o->compat_torch)
			problem =
			    plan_cross(a, o, &wn, h.arch, plat_ok, &base, problem, &pys, &n_pys);
		if (base.qemu)
			n_ok = 1;
		if (!n_ok) {
			base.result = WHEELTEST_SKIP;
			base.reason = problem ? problem : "no tags";
			push_job(a, &v, &n, &cap, &base);
			continue;
		}
		size_t before = n, excluded = 0;
		const char *wants = NULL;
		/* A Python may have one interpreter per torch (a venv each): a torch wheel is
		 * tested once per Python, with the interpreter of its torch where there is one. */
		const char *torch = wheel_torch_minor(a, path);
		/* A stable-ABI torch wheel is tested with every torch it is for: one job per
		 * interpreter whose torch qualifies, not one per Python. */
		bool open = torch && wheel_torch_open(a, path);
		bool *fit = arena_calloc(a, n_pys + 1, sizeof(bool));
		for (size_t i = 0; i < n_pys; i++) {
			const struct interp *ip = &pys[i];
			for (size_t t = 0; t < wn.n_tags && !fit[i]; t++) {
				if (!plat_ok[t])
					continue;
				fit[i] = tag_fits_exact(&wn.tags[t], ip) ||
				         tag_fits(a, o->cfg, &wn.tags[t], ip);
			}
		}
		if (o->compat_torch) {
			plan_compat(a, o, &base, torch, open, fit, &v, &n, &cap);
			continue;
		}
		for (size_t i = 0; i < n_pys; i++) {
			const struct interp *ip = &pys[i];
			bool fits = fit[i];
			/* A cross Python has no torch: pip installs the one the wheel was built
			 * against, and a stable-ABI wheel is tested with that one alone. */
			bool cross_torch = torch && base.qemu && !ip->torch.present;
			if (open) {
				fits = fits && (cross_torch || torch_tests_open(o->cfg, ip, torch));
				for (size_t k = 0; k < i && fits; k++) /* one per (Python, torch) */
					fits =
					    !(fit[k] &&
					      !strcmp(interp_key(a, &pys[k]), interp_key(a, ip)) &&
					      torch_tests_open(o->cfg, &pys[k], torch) &&
					      !strcmp(pys[k].torch.version_short,
					              ip->torch.version_short));
			}
			for (size_t k = 0; k < n_pys && fits && !open; k++) {
				const struct interp *q = &pys[k];
				if (k == i || !fit[k] ||
				    strcmp(interp_key(a, q), interp_key(a, ip)))
					continue;
				bool qt = torch_is(q, torch), it = torch_is(ip, torch);
				if ((qt && !it) || (qt == it && k < i))
					fits = false; /* q stands for this Python */
			}
			if (!fits)
				continue;
			if (!selected(a, o, ip)) {
				excluded++;
				continue;
			}
			struct wheeltest_job j = base;
			j.py = ip;
			j.py_key = open
			               ? arena_printf(a, "%s-torch%s", interp_key(a, ip),
			                              cross_torch ? torch : ip->torch.version_short)
			               : interp_key(a, ip);
			j.cross_torch = cross_torch ? torch : NULL;
			push_job(a, &v, &n, &cap, &j);
		}
		if (n > before)
			continue;
		for (size_t t = 0; t < wn.n_tags && !wants; t++)
			if (plat_ok[t])
				wants = tag_wants(a, &wn.tags[t]);
		base.result = WHEELTEST_SKIP;
		base.reason = excluded ? "not selected by --python"
		                       : arena_printf(a, "needs %s: not on this machine", wants);
		push_job(a, &v, &n, &cap, &base);
	}
	*jobs = v;
	*n_jobs = n;
	return ok;
}

/* ---- running ---- */

struct run_ctx {
	const struct wheeltest_opts *o;
	struct wheeltest_job *jobs;
	size_t *runnable;         /* the indices of the jobs not skipped, in order */
	const char *root;         /* temp dir holding one dir per job */
	const char *path_env;     /* the parent's PATH */
	struct strv pip_sources;  /* --no-index / --find-links X ... */
	struct arena *job_arenas; /* one per job: results live there until copied */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Keeps the last n lines of text. */
static const char *tail_lines(struct arena *a, const char *text, size_t n)
{
	size_t len = strlen(text);
	while (len && text[len - 1] == '\n')
		len--;
	size_t i = len, lines = 0;
	while (i > 0) {
		if (text[i - 1] == '\n' && ++lines == n)
			break;
		i--;
	}
	if (i == 0)
		return arena_strndup(a, text, len);
	return arena_printf(a, "[... %zu bytes cut ...]\n%.*s", i, (int)(len - i), text + i);
}

static void collect_diag(void *user, const struct diag_msg *m)
{
	sb_printf(user, "cuwheel: %s%s%s\n", m->path ? m->path : "", m->path ? ": " : "", m->text);
}

/* Runs argv (capturing) and returns its exit status; 127 when it could not start. */
static int run_step(const char *const *argv, const char *cwd, const char *const *env,
                    struct strbuf *out)
{
	struct diag d = {collect_diag, out, 0, 0};
	struct os_run r = {.argv = argv, .cwd = cwd, .env = env, .capture = true};
	int st;
	if (!os_run(&d, &r, out, &st))
		return 127;
	return st;
}

/* Returns prefix followed by args, NULL-terminated. */
static const char *const *pip_argv(struct arena *a, const char *const *prefix, size_t n,
                                   const struct strv *args)
{
	const char **v = arena_calloc(a, n + args->n + 1, sizeof(*v));
	memcpy(v, prefix, n * sizeof(*v));
	memcpy(v + n, args->v, args->n * sizeof(*v));
	return v;
}

static void job_fail(struct arena *a, struct wheeltest_job *j, const char *step, int st,
                     const struct strbuf *out, size_t lines)
{
	j->result = WHEELTEST_FAIL;
	j->reason = step;
	j->exit_code = st;
	j->output = tail_lines(a, sb_str(out), lines);
}

/* Appends the wheel's Requires-Dist entries except torch's (as written, markers included) to
 * out (may be NULL); sets *torch_req (may be NULL) to torch's entry, or NULL. */
static void wheel_requires_except_torch(struct arena *a, const char *wheel, struct strv *out,
                                        const char **torch_req)
{
	if (torch_req)
		*torch_req = NULL;
	struct diag quiet = {0}; /* a wheel that cannot be read fails its pip install, loudly */
	struct zip_reader r = {0};
	if (!zip_reader_open(a, &quiet, wheel, NULL, &r))
		return;
	for (size_t i = 0; i < r.n_members; i++) {
		const char *n = r.members[i].name;
		const char *sl = strchr(n, '/');
		if (!sl || strcmp(sl, "/METADATA") != 0 || sl - n < 10 ||
		    strncmp(sl - 10, ".dist-info", 10) != 0)
			continue;
		char *text = NULL;
		size_t len = 0;
		if (!zip_reader_read(a, &quiet, &r, &r.members[i], 16u << 20, &text, &len))
			break;
		for (char *line = text; line && *line && *line != '\n';) {
			char *nl = strchr(line, '\n');
			size_t ll = nl ? (size_t)(nl - line) : strlen(line);
			static const char key[] = "Requires-Dist:";
			if (ll > sizeof(key) - 1 && !strncasecmp(line, key, sizeof(key) - 1)) {
				const char *v = line + sizeof(key) - 1;
				while (*v == ' ')
					v++;
				size_t vl = ll - (size_t)(v - line);
				while (vl && (v[vl - 1] == '\r' || v[vl - 1] == ' '))
					vl--;
				size_t nm =
				    strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				              "0123456789._-");
				bool is_torch = nm == 5 && !strncasecmp(v, "torch", 5);
				if (!is_torch && vl && out)
					strv_push(a, out, arena_strndup(a, v, vl));
				if (is_torch && torch_req)
					*torch_req = arena_strndup(a, v, vl);
			}
			line = nl ? nl + 1 : NULL;
		}
		break;
	}
	zip_reader_close(&r);
}

/* Returns the site-packages dir that holds py's torch (the parent of its package dir), or
 * NULL when py has none. */
static const char *torch_site_dir(struct arena *a, const struct interp *py)
{
	if (!py || !py->torch.present || !py->torch.include_dirs.n)
		return NULL;
	char *p = arena_strdup(a, py->torch.include_dirs.v[0]); /* <site>/torch/include */
	for (int up = 0; up < 2; up++) {
		char *sl = strrchr(p, '/');
		if (!sl || sl == p)
			return NULL;
		*sl = '\0';
	}
	return p;
}

/* One job while it runs: where it works, and what its steps printed. */
struct job_state {
	struct run_ctx *rc;
	struct wheeltest_job *j;
	struct arena *a;
	size_t lines; /* the output lines a failure keeps */
	char *venv, *work, *vpy;
	const char *torch_site; /* the build's torch, put on the venv's path; NULL: none */
	struct strbuf out;
};

/* Fails the job at step with exit status st and the output so far; returns false. */
static bool job_failed(struct job_state *jr, const char *step, int st)
{
	job_fail(jr->a, jr->j, step, st, &jr->out, jr->lines);
	return false;
}

/* The job's work dir and its venv (without pip), with the .pth that points at the build's
 * torch. Returns false when the job failed. */
static bool job_setup(struct job_state *jr)
{
	struct diag quiet = {0}; /* a job's failures are told in its own output (job_fail) */
	struct wheeltest_job *j = jr->j;
	if (!os_mkdir_p(&quiet, jr->work)) {
		sb_puts(&jr->out, "cannot create the work directory\n");
		return job_failed(jr, "setup", 1);
	}
	/* Another architecture's interpreter cannot start its own children here: the venv is
	 * written by hand, its python runs the interpreter under qemu-user. */
	if (j->qemu)
		return cross_venv_create(jr->a, jr->venv, j->qemu, j->py, &jr->out) ||
		       job_failed(jr, "venv", 1);
	/* A venv without pip takes a tenth of a second; ensurepip takes seconds. The base
	 * interpreter's pip installs into it with --python (pip >= 22.3). */
	const char *venv_argv[] = {j->py->path, "-m", "venv", "--without-pip", jr->venv, NULL};
	int st;
	if ((st = run_step(venv_argv, jr->work, NULL, &jr->out)) != 0)
		return job_failed(jr, "python -m venv", st);
	/* A torch cell is tested against the torch it was built with, not one pip downloads
	 * (1.6 GB a venv, or a failure offline): a .pth puts the site-packages dir holding the
	 * building interpreter's torch on the venv's path, after its own, so pip sees
	 * Requires-Dist: torch satisfied. [tool.cuwheel.test] torch = "index" turns it off. */
	jr->torch_site =
	    jr->rc->o->cfg->test.torch_from_index ? NULL : torch_site_dir(jr->a, j->py);
	if (!jr->torch_site)
		return true;
	char *pth =
	    arena_printf(jr->a, "%s/lib/python%d.%d%s/site-packages/_cuwheel_build_torch.pth",
	                 jr->venv, j->py->major, j->py->minor, j->py->freethreaded ? "t" : "");
	char *line = arena_printf(jr->a, "%s\n", jr->torch_site);
	if (!os_write_atomic(&quiet, pth, line, strlen(line), 0644)) {
		sb_puts(&jr->out, "cannot write the .pth that points at the build's torch\n");
		return job_failed(jr, "setup", 1);
	}
	return true;
}

/* pip's arguments after "pip", one strv a pip run, into steps[2]; returns their number. With
 * the build's torch, two steps: the wheel's other requirements and the test's (with their
 * dependencies), then the wheel itself with --no-deps, since pip would otherwise also want
 * every dependency of that torch (installed or not, it is not the test's business). */
static size_t job_pip_steps(struct job_state *jr, struct strv steps[2])
{
	struct arena *a = jr->a;
	const struct wheeltest_opts *o = jr->rc->o;
	size_t n_steps = 0;
	struct strv reqs = {0};
	if (jr->torch_site)
		wheel_requires_except_torch(a, jr->j->wheel, &reqs, NULL);
	for (size_t i = 0; i < o->cfg->test.requires.n; i++)
		strv_push(a, &reqs, o->cfg->test.requires.v[i]);
	if (jr->j->cross_torch)
		strv_push(a, &reqs, arena_printf(a, "torch==%s.*", jr->j->cross_torch));
	for (size_t k = 0; k < 2; k++) {
		bool deps_step = k == 0;
		if (deps_step && jr->torch_site && !reqs.n)
			continue;
		if (!deps_step && !jr->torch_site)
			break;
		struct strv *args = &steps[n_steps++];
		strv_push(a, args, "install");
		strv_push(a, args, "--disable-pip-version-check");
		strv_push(a, args, "--no-input");
		strv_push(a, args, "-q");
		for (size_t i = 0; i < jr->rc->pip_sources.n; i++)
			strv_push(a, args, jr->rc->pip_sources.v[i]);
		if (!deps_step)
			strv_push(a, args, "--no-deps");
		if (!deps_step || !jr->torch_site)
			strv_push(a, args, jr->j->wheel);
		for (size_t i = 0; deps_step && i < reqs.n; i++)
			strv_push(a, args, reqs.v[i]);
	}
	return n_steps;
}

static const char *const pip_env[] = {"PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_NO_INPUT=1",
                                      "PIP_REQUIRE_VIRTUALENV=0", NULL};

/* A cross job's install: this machine's pip (the first interpreter found that has one; the
 * target's cannot run pip at a usable speed under qemu) puts the wheel and the test's
 * requirements, as built for the target's tags, into the venv's site-packages. Returns false
 * when the job failed. */
static bool job_pip_cross(struct job_state *jr)
{
	struct arena *a = jr->a;
	const struct wheeltest_opts *o = jr->rc->o;
	struct strv steps[2] = {{0}};
	size_t n_steps = job_pip_steps(jr, steps);
	struct strv args = {0};
	for (size_t i = 0; i < steps[0].n; i++)
		strv_push(a, &args, steps[0].v[i]);
	cross_pip_options(a, &args, jr->venv, jr->j->py, jr->j->cross_platform);
	int st = 127;
	sb_reset(&jr->out);
	sb_puts(&jr->out, "no Python with pip on this machine to install for the target\n");
	for (size_t i = 0; n_steps && i < o->ds->n_pythons; i++) {
		const struct interp *h = &o->ds->pythons[i];
		if (interp_ft(h))
			continue;
		const char *pre[] = {h->path, "-m", "pip"};
		sb_reset(&jr->out);
		st = run_step(pip_argv(a, pre, 3, &args), jr->work, pip_env, &jr->out);
		if (st == 0 || !strstr(sb_str(&jr->out), "No module named pip"))
			break;
	}
	if (st != 0)
		return job_failed(jr, "pip install", st);
	/* Bytecode is an optimisation: its failure (a file of another Python's syntax) is not
	 * the test's. */
	const char *const *compile = cross_compile_argv(a, o->ds, jr->venv, jr->j->py);
	if (compile) {
		struct strbuf ignored = {0};
		run_step(compile, jr->work, NULL, &ignored);
		sb_release(&ignored);
	}
	return true;
}

/* Installs the wheel and the test's requirements into the venv: with the base interpreter's
 * pip, or with the venv's own where that pip cannot target another interpreter. Returns false
 * when the job failed. */
static bool job_pip_install(struct job_state *jr)
{
	if (jr->j->qemu)
		return job_pip_cross(jr);
	struct arena *a = jr->a;
	struct strv steps[2] = {{0}};
	size_t n_steps = job_pip_steps(jr, steps);
	const char *base_pip[] = {jr->j->py->path, "-m", "pip", "--python", jr->vpy};
	const char *venv_pip[] = {jr->vpy, "-m", "pip"};
	const char *const *pip = base_pip;
	size_t n_pip = 5;
	int st = 0;
	for (size_t k = 0; k < n_steps && st == 0; k++) {
		sb_reset(&jr->out);
		st = run_step(pip_argv(a, pip, n_pip, &steps[k]), jr->work, pip_env, &jr->out);
		const char *o_text = sb_str(&jr->out);
		if (st != 0 && pip == base_pip &&
		    (strstr(o_text, "no such option: --python") ||
		     strstr(o_text, "No module named pip"))) {
			/* The base pip cannot target another interpreter: give the venv its own
			 * pip. */
			const char *ensure[] = {jr->vpy, "-m", "ensurepip", "--default-pip", NULL};
			sb_reset(&jr->out);
			if ((st = run_step(ensure, jr->work, NULL, &jr->out)) != 0)
				return job_failed(jr, "python -m ensurepip", st);
			pip = venv_pip;
			n_pip = 3;
			sb_reset(&jr->out);
			st = run_step(pip_argv(a, pip, n_pip, &steps[k]), jr->work, pip_env,
			              &jr->out);
		}
	}
	if (st != 0)
		return job_failed(jr, "pip install", st);
	return true;
}

/* The environment of the import check and the test command: the venv first on PATH, no
 * Python settings of the parent's, and the project and wheel as variables. */
static const char *const *job_test_env(struct job_state *jr)
{
	struct arena *a = jr->a;
	const struct run_ctx *rc = jr->rc;
	const char *env[] = {arena_printf(a, "PATH=%s/bin%s%s", jr->venv, rc->path_env ? ":" : "",
	                                  rc->path_env ? rc->path_env : ""),
	                     arena_printf(a, "VIRTUAL_ENV=%s", jr->venv),
	                     "PYTHONHOME=", /* an empty value counts as unset for Python */
	                     "PYTHONPATH=",
	                     "PYTHONNOUSERSITE=1",
	                     arena_printf(a, TESTCMD_PROJECT_VAR "=%s", rc->o->cfg->project_dir),
	                     arena_printf(a, TESTCMD_WHEEL_VAR "=%s", jr->j->wheel),
	                     NULL};
	const char **v = arena_calloc(a, sizeof(env) / sizeof(*env), sizeof(*v));
	memcpy(v, env, sizeof(env));
	return v;
}

/* torch-compat: the modules are imported first, after torch, so that a wheel that does not
 * load with this torch fails there, with the loader's own words (undefined symbol). Returns
 * false when the job failed. */
static bool job_import(struct job_state *jr, const char *const *env)
{
	struct arena *a = jr->a;
	const struct config *cfg = jr->rc->o->cfg;
	struct strv imp = {0};
	strv_push(a, &imp, jr->vpy);
	strv_push(a, &imp, "-c");
	strv_push(a, &imp,
	          "import importlib, sys\nimport torch\n"
	          "for m in sys.argv[1:]:\n    importlib.import_module(m)\n");
	for (size_t i = 0; i < cfg->n_extensions; i++)
		if (cfg->extensions[i].module)
			strv_push(a, &imp, cfg->extensions[i].module);
	sb_reset(&jr->out);
	int st;
	if ((st = run_step(imp.v, jr->work, env, &jr->out)) != 0)
		return job_failed(jr, "import", st);
	return true;
}

/* The test command, in the work dir with env; passes the job when it exits 0. */
static void job_test_command(struct job_state *jr, const char *const *env)
{
	/* The paths reach the command as variables it reads, never as text the shell parses. */
	const char *why = NULL;
	char *cmd = wheeltest_expand_command(jr->a, jr->rc->o->cfg->test.command, &why);
	if (!cmd) {
		sb_reset(&jr->out);
		sb_puts(&jr->out, why);
		job_failed(jr, "test command", 2);
		return;
	}
	const char *sh[] = {"/bin/sh", "-c", cmd, NULL};
	sb_reset(&jr->out);
	int st;
	if ((st = run_step(sh, jr->work, env, &jr->out)) != 0) {
		job_failed(jr, "test command", st);
		return;
	}
	jr->j->result = WHEELTEST_PASS;
	jr->j->output =
	    tail_lines(jr->a, sb_str(&jr->out), 3); /* the summary ("49 passed in 3.1s") */
}

/* The job's steps in order: venv, pip install, the import check (torch-compat), the test
 * command; the first that fails ends it. */
static void job_steps(struct job_state *jr)
{
	const struct wheeltest_opts *o = jr->rc->o;
	if (!job_setup(jr) || !job_pip_install(jr))
		return;
	const char *const *env = job_test_env(jr);
	if (o->compat_torch && o->cfg->n_extensions) {
		if (!job_import(jr, env))
			return;
		if (!o->cfg->test.command) {
			jr->j->result = WHEELTEST_PASS;
			return;
		}
	}
	job_test_command(jr, env);
}

static void job_run(struct run_ctx *rc, size_t idx)
{
	const struct wheeltest_opts *o = rc->o;
	struct wheeltest_job *j = &rc->jobs[idx];
	struct arena *a = &rc->job_arenas[idx];
	double t0 = now_s();
	char *dir = arena_printf(a, "%s/%zu-%s", rc->root, idx, j->py_key);
	struct job_state jr = {.rc = rc,
	                       .j = j,
	                       .a = a,
	                       .lines = o->output_lines ? o->output_lines : 60,
	                       .venv = os_join(a, dir, "venv"),
	                       .work = os_join(a, dir, "work")};
	jr.vpy = arena_printf(a, "%s/bin/python", jr.venv);
	job_steps(&jr);
	sb_release(&jr.out);
	j->seconds = now_s() - t0;
	struct diag quiet = {0};
	if (o->keep_venvs)
		j->venv = jr.venv;
	else
		os_rm_rf(&quiet, dir);
}

const char *wheeltest_first_error(struct arena *a, const char *output)
{
	if (!output)
		return NULL;
	const char *sym = NULL, *exc = NULL, *last = NULL;
	size_t sym_n = 0, exc_n = 0, last_n = 0;
	for (const char *p = output; *p;) {
		size_t n = strcspn(p, "\n");
		const char *s = p;
		size_t m = n;
		while (m && (*s == ' ' || *s == '\t'))
			s++, m--;
		while (m && (s[m - 1] == ' ' || s[m - 1] == '\r'))
			m--;
		if (m) {
			last = s, last_n = m;
			/* "ImportError: .../_C.so: undefined symbol: _ZN3c10..." */
			if (!sym && memmem(s, m, "undefined symbol", 16))
				sym = s, sym_n = m;
			const char *colon = memchr(s, ':', m);
			size_t w = colon ? (size_t)(colon - s) : 0;
			if (w > 5 &&
			    (!memcmp(colon - 5, "Error", 5) || !memcmp(colon - 5, "ption", 5)) &&
			    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01234567"
			              "89_.") == w)
				exc = s, exc_n = m;
		}
		p += n + (p[n] == '\n');
	}
	const char *line = sym ? sym : exc ? exc : last;
	size_t len = sym ? sym_n : exc ? exc_n : last_n;
	if (!line)
		return NULL;
	/* A path in it (the test venv's, a temp dir) is cut to its file name: the line then
	 * reads the same for every run ("ImportError: _C.abi3.so: undefined symbol: ..."). */
	struct strbuf sb = {0};
	for (size_t i = 0; i < len;) {
		if (line[i] == '/' &&
		    (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\'' || line[i - 1] == '"')) {
			size_t e = i, base = i + 1;
			while (e < len && line[e] != ':' && line[e] != ' ' && line[e] != '\'' &&
			       line[e] != '"') {
				if (line[e] == '/')
					base = e + 1;
				e++;
			}
			sb_add(&sb, line + base, e - base);
			i = e;
			continue;
		}
		sb_putc(&sb, line[i++]);
	}
	return sb_to_arena(&sb, a);
}

/* pool_fn: runs the k-th runnable job. */
static void job_take(void *ctx, size_t k)
{
	struct run_ctx *rc = ctx;
	job_run(rc, rc->runnable[k]);
}

/* pool_fn: reports the k-th runnable job done (one report at a time). */
static void job_done(void *ctx, size_t k)
{
	struct run_ctx *rc = ctx;
	if (rc->o->on_done)
		rc->o->on_done(rc->o->user, &rc->jobs[rc->runnable[k]]);
}

static void add_find_links(struct arena *a, struct strv *out, const char *base, const char *dir)
{
	strv_push(a, out, "--find-links");
	strv_push(a, out, dir[0] == '/' ? dir : os_join(a, base, dir));
}

bool wheeltest_run(struct arena *a, struct diag *d, const struct wheeltest_opts *o,
                   struct wheeltest_job *jobs, size_t n_jobs)
{
	struct run_ctx rc = {.o = o, .jobs = jobs};
	size_t runnable = 0;
	for (size_t i = 0; i < n_jobs; i++)
		runnable += jobs[i].result != WHEELTEST_SKIP;
	if (!runnable)
		return true;
	if (!o->cfg || (!o->cfg->test.command && !o->compat_torch)) {
		diag_msg(d, DIAG_ERROR, "the project has no test command");
		return false;
	}

	const char *tmp = env_nonempty(o->env, "TMPDIR");
	char *root = arena_printf(a, "%s/cuwheel-test-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		diag_errno(d, root, "cannot create a temporary directory");
		return false;
	}
	rc.root = root;
	rc.path_env = env_value(o->env, "PATH");

	/* Local find-links dirs replace the index unless the environment names one. */
	size_t n_links = (o->find_links ? o->find_links->n : 0) + o->cfg->test.find_links.n;
	if (n_links && !env_nonempty(o->env, "PIP_INDEX_URL") &&
	    !env_nonempty(o->env, "PIP_EXTRA_INDEX_URL"))
		strv_push(a, &rc.pip_sources, "--no-index");
	for (size_t i = 0; i < o->cfg->test.find_links.n; i++)
		add_find_links(a, &rc.pip_sources, o->cfg->project_dir,
		               o->cfg->test.find_links.v[i]);
	char *cwd = os_abspath(a, ".");
	for (size_t i = 0; o->find_links && i < o->find_links->n; i++)
		add_find_links(a, &rc.pip_sources, cwd, o->find_links->v[i]);

	rc.job_arenas = arena_calloc(a, n_jobs, sizeof(*rc.job_arenas));
	rc.runnable = arena_calloc(a, runnable, sizeof(*rc.runnable));
	for (size_t i = 0, k = 0; i < n_jobs; i++)
		if (jobs[i].result != WHEELTEST_SKIP)
			rc.runnable[k++] = i;
	size_t nthreads = o->jobs > 0 ? (size_t)o->jobs : (size_t)os_cpu_count();
	pool_run_each(runnable, nthreads, job_take, job_done, &rc);

	/* Results move into the caller's arena; the per-job arenas go. */
	for (size_t i = 0; i < n_jobs; i++) {
		struct wheeltest_job *j = &jobs[i];
		if (j->result == WHEELTEST_SKIP)
			continue;
		if (j->reason)
			j->reason = arena_strdup(a, j->reason);
		if (j->output)
			j->output = arena_strdup(a, j->output);
		if (j->venv)
			j->venv = arena_strdup(a, j->venv);
		arena_free(&rc.job_arenas[i]);
	}
	if (!o->keep_venvs) {
		struct diag quiet = {0};
		if (!os_rm_rf(&quiet, root))
			diag_path(d, DIAG_WARNING, root,
			          "cannot remove the test venvs; delete this directory by hand");
	}
	return true;
}
