/* matrix.c: expands the axes into cells, applies include/exclude and build/skip/--only, filters
 * the arch list per toolkit, and decides what this machine can build. */
#include "matrix/matrix.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/strbuf.h"
#include "standards/platform.h"
#include "standards/tags.h"
#include "standards/version.h"

/* CPython minor versions considered when the python axis is absent (then filtered by
 * requires-python); fixed so that a plan does not depend on what this machine has. */
static const char *const default_pythons[] = {"3.9", "3.10", "3.11", "3.12", "3.13", "3.14"};

/* Returns this machine's wheel platform tag ("linux_x86_64"). */
static const char *matrix_host_platform(struct arena *a)
{
	struct utsname u;
	if (uname(&u) != 0)
		return "linux_x86_64";
	return arena_printf(a, "linux_%s", u.machine);
}

static char *nodot(struct arena *a, const char *s)
{
	struct strbuf sb = {0};
	for (const char *p = s; p && *p; p++)
		if (*p != '.')
			sb_putc(&sb, *p);
	return sb_to_arena(&sb, a);
}

char *matrix_local_label(struct arena *a, const char *tmpl, const char *python, const char *cuda,
                         const char *torch)
{
	struct strbuf sb = {0};
	for (const char *p = tmpl; *p; p++) {
		if (*p != '{') {
			sb_putc(&sb, *p);
			continue;
		}
		const char *e = strchr(p, '}');
		if (!e)
			break;
		size_t n = (size_t)(e - p - 1);
		const char *f = p + 1;
		const char *val = "";
		if (n == 4 && !strncmp(f, "cuda", 4))
			val = cuda;
		else if (n == 10 && !strncmp(f, "cuda_nodot", 10))
			val = nodot(a, cuda);
		else if (n == 10 && !strncmp(f, "cuda_major", 10))
			val = arena_strndup(a, cuda, strcspn(cuda, "."));
		else if (n == 5 && !strncmp(f, "torch", 5))
			val = torch ? torch : "";
		else if (n == 11 && !strncmp(f, "torch_nodot", 11))
			val = torch ? nodot(a, torch) : "";
		else if (n == 6 && !strncmp(f, "python", 6))
			val = python;
		else if (n == 12 && !strncmp(f, "python_nodot", 12))
			val = nodot(a, python);
		sb_puts(&sb, val ? val : "");
		p = e;
	}
	return sb_to_arena(&sb, a);
}

static bool glob_match(const char *pat, const char *s)
{
	return pat == NULL || fnmatch(pat, s, 0) == 0;
}

static bool entry_matches(const struct matrix_entry *e, const struct cell *c)
{
	return glob_match(e->python, c->python) && glob_match(e->cuda, c->cuda) &&
	       (!e->torch || (c->torch && glob_match(e->torch, c->torch))) &&
	       glob_match(e->platform, c->platform);
}

static int parse_minor(const char *py, bool *ft)
{
	int minor = atoi(py + 2);
	*ft = py[strlen(py) - 1] == 't';
	return minor;
}

static bool python_allowed(struct arena *a, const struct config *cfg, const char *py)
{
	if (!cfg->project.requires_python)
		return true;
	struct pep440 v;
	const char *err = NULL;
	char *ver = arena_strndup(a, py, strspn(py, "0123456789."));
	if (!pep440_parse(a, ver, &v, &err))
		return false;
	return pep440_satisfies(a, &v, cfg->project.requires_python, &err);
}

/* The oldest CPython 3.x that requires-python admits: the abi3 baseline. */
static const char *abi3_minimum(struct arena *a, const struct config *cfg)
{
	for (int minor = 2; minor < 40; minor++) {
		char *py = arena_printf(a, "3.%d", minor);
		if (python_allowed(a, cfg, py))
			return py;
	}
	return "3.2";
}

/* True when this machine builds platform's cells with a cross compiler (an x86_64 Linux host,
 * a platform the cross lock pins). */
static bool is_cross(const struct plan *p, const struct matrix_opts *o, const char *platform)
{
	return strcmp(platform, p->host_platform) != 0 &&
	       !strcmp(p->host_platform, "linux_x86_64") && o &&
	       cross_target_find(o->cross, platform);
}

