/* audit_abi.c: the ABI promises an extension module makes by its name and its build: a stable-ABI
 * (.abi3.so, or .pyd in an abi3 wheel) module imports only CPython's limited API of its baseline
 * and does not link torch_python; a module built for torch's stable ABI references no torch C++
 * symbol. The same holds for the libraries it loads (ELF and PE alike). */
#include <ctype.h>
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

/* Case-insensitive prefix test (PE DLL names compare without case). */
static bool istarts(const char *s, const char *p)
{
	for (; *p; s++, p++)
		if (tolower((unsigned char)*s) != tolower((unsigned char)*p))
			return false;
	return true;
}

/* DLLs of a PyTorch install (torch/lib), which `import torch` puts on the DLL search path. */
static const char *const torch_dlls[] = {
    "c10.dll",
    "c10_cuda.dll",
    "torch.dll",
    "torch_cpu.dll",
    "torch_cuda.dll",
    "torch_python.dll",
    "torch_global_deps.dll",
    "shm.dll",
    "fbgemm.dll",
    "asmjit.dll",
    "libiomp5md.dll",
    "uv.dll",
};

static bool ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
	return *a == *b;
}

bool audit_is_torch_dll(const char *dll)
{
	for (size_t i = 0; i < sizeof torch_dlls / sizeof *torch_dlls; i++)
		if (ieq(dll, torch_dlls[i]))
			return true;
	return false;
}

bool audit_is_python_dll(const char *dll)
{
	if (!istarts(dll, "python3"))
		return false;
	const char *p = dll + 7;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == 't')
		p++;
	return ieq(p, ".dll");
}

/* True for torch's Python bindings library: libtorch_python.so, torch_python.dll. */
static bool is_torch_python(const char *lib)
{
	return starts(lib, "libtorch_python") || istarts(lib, "torch_python.");
}

/* What the ABI checks look at in one member: the libraries it links (DT_NEEDED; a PE image's
 * imported and delay-loaded DLLs) and the symbols it imports, each with the library it comes
 * from (from.v[i]; "" for ELF, whose undefined symbols name none). */
struct abi_imports {
	struct strv libs, syms, from;
};

static void abi_imports(struct audit_ctx *c, const struct audit_member *m, struct abi_imports *o)
{
	*o = (struct abi_imports){0};
	if (m->is_elf) {
		for (size_t i = 0; i < m->elf.needed.n; i++)
			strv_push(c->a, &o->libs, m->elf.needed.v[i]);
		for (size_t i = 0; i < m->elf.n_undefs; i++) {
			strv_push(c->a, &o->syms, m->elf.undefs[i].name);
			strv_push(c->a, &o->from, "");
		}
		return;
	}
	const struct strv *dlls[] = {&m->pe.imports, &m->pe.delay};
	const struct strv *names[] = {m->pe.import_names, m->pe.delay_names};
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < dlls[k]->n; i++) {
			strv_push(c->a, &o->libs, dlls[k]->v[i]);
			for (size_t j = 0; names[k] && j < names[k][i].n; j++) {
				strv_push(c->a, &o->syms, names[k][i].v[j]);
				strv_push(c->a, &o->from, dlls[k]->v[i]);
			}
		}
}

