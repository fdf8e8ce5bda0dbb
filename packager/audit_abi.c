/* audit_abi.c: the ABI promises an extension module makes by its name and its build: a stable-ABI
 * (.abi3.so) module imports only CPython's limited API of its baseline and does not link
 * libtorch_python; a module built for torch's stable ABI references no torch C++ symbol. */
#include <stdio.h>
#include <string.h>

#include "packager/audit_int.h"
#include "packager/limited_api.h"

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* The baseline CPython 3.x of an abi3 wheel: its lowest cp3X python tag (cp310-abi3: 10), or -1. */
static int abi3_baseline(const struct audit_ctx *c)
{
	int best = -1;
	for (size_t i = 0; i < c->wn.n_tags; i++) {
		struct python_tag py;
		if (tag_python_parse(c->wn.tags[i].python, &py) && py.kind == 'c' &&
		    py.major == 3 && py.minor >= 0 && (best < 0 || py.minor < best))
			best = py.minor;
	}
	return best;
}

/* True for a symbol in CPython's namespace (Py*, _Py*): what a module imports from libpython. */
static bool cpython_symbol(const char *s)
{
	return (s[0] == 'P' && s[1] == 'y') || starts(s, "_Py");
}

void audit_check_limited_api(struct audit_ctx *c, const struct audit_member *m)
{
	const char *member = m->zm->name;
	const struct elf_info *e = &m->elf;
	int base = abi3_baseline(c);
	for (size_t i = 0; i < e->needed.n; i++)
		if (starts(e->needed.v[i], "libtorch_python"))
			audit_add(
			    c, AUDIT_ERROR, "abi3-torch-python", member,
			    "register the ops with TORCH_LIBRARY and give the module a limited-API "
			    "PyInit_ instead of pybind11 bindings (torch's py_limited_api rule)",
			    "a stable-ABI (.abi3.so) module links %s, which is built for one "
			    "Python: the wheel would load only on the Python it was built with",
			    e->needed.v[i]);
	size_t reported = 0, more = 0;
	for (size_t i = 0; i < e->n_undefs; i++) {
		const char *s = e->undefs[i].name;
		if (!cpython_symbol(s))
			continue;
		const struct limited_api_name *l = limited_api_find(s);
		const char *why = NULL;
		if (!l)
			why = "is not part of CPython's limited API";
		else if (base >= 0 && l->minor > base)
			why = arena_printf(
			    c->a,
			    "joined the limited API in CPython 3.%d, after this wheel's "
			    "baseline 3.%d",
			    l->minor, base);
		if (!why)
			continue;
		if (reported++ >= 8) {
			more++;
			continue;
		}
		audit_add(c, AUDIT_ERROR, "limited-api", member,
		          "compile with -DPy_LIMITED_API set to the baseline (the build does) and "
		          "use only the limited API, or build per-Python wheels",
		          "a stable-ABI (.abi3.so) module imports %s, which %s: the module fails "
		          "to load (or misbehaves) on other Pythons",
		          s, why);
	}
	if (more)
		audit_add(c, AUDIT_ERROR, "limited-api", member, NULL,
		          "and %zu more CPython symbols outside the limited API", more);
}

/* The namespace of a mangled C++ name (_ZN3c10..., _ZNK2at..., _ZTIN5torch...), "" when the
 * name is not mangled or not nested. */
static const char *mangled_namespace(struct arena *a, const char *s)
{
	if (!starts(s, "_Z"))
		return "";
	s += 2;
	if (*s == 'T' && (s[1] == 'V' || s[1] == 'I' || s[1] == 'S'))
		s += 2; /* vtable, typeinfo, typeinfo name */
	if (*s != 'N')
		return "";
	s++;
	while (*s == 'K' || *s == 'V' || *s == 'r')
		s++; /* const/volatile/restrict member functions */
	size_t len = 0;
	while (*s >= '0' && *s <= '9' && len < 1000)
		len = len * 10 + (size_t)(*s++ - '0');
	if (!len || strlen(s) < len)
		return "";
	return arena_strndup(a, s, len);
}

void audit_check_torch_stable(struct audit_ctx *c, const struct audit_member *m)
{
	static const char *const unstable[] = {"c10", "at", "torch", "caffe2", "pybind11"};
	const char *member = m->zm->name;
	const struct elf_info *e = &m->elf;
	for (size_t i = 0; i < e->needed.n; i++)
		if (starts(e->needed.v[i], "libtorch_python"))
			audit_add(c, AUDIT_ERROR, "torch-unstable-abi", member, NULL,
			          "a module built for torch's stable ABI links %s, whose C++ API "
			          "changes with every torch release",
			          e->needed.v[i]);
	size_t reported = 0, more = 0;
	for (size_t i = 0; i < e->n_undefs; i++) {
		const char *s = e->undefs[i].name;
		const char *ns = mangled_namespace(c->a, s);
		bool bad = starts(s, "THP");
		for (size_t k = 0; k < sizeof unstable / sizeof *unstable && !bad; k++)
			bad = strcmp(ns, unstable[k]) == 0;
		if (!bad)
			continue;
		if (reported++ >= 8) {
			more++;
			continue;
		}
		audit_add(c, AUDIT_ERROR, "torch-unstable-abi", member,
		          "use torch/csrc/stable/ and torch/headeronly/ only (their C shim, "
		          "aoti_torch_* and torch_*, is what stays stable across torch releases)",
		          "a module built for torch's stable ABI references %s%s%s, a symbol of "
		          "torch's C++ API that may change or vanish in the next torch release",
		          s, *ns ? " in namespace " : "", ns);
	}
	if (more)
		audit_add(c, AUDIT_ERROR, "torch-unstable-abi", member, NULL,
		          "and %zu more torch C++ symbols", more);
}