/* The toolkit plan of cuda for platform: the host's own, or (cross) one of its own. */
static size_t toolkit_index(struct arena *a, struct plan *p, const char *cuda, const char *cross)
{
	for (size_t i = 0; i < p->n_toolkits; i++)
		if (!strcmp(p->toolkits[i].cuda, cuda) &&
		    (cross ? p->toolkits[i].platform && !strcmp(p->toolkits[i].platform, cross)
		           : !p->toolkits[i].platform))
			return i;
	p->toolkits =
	    arena_realloc(a, p->toolkits, p->n_toolkits, p->n_toolkits + 1, sizeof(*p->toolkits));
	struct toolkit_plan *tp = &p->toolkits[p->n_toolkits];
	memset(tp, 0, sizeof(*tp));
	tp->cuda = cuda;
	tp->platform = cross;
	if (cross)
		tp->tk = p->ds ? discover_cross_toolkit(a, p->ds, cuda, cross, &tp->cross_missing)
		               : NULL;
	else
		tp->tk = p->ds ? discover_toolkit(p->ds, cuda) : NULL;
	return p->n_toolkits++;
}

static void filter_archs(struct arena *a, const struct config *cfg, struct toolkit_plan *tp)
{
	const struct kernels_cfg *k = &cfg->kernels;
	tp->archs = arena_calloc(a, k->n_archs ? k->n_archs : 1, sizeof(*tp->archs));
	tp->dropped = arena_calloc(a, k->n_archs ? k->n_archs : 1, sizeof(*tp->dropped));
	if (!tp->tk)
		return;
	char *range = NULL;
	if (tp->tk->n_sm)
		range = arena_printf(a, "sm_%d-sm_%d", tp->tk->sm[0], tp->tk->sm[tp->tk->n_sm - 1]);
	for (size_t i = 0; i < k->n_archs; i++) {
		const struct arch *ar = &k->archs[i];
		int sm = ar->major * 10 + ar->minor;
		bool has_ptx = false;
		for (size_t j = 0; j < tp->tk->n_compute; j++)
			has_ptx |= tp->tk->compute[j] == sm;
		if (!toolkit_has_sm(tp->tk, sm)) {
			tp->dropped[tp->n_dropped].arch = *ar;
			tp->dropped[tp->n_dropped].why = arena_printf(
			    a, "CUDA %s cannot generate %s (it supports %s)", tp->tk->version,
			    cuda_arch_name(a, ar, false), range ? range : "no targets");
			tp->n_dropped++;
			continue;
		}
		if (ar->suffix == 'f' &&
		    (tp->tk->major < 12 || (tp->tk->major == 12 && tp->tk->minor < 9))) {
			tp->dropped[tp->n_dropped].arch = *ar;
			tp->dropped[tp->n_dropped].why = arena_printf(
			    a,
			    "CUDA %s cannot generate family targets such as %s (CUDA 12.9 and "
			    "later can)",
			    tp->tk->version, cuda_arch_name(a, ar, false));
			tp->n_dropped++;
			continue;
		}
		tp->archs[tp->n_archs] = *ar;
		if (ar->ptx && !has_ptx) {
			tp->archs[tp->n_archs].ptx = false;
			tp->dropped[tp->n_dropped].arch = *ar;
			tp->dropped[tp->n_dropped].why =
			    arena_printf(a, "CUDA %s cannot emit PTX for %s; SASS only",
			                 tp->tk->version, cuda_arch_name(a, ar, true));
			tp->n_dropped++;
		}
		tp->n_archs++;
	}
}

static void add_cell(struct arena *a, struct plan *p, size_t *cap, const char *python,
                     const char *cuda, const char *torch, const char *platform, bool abi3)
{
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct cell *c = &p->cells[i];
		if (!strcmp(c->python, python) && !strcmp(c->cuda, cuda) &&
		    !strcmp(c->platform, platform) && c->abi3 == abi3 &&
		    ((!c->torch && !torch) || (c->torch && torch && !strcmp(c->torch, torch))))
			return;
	}
	if (p->n_cells == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		p->cells = arena_realloc(a, p->cells, *cap, ncap, sizeof(*p->cells));
		*cap = ncap;
	}
	struct cell *c = &p->cells[p->n_cells++];
	c->python = python;
	c->cuda = cuda;
	c->torch = torch;
	c->platform = platform;
	c->abi3 = abi3;
}

/* True when the plan's cuda axis (its toolkits) holds "MAJOR.MINOR" cuda. */
static bool plan_has_cuda(const struct plan *p, const char *cuda)
{
	for (size_t i = 0; i < p->n_toolkits; i++)
		if (!strcmp(p->toolkits[i].cuda, cuda))
			return true;
	return false;
}