void audit_check_limited_api(struct audit_ctx *c, const struct audit_member *m, bool module)
{
	const char *member = m->zm->name;
	const char *who =
	    module ? "a stable-ABI (abi3) module" : "a library in a stable-ABI (abi3) wheel";
	struct abi_imports im;
	abi_imports(c, m, &im);
	int base = abi3_baseline(c);
	for (size_t i = 0; i < im.libs.n; i++)
		if (is_torch_python(im.libs.v[i]))
			audit_add(
			    c, AUDIT_ERROR, "abi3-torch-python", member,
			    "register the ops with TORCH_LIBRARY and give the module a limited-API "
			    "PyInit_ instead of pybind11 bindings (torch's py_limited_api rule)",
			    "%s links %s, which is built for one Python: the wheel would load only "
			    "on "
			    "the Python it was built with",
			    who, im.libs.v[i]);
	size_t reported = 0, more = 0;
	for (size_t i = 0; i < im.syms.n; i++) {
		const char *s = im.syms.v[i], *from = im.from.v[i];
		/* A PE image names the DLL: only python3*.dll's names are CPython's. */
		if (!cpython_symbol(s) || (*from && !audit_is_python_dll(from)))
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
		          "%s imports %s%s%s, which %s: the wheel fails to load (or misbehaves) on "
		          "other Pythons",
		          who, s, *from ? " from " : "", from, why);
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

/* The outermost namespace of an MSVC-decorated name whose qualification is plain identifiers
 * (?empty@at@@..., ??0Tensor@at@@... for a constructor, ?warn@Warning@c10@@...); "" for any
 * other name (templates and back-references are not followed). */
static const char *msvc_namespace(struct arena *a, const char *s)
{
	if (s[0] != '?')
		return "";
	s++;
	if (*s == '?') { /* a special name: ??0 constructor, ??1 destructor, ??_7 vftable */
		s++;
		if (*s == '_')
			s++;
		if (!*s || *s == 'R') /* ??_R RTTI descriptors: a type follows, not a scope */
			return "";
		s++;
	} else {
		while (*s && *s != '@')
			s++;
		if (*s++ != '@')
			return "";
	}
	const char *last = NULL;
	size_t len = 0;
	while (*s && *s != '@') {
		const char *b = s;
		while (*s == '_' || (*s >= '0' && *s <= '9') ||
		       ((*s | 32) >= 'a' && (*s | 32) <= 'z'))
			s++;
		if (s == b || *b <= '9' || *s != '@')
			return ""; /* a template, a back-reference or no identifier */
		last = b, len = (size_t)(s - b);
		s++;
	}
	return *s == '@' && last ? arena_strndup(a, last, len) : "";
}

void audit_check_torch_stable(struct audit_ctx *c, const struct audit_member *m, bool module)
{
	static const char *const unstable[] = {"c10", "at", "torch", "caffe2", "pybind11"};
	const char *member = m->zm->name;
	const char *who = module ? "a module built for torch's stable ABI"
	                         : "a library in a wheel built for torch's stable ABI";
	struct abi_imports im;
	abi_imports(c, m, &im);
	for (size_t i = 0; i < im.libs.n; i++)
		if (is_torch_python(im.libs.v[i]))
			audit_add(c, AUDIT_ERROR, "torch-unstable-abi", member, NULL,
			          "%s links %s, whose C++ API changes with every torch release",
			          who, im.libs.v[i]);
	size_t reported = 0, more = 0;
	for (size_t i = 0; i < im.syms.n; i++) {
		const char *s = im.syms.v[i], *from = im.from.v[i];
		const char *ns = s[0] == '?' ? msvc_namespace(c->a, s) : mangled_namespace(c->a, s);
		/* A C++ name from one of torch's DLLs is torch's C++ API whatever its scope. */
		bool bad = starts(s, "THP") ||
		           (*from && audit_is_torch_dll(from) && (s[0] == '?' || starts(s, "_Z")));
		for (size_t k = 0; k < sizeof unstable / sizeof *unstable && !bad; k++)
			bad = strcmp(ns, unstable[k]) == 0;
		if (!bad)
			continue;
		if (reported++ >= 8) {
			more++;
			continue;
		}
		audit_add(
		    c, AUDIT_ERROR, "torch-unstable-abi", member,
		    "use torch/csrc/stable/ and torch/headeronly/ only (their C shim, "
		    "aoti_torch_* and torch_*, is what stays stable across torch releases)",
		    "%s references %s%s%s%s%s, a symbol of torch's C++ API that may change or "
		    "vanish in the next torch release",
		    who, s, *ns ? " in namespace " : "", ns, *from ? " from " : "", from);
	}
	if (more)
		audit_add(c, AUDIT_ERROR, "torch-unstable-abi", member, NULL,
		          "and %zu more torch C++ symbols", more);
}