/* Pairs a torch cell's torch with its CUDA, by the CUDA that torch was built for (the probe's
 * torch.version.cuda, read from the cell's interpreter or, when that Python has no such torch,
 * from another Python's): a CUDA of another major is never paired (the wheel would load
 * torch's runtime of one major with kernels of another); of the same major, only torch's own
 * CUDA when the axis has it (pt26cu126 would name a torch build that the installed one is
 * not). Returns why not, or NULL: paired, or nothing known to decide by. */
static const char *torch_unpaired(struct arena *a, const struct plan *p, const struct cell *c,
                                  const struct interp *py)
{
	if (!c->torch || !p->ds)
		return NULL;
	const struct interp *ref = py && py->torch.present && py->torch.version_short &&
	                                   !strcmp(py->torch.version_short, c->torch)
	                               ? py
	                               : discover_torch(p->ds, c->torch);
	const char *tc = ref ? ref->torch.cuda : NULL;
	if (!tc)
		return NULL; /* unknown, or a CPU build: describe_cell says why not */
	int tmaj = 0, tmin = 0, cmaj = 0, cmin = 0;
	if (sscanf(tc, "%d.%d", &tmaj, &tmin) != 2 || sscanf(c->cuda, "%d.%d", &cmaj, &cmin) != 2)
		return NULL;
	const char *mm = arena_printf(a, "%d.%d", tmaj, tmin);
	if (tmaj == cmaj && (tmin == cmin || !plan_has_cuda(p, mm)))
		return NULL;
	const char *what =
	    arena_printf(a, "torch %s (%s) is built for CUDA %s", c->torch, ref->torch.version, tc);
	if (tmaj != cmaj)
		return arena_printf(
		    a,
		    "not paired: %s; a CUDA %s build would load CUDA %d's runtime "
		    "from torch with CUDA %d kernels%s",
		    what, c->cuda, tmaj, cmaj,
		    plan_has_cuda(p, mm)
		        ? arena_printf(a, " (its cell is the cu%d%d one)", tmaj, tmin)
		        : "");
	return arena_printf(a,
	                    "not paired: %s, which the cuda axis has: +pt%scu%d%d would name a "
	                    "torch build that is not the one installed",
	                    what, nodot(a, c->torch), cmaj, cmin);
}

/* The arm64 CPython part a cell of Python c->python takes (the first from it on for abi3),
 * NULL when the lock pins none; PINNED (may be NULL) gets the pinned minors, comma-separated. */
static const struct cross_part *cross_python_part(const struct cross_target *t,
                                                  const struct cell *c, struct strbuf *pinned)
{
	const struct cross_part *pp = NULL;
	for (size_t i = 0; t && i < t->n_parts; i++) {
		const struct cross_part *q = &t->parts[i];
		if (q->kind != CROSS_PYTHON)
			continue;
		if (pinned)
			sb_printf(pinned, "%s%s", pinned->len ? ", " : "", q->set.minor);
		if (!pp && (c->abi3 ? version_dotted_cmp(q->set.minor, c->python) >= 0
		                    : !strcmp(q->set.minor, c->python)))
			pp = q;
	}
	return pp;
}

/* The cross parts a cell lacks besides the compiler and CUDA runtime: its torch wheel and the
 * Python it is for, or its Python headers; appended to NEED as `cuwheel cross install` takes
 * them, and to WHAT in words. The reason the cell cannot be built when the lock pins none goes
 * to c->why_not. */
static void cross_target_parts(struct arena *a, struct plan *p, const struct cross_target *t,
                               struct cell *c, struct strbuf *need, struct strbuf *what)
{
	if (c->torch) {
		if (discover_cross_torch(a, p->ds, c->python, c->abi3, c->platform, c->torch))
			return;
		const struct cross_part *tp = cross_torch_part(t, c->torch, c->python, c->abi3);
		if (tp) {
			sb_printf(need, " %s python-%s", tp->id, tp->python);
			sb_printf(what, "%storch %s for Python %s", what->len ? ", " : "",
			          tp->set.version, tp->python);
		} else
			c->why_not = arena_printf(
			    a, "the cross lock pins no %s torch %s wheel for Python %s%s",
			    c->platform, c->torch, c->python, c->abi3 ? " or newer" : "");
		return;
	}
	if (discover_cross_python(a, p->ds, c->python, c->abi3, c->platform))
		return;
	struct strbuf pinned = {0};
	const struct cross_part *pp = cross_python_part(t, c, &pinned);
	if (pp) {
		sb_printf(need, " python-%s", pp->set.minor);
		sb_printf(what, "%sPython %s headers", what->len ? ", " : "", pp->set.minor);
	} else
		c->why_not =
		    arena_printf(a,
		                 "no %s CPython %s headers: Debian has none for arm64 (the "
		                 "cross lock pins %s); the abi3 wheel covers it",
		                 c->platform, c->python, pinned.len ? pinned.buf : "none");
	sb_release(&pinned);
}

/* A torch cell of a platform this machine cross-builds, its parts installed: the target's
 * torch wheel must be for the toolkit's CUDA major. */
static void describe_cross_torch(struct arena *a, struct plan *p, struct cell *c)
{
	const struct interp *py =
	    discover_cross_torch(a, p->ds, c->python, c->abi3, c->platform, c->torch);
	if (!py->torch.cuda || strcspn(py->torch.cuda, ".") != strcspn(c->cuda, ".") ||
	    strncmp(py->torch.cuda, c->cuda, strcspn(c->cuda, ".")) != 0) {
		c->why_not =
		    arena_printf(a,
		                 "torch %s for %s was built for CUDA %s; a CUDA %s toolkit "
		                 "would not match its runtime (the CUDA majors must agree)",
		                 py->torch.version, c->platform,
		                 py->torch.cuda ? py->torch.cuda : "none", c->cuda);
		return;
	}
	c->py = py;
	c->buildable = true;
}

/* A cell of a platform this machine cross-builds (linux_aarch64 on x86_64): the host's
 * toolkit with the cross parts, and the target's Python headers (or torch wheel). A cell that
 * lacks parts names every one of them in one `cuwheel cross install` command. */
static void describe_cross_cell(struct arena *a, struct plan *p, const struct matrix_opts *o,
                                struct cell *c)
{
	const struct toolkit_plan *tp = &p->toolkits[c->toolkit];
	const struct cross_target *t = cross_target_find(o->cross, c->platform);
	if (!(p->ds && discover_toolkit(p->ds, c->cuda))) {
		c->why_not = arena_printf(a,
		                          "CUDA %s not installed: the %s cells use this machine's "
		                          "nvcc (cuwheel toolkit install %s)",
		                          c->cuda, c->platform, c->cuda);
		return;
	}
	if (!tp->tk && !cross_part_for(t, CROSS_CUDA, c->cuda)) {
		c->why_not = arena_printf(a, "the cross lock pins no %s CUDA %s runtime",
		                          c->platform, c->cuda);
		return;
	}
	if (tp->tk && tp->n_archs == 0) {
		c->why_not = arena_printf(a, "CUDA %s supports none of the requested archs (%s)",
		                          c->cuda, p->cfg->kernels.archs_text);
		return;
	}
	struct strbuf need = {0}, what = {0};
	if (!tp->tk) {
		sb_printf(&need, " gcc cuda-%s", c->cuda);
		sb_printf(&what, "the cross compiler, the CUDA %s runtime", c->cuda);
	}
	cross_target_parts(a, p, t, c, &need, &what);
	if (!c->why_not && need.len)
		c->why_not = arena_printf(a,
		                          "the %s cross parts are not installed (%s): `cuwheel "
		                          "build` provisions them (cuwheel cross install%s)",
		                          c->platform, what.buf, need.buf);
	sb_release(&need);
	sb_release(&what);
	if (c->why_not)
		return;
	if (c->torch) {
		describe_cross_torch(a, p, c);
		return;
	}
	c->py = discover_cross_python(a, p->ds, c->python, c->abi3, c->platform);
	c->buildable = true;
}

/* Fills the derived fields of a cell and decides whether this host can build it. */
static void describe_cell(struct arena *a, struct plan *p, const struct matrix_opts *o,
                          struct cell *c)
{
	const struct config *cfg = p->cfg;
	bool ft;
	int minor = parse_minor(c->python, &ft);
	c->py_tag = tag_python(a, 3, minor);
	c->abi_tag = c->abi3 ? "abi3" : tag_abi(a, 3, minor, ft);
	char *cu = nodot(a, c->cuda);
	char *pt = c->torch ? nodot(a, c->torch) : NULL;
	const char *pyid = ft ? arena_printf(a, "%st", c->py_tag) : c->py_tag;
	if (c->abi3 && c->torch && !c->torch_stable)
		c->id = arena_printf(a, "%s-abi3-pt%s-cu%s-%s", c->py_tag, pt, cu, c->platform);
	else if (c->abi3)
		c->id = arena_printf(a, "%s-abi3-cu%s-%s", c->py_tag, cu, c->platform);
	else if (c->torch_stable)
		c->id = arena_printf(a, "%s-cu%s-%s", pyid, cu, c->platform);
	else if (c->torch)
		c->id = arena_printf(a, "%s-pt%s-cu%s-%s", pyid, pt, cu, c->platform);
	else
		c->id = arena_printf(a, "%s-cu%s-%s", pyid, cu, c->platform);
	const char *tmpl = cfg->matrix.local_version;
	if (!tmpl) /* a stable-ABI wheel serves every later torch: no torch in its label */
		tmpl = c->torch && !c->torch_stable ? "pt{torch_nodot}cu{cuda_nodot}"
		                                    : "cu{cuda_nodot}";
	/* local-version = "" keeps the label written in [project].version, if any (config_check
	 * rejects a written label together with a stamped one). */
	c->local = tmpl[0] ? matrix_local_label(a, tmpl, c->python, c->cuda, c->torch)
	                   : cfg->project.version_local;
	c->version = c->local ? arena_printf(a, "%s+%s", cfg->project.version, c->local)
	                      : cfg->project.version;
	c->wheel = wheel_filename(a, cfg->project.name, c->version, NULL, c->py_tag, c->abi_tag,
	                          c->platform);
	bool cross = is_cross(p, o, c->platform);
	c->toolkit = toolkit_index(a, p, c->cuda, cross ? c->platform : NULL);

	c->unpaired = torch_unpaired(
	    a, p, c, p->ds ? discover_python_torch(p->ds, c->python, c->torch) : NULL);
	/* Why not: other OS first, then the toolchain, then the interpreter and torch. */
	c->buildable = false;
	if (cross) {
		describe_cross_cell(a, p, o, c);
		return;
	}
	if (strcmp(c->platform, p->host_platform) != 0) {
		if (platform_is_windows(c->platform))
			c->why_not =
			    "Windows cell: needs a Windows runner with MSVC (see cuwheel ci)";
		else
			c->why_not = arena_printf(a, "built on %s runners; this machine is %s",
			                          c->platform, p->host_platform);
		return;
	}
	const struct toolkit_plan *tp = &p->toolkits[c->toolkit];
	if (!tp->tk) {
		if (tp->provisionable)
			c->why_not = arena_printf(
			    a,
			    "CUDA %s not installed: `cuwheel build` provisions "
			    "it from %s (cuwheel toolkit install %s)",
			    c->cuda, tp->provision_source ? tp->provision_source : "PyPI", c->cuda);
		else
			c->why_not =
			    arena_printf(a, "CUDA %s toolkit not found on this machine", c->cuda);
		return;
	}
	if (tp->tk->host.error) {
		c->why_not = tp->tk->host.error;
		return;
	}
	if (tp->n_archs == 0) {
		c->why_not = arena_printf(a, "CUDA %s supports none of the requested archs (%s)",
		                          c->cuda, cfg->kernels.archs_text);
		return;
	}
	/* A torch cell takes the interpreter of its Python with its torch (a venv per torch). */
	const struct interp *py = p->ds ? discover_python_torch(p->ds, c->python, c->torch) : NULL;
	bool py_torch = py && (!c->torch || (py->torch.present && py->torch.version_short &&
	                                     !strcmp(py->torch.version_short, c->torch)));
	if (c->abi3 && !py_torch && p->ds) {
		/* Any interpreter at or above the baseline can compile a limited-API module (with
		 * the cell's torch, for a torch cell). */
		for (size_t i = p->ds->n_pythons; i-- > 0;) {
			const struct interp *q = &p->ds->pythons[i];
			if (!q->freethreaded && q->major == 3 && q->minor >= minor &&
			    (!c->torch || (q->torch.present && q->torch.version_short &&
			                   !strcmp(q->torch.version_short, c->torch)))) {
				py = q;
				break;
			}
		}
	}
	if (!py) {
		size_t len = strlen(c->python);
		char *base = arena_strndup(a, c->python, ft ? len - 1 : len);
		bool can = o && !c->abi3 && strv_contains(&o->python_provisionable, base);
		if (can && !ft && !c->torch)
			c->why_not = arena_printf(
			    a,
			    "Python %s not installed: `cuwheel build` provisions it from %s "
			    "(cuwheel python install %s)",
			    c->python, o->python_source ? o->python_source : "Debian", c->python);
		else if (can && ft)
			c->why_not = arena_printf(
			    a,
			    "Python %s not found on this machine, and `cuwheel python install` has "
			    "none (%s)",
			    c->python,
			    o->python_no_freethreaded ? o->python_no_freethreaded
			                              : "no free-threaded build is pinned");
		else
			c->why_not = arena_printf(a, "Python %s%s not found on this machine",
			                          c->python, c->abi3 ? " or newer" : "");
		return;
	}
	c->py = py;
	if (c->torch) {
		if (!py->torch.present) {
			c->why_not = arena_printf(
			    a,
			    "Python %s has no torch (%s): name a venv of Python %s with torch %s "
			    "in "
			    "[tool.cuwheel.pythons] or CUWHEEL_PYTHONS (examples/torchext/"
			    "setup-pythons --torch %s makes one)",
			    c->python, py->torch.error ? py->torch.error : "import torch failed",
			    c->python, c->torch, c->torch);
			return;
		}
		if (!py->torch.version_short || strcmp(py->torch.version_short, c->torch)) {
			c->why_not = arena_printf(
			    a,
			    "Python %s has torch %s, the cell wants %s (no "
			    "interpreter of Python %s with torch %s was found: "
			    "name its venv in [tool.cuwheel.pythons])",
			    c->python, py->torch.version, c->torch, c->python, c->torch);
			return;
		}
		if (py->torch.cuda && strcspn(py->torch.cuda, ".") == strcspn(c->cuda, ".") &&
		    strncmp(py->torch.cuda, c->cuda, strcspn(c->cuda, ".")) == 0) {
			/* same CUDA major: fine */
		} else {
			c->why_not = arena_printf(
			    a,
			    "torch %s was built for CUDA %s; a CUDA %s toolkit would not match "
			    "its runtime (the CUDA majors must agree)",
			    py->torch.version, py->torch.cuda ? py->torch.cuda : "none (CPU build)",
			    c->cuda);
			return;
		}
	}
	c->buildable = true;
}

static bool ext_kind_any(const struct config *cfg, enum ext_kind k)
{
	for (size_t i = 0; i < cfg->n_extensions; i++)
		if (cfg->extensions[i].kind == k)
			return true;
	return false;
}

/* Expands "13.*" against the toolkits discovery found; plain versions pass through. */
static int cmp_minor(const void *x, const void *y)
{
	return version_dotted_cmp(*(const char *const *)x, *(const char *const *)y);
}

/* Expands "13.*" against the toolkits discovery found and those cuwheel can provision; plain
 * versions pass through. Each glob's matches are sorted by version. */
static void expand_cuda(struct arena *a, const struct config *cfg, const struct discovery *ds,
                        const struct strv *provisionable, struct strv *out)
{
	struct strv pats = cfg->matrix.cuda;
	bool any = pats.n == 0;
	if (any) {
		pats = (struct strv){0};
		strv_push(a, &pats, "*");
	}
	for (size_t i = 0; i < pats.n; i++) {
		const char *v = pats.v[i];
		if (!strchr(v, '*')) {
			if (!strv_contains(out, v))
				strv_push(a, out, v);
			continue;
		}
		size_t first = out->n;
		for (size_t k = 0; ds && k < ds->n_toolkits; k++) {
			char *mm =
			    arena_printf(a, "%d.%d", ds->toolkits[k].major, ds->toolkits[k].minor);
			if (fnmatch(v, mm, 0) == 0 && !strv_contains(out, mm))
				strv_push(a, out, mm);
		}
		/* With no axis at all, only what is here: provisioning is asked for by a glob. */
		for (size_t k = 0; !any && provisionable && k < provisionable->n; k++) {
			const char *mm = provisionable->v[k];
			if (fnmatch(v, mm, 0) == 0 && !strv_contains(out, mm))
				strv_push(a, out, mm);
		}
		if (out->n - first > 1)
			qsort(out->v + first, out->n - first, sizeof(*out->v), cmp_minor);
	}
}

/* Selection: the config's build and skip globs, then --only. False + diagnostic when an --only
 * pattern names no cell (the other patterns still apply). */
static bool select_cells(struct arena *a, struct diag *d, struct plan *out,
                         const struct matrix_cfg *m, const struct matrix_opts *o)
{
	bool ok = true;
	for (size_t i = 0; i < out->n_cells; i++) {
		struct cell *c = &out->cells[i];
		c->selected = m->build.n == 0;
		for (size_t b = 0; b < m->build.n && !c->selected; b++)
			c->selected = fnmatch(m->build.v[b], c->id, 0) == 0;
		if (!c->selected)
			c->unselected_by = "not matched by build";
		if (c->unpaired) {
			c->selected = false;
			c->unselected_by = c->unpaired;
		}
		for (size_t s = 0; s < m->skip.n && c->selected; s++) {
			if (fnmatch(m->skip.v[s], c->id, 0) == 0) {
				c->selected = false;
				c->unselected_by = arena_printf(a, "skip = %s", m->skip.v[s]);
			}
		}
	}
	if (o && o->only.n) {
		for (size_t k = 0; k < o->only.n; k++) {
			bool any = false;
			for (size_t i = 0; i < out->n_cells; i++)
				any |= fnmatch(o->only.v[k], out->cells[i].id, 0) == 0;
			if (!any) {
				const char **ids = arena_calloc(a, out->n_cells + 1, sizeof(*ids));
				for (size_t i = 0; i < out->n_cells; i++)
					ids[i] = out->cells[i].id;
				out->only_unmatched = true;
				const char *close =
				    diag_did_you_mean(o->only.v[k], ids, out->n_cells);
				diag_path(d, DIAG_ERROR, "--only",
				          "'%s' names no cell of the matrix", o->only.v[k]);
				if (close)
					diag_msg(d, DIAG_HINT, "did you mean '%s'?", close);
				else
					diag_msg(d, DIAG_HINT,
					         "'cuwheel plan' lists the identifiers");
				ok = false;
			}
		}
		for (size_t i = 0; i < out->n_cells; i++) {
			struct cell *c = &out->cells[i];
			bool hit = false;
			for (size_t k = 0; k < o->only.n; k++)
				hit |= fnmatch(o->only.v[k], c->id, 0) == 0;
			if (!hit && c->selected) {
				c->selected = false;
				c->unselected_by = "not named by --only";
			}
		}
	}
	return ok;
}

/* Two cells writing one file name would overwrite each other's wheel in dist/: false +
 * diagnostic (and out->wheel_clash) for the first such pair. */
static bool check_wheel_clash(struct diag *d, struct plan *out)
{
	bool ok = true;
	for (size_t i = 0; i < out->n_cells; i++) {
		for (size_t j = 0; j < i; j++) {
			if (strcmp(out->cells[i].wheel, out->cells[j].wheel))
				continue;
			diag_msg(d, DIAG_ERROR, "cells %s and %s would both write %s",
			         out->cells[j].id, out->cells[i].id, out->cells[i].wheel);
			diag_msg(d, DIAG_HINT,
			         "the local-version template must tell the cells apart: "
			         "include %s",
			         strcmp(out->cells[i].cuda, out->cells[j].cuda) ? "{cuda_nodot}"
			         : (out->cells[i].torch && out->cells[j].torch &&
			            strcmp(out->cells[i].torch, out->cells[j].torch))
			             ? "{torch_nodot}"
			             : "the differing axis");
			out->wheel_clash = true;
			ok = false;
			break;
		}
		if (out->wheel_clash)
			break;
	}
	return ok;
}

bool matrix_expand(struct arena *a, struct diag *d, const struct config *cfg,
                   const struct discovery *ds, const struct matrix_opts *o, struct plan *out)
{
	memset(out, 0, sizeof(*out));
	out->cfg = cfg;
	out->ds = ds;
	out->host_platform = matrix_host_platform(a);
	const struct matrix_cfg *m = &cfg->matrix;

	struct strv pythons = {0}, cudas = {0};
	if (m->python.n) {
		pythons = m->python;
	} else {
		for (size_t i = 0; i < sizeof(default_pythons) / sizeof(*default_pythons); i++)
			if (python_allowed(a, cfg, default_pythons[i]))
				strv_push(a, &pythons, default_pythons[i]);
	}
	out->pythons = pythons;
	expand_cuda(a, cfg, ds, o ? &o->provisionable : NULL, &cudas);
	if (cudas.n == 0 && cfg->matrix.cuda.n == 0) {
		diag_msg(d, DIAG_ERROR,
		         "no cuda axis in [tool.cuwheel.matrix] and no CUDA toolkit "
		         "found on this machine");
		diag_msg(d, DIAG_HINT,
		         "set cuda = [\"13.0\"] in [tool.cuwheel.matrix], or see "
		         "'cuwheel doctor'");
		return false;
	}
	struct strv torches = m->torch;
	if (torches.n == 0)
		strv_push(a, &torches, NULL), torches.n = 1;
	bool abi3 = ext_kind_any(cfg, EXT_ABI3);
	bool stable = false;
	for (size_t i = 0; i < cfg->n_extensions; i++) {
		abi3 |= cfg->extensions[i].kind == EXT_TORCH && cfg->extensions[i].abi3;
		stable |= cfg->extensions[i].kind == EXT_TORCH && cfg->extensions[i].torch_stable;
	}
	const char *abi3_min = abi3 ? abi3_minimum(a, cfg) : NULL;
	if (stable && torches.n > 1) {
		/* Built once, against the oldest torch: the torch axis is what the wheel is tested
		 * with, not what it is built for. */
		const char *oldest = torches.v[0];
		for (size_t t = 1; t < torches.n; t++)
			if (version_dotted_cmp(torches.v[t], oldest) < 0)
				oldest = torches.v[t];
		torches = (struct strv){0};
		strv_push(a, &torches, oldest);
	}
	size_t first_cell = out->n_cells;

	size_t cap = 0;
	for (size_t pl = 0; pl < m->platform.n; pl++)
		for (size_t cu = 0; cu < cudas.n; cu++)
			for (size_t t = 0; t < torches.n; t++) {
				if (abi3)
					add_cell(a, out, &cap, abi3_min, cudas.v[cu], torches.v[t],
					         m->platform.v[pl], true);
				if (abi3 && !m->abi3_per_python)
					continue;
				for (size_t py = 0; py < pythons.n; py++)
					add_cell(a, out, &cap, pythons.v[py], cudas.v[cu],
					         torches.v[t], m->platform.v[pl], false);
			}
	for (size_t i = first_cell; i < out->n_cells; i++)
		out->cells[i].torch_stable = stable && out->cells[i].torch;
	/* As in GitHub Actions: exclude removes cells of the axes' product, then include adds
	 * its cells back (an included cell is never excluded). */
	size_t kept = 0;
	for (size_t i = 0; i < out->n_cells; i++) {
		bool excluded = false;
		for (size_t e = 0; e < m->n_exclude && !excluded; e++)
			excluded = entry_matches(&m->exclude[e], &out->cells[i]);
		if (!excluded)
			out->cells[kept++] = out->cells[i];
	}
	out->n_cells = kept;
	for (size_t i = 0; i < m->n_include; i++) {
		const struct matrix_entry *e = &m->include[i];
		add_cell(a, out, &cap, e->python, e->cuda, e->torch,
		         e->platform ? e->platform : m->platform.v[0], false);
	}

	for (size_t i = 0; i < out->n_cells; i++)
		toolkit_index(a, out, out->cells[i].cuda,
		              is_cross(out, o, out->cells[i].platform) ? out->cells[i].platform
		                                                       : NULL);
	for (size_t i = 0; i < out->n_toolkits; i++) {
		struct toolkit_plan *tp = &out->toolkits[i];
		tp->provisionable =
		    !tp->tk && o && !tp->platform && strv_contains(&o->provisionable, tp->cuda);
		for (size_t k = 0; tp->provisionable && k < o->provisionable.n; k++)
			if (!strcmp(o->provisionable.v[k], tp->cuda) && k < o->provision_sources.n)
				tp->provision_source = o->provision_sources.v[k];
		filter_archs(a, cfg, tp);
	}
	for (size_t i = 0; i < out->n_cells; i++)
		describe_cell(a, out, o, &out->cells[i]);

	bool ok = select_cells(a, d, out, m, o);
	ok &= check_wheel_clash(d, out);
	for (size_t i = 0; i < out->n_cells; i++) {
		struct cell *c = &out->cells[i];
		if (!c->selected)
			continue;
		out->n_selected++;
		if (c->buildable) {
			out->n_buildable++;
			out->toolkits[c->toolkit].used = true;
		}
	}
	return ok;
}
