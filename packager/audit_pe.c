/* audit_pe.c: the Windows half of the audit: for every PE member (.pyd, .dll) of a wheel, where
 * each imported DLL will come from when Python loads it (Windows itself, the MSVC runtime,
 * Python, a declared dependency, the wheel), and the "DLL load failed" a user would see when it
 * comes from nowhere; the machine; the PyInit_ export and the python3X.dll a .pyd links to; the
 * limited API and torch's stable ABI for the modules and the DLLs they load. */
#include <ctype.h>
#include <string.h>

#include "packager/audit_int.h"

/* DLLs every Windows 10+ machine has: the KnownDLLs registry list, the UCRT and the rest of
 * System32 that extensions commonly import (matched case-insensitively; api-ms-win-* and
 * ext-ms-win-* API sets are matched by prefix). */
static const char *const windows_dlls[] = {
    "advapi32.dll", "bcrypt.dll",   "cfgmgr32.dll", "clbcatq.dll",  "combase.dll",
    "comctl32.dll", "comdlg32.dll", "crypt32.dll",  "d3d11.dll",    "d3d12.dll",
    "dbghelp.dll",  "dwmapi.dll",   "dxgi.dll",     "gdi32.dll",    "gdiplus.dll",
    "imagehlp.dll", "imm32.dll",    "iphlpapi.dll", "kernel32.dll", "kernelbase.dll",
    "msctf.dll",    "msvcrt.dll",   "normaliz.dll", "nsi.dll",      "ntdll.dll",
    "ole32.dll",    "oleaut32.dll", "opengl32.dll", "powrprof.dll", "psapi.dll",
    "rpcrt4.dll",   "sechost.dll",  "secur32.dll",  "setupapi.dll", "shcore.dll",
    "shell32.dll",  "shlwapi.dll",  "ucrtbase.dll", "user32.dll",   "userenv.dll",
    "uxtheme.dll",  "version.dll",  "winmm.dll",    "wintrust.dll", "wldap32.dll",
    "ws2_32.dll",   "wsock32.dll",  "wtsapi32.dll",
};

/* The Visual C++ 2015-2022 runtime. CPython's installers ship vcruntime140.dll and
 * vcruntime140_1.dll beside python.exe; the rest come with the redistributable only. */
static const char *const msvc_python[] = {"vcruntime140.dll", "vcruntime140_1.dll"};
static const char *const msvc_redist[] = {
    "msvcp140.dll",
    "msvcp140_1.dll",
    "msvcp140_2.dll",
    "msvcp140_atomic_wait.dll",
    "msvcp140_codecvt_ids.dll",
    "concrt140.dll",
    "vcomp140.dll",
    "vccorlib140.dll",
};
#define MSVC_REDIST "the Microsoft Visual C++ 2015-2022 Redistributable (x64, 14.x)"

/* CUDA toolkit DLL name prefixes (cudart64_12.dll, nvrtc64_120_0.dll) and their PyPI package
 * (nvidia-<pkg>, whose Windows wheels keep them in nvidia/<dir>/bin). */
static const struct {
	const char *prefix, *pkg;
} cuda_dlls[] = {
    {"cudart64_", "cuda-runtime"},
    {"cublaslt64_", "cublas"},
    {"cublas64_", "cublas"},
    {"cufftw64_", "cufft"},
    {"cufft64_", "cufft"},
    {"curand64_", "curand"},
    {"cusparse64_", "cusparse"},
    {"cusolvermg64_", "cusolver"},
    {"cusolver64_", "cusolver"},
    {"nvrtc-builtins64_", "cuda-nvrtc"},
    {"nvrtc64_", "cuda-nvrtc"},
    {"nvjitlink_", "nvjitlink"},
    {"cudnn", "cudnn"},
    {"nvtoolsext64_", "nvtx"},
    {"cupti64_", "cuda-cupti"},
    {"nvjpeg64_", "nvjpeg"},
    {"npp", "npp"},
};

static bool ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
	return *a == *b;
}

static bool istarts(const char *s, const char *p)
{
	for (; *p; s++, p++)
		if (tolower((unsigned char)*s) != tolower((unsigned char)*p))
			return false;
	return true;
}

static bool iends(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);
	return n >= k && ieq(s + n - k, suf);
}

static bool in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ieq(name, list[i]))
			return true;
	return false;
}

#define IN(name, list) in_list(name, list, sizeof list / sizeof list[0])

void audit_scan_pe(struct audit_ctx *c, size_t i, const void *data, size_t len)
{
	struct audit_member *m = &c->members[i];
	const char *err;
	if (pe_read_mem(c->a, data, len, &m->pe, &err))
		m->is_pe = true;
	else
		audit_add(c, AUDIT_ERROR, "pe-unreadable", m->zm->name, NULL,
		          "looks like a PE image but cannot be read: %s", err);
}

/* The member's directory ("pkg/" or "") and base name. */
static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The index of the member that is dll in the directory of member, or n_members: Python loads
 * extension modules with LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR, so that directory is searched (and
 * no other of the wheel's). Names compare without case, as NTFS does. */
static size_t beside_index(const struct audit_ctx *c, const char *member, const char *dll)
{
	size_t dir = (size_t)(base_of(member) - member);
	for (size_t i = 0; i < c->n_members; i++) {
		const char *n = c->members[i].zm->name;
		if ((size_t)(base_of(n) - n) == dir && strncmp(n, member, dir) == 0 &&
		    ieq(base_of(n), dll))
			return i;
	}
	return c->n_members;
}

/* True when the wheel ships dll in the directory of member (beside_index). */
static bool bundled_beside(struct audit_ctx *c, const char *member, const char *dll)
{
	return beside_index(c, member, dll) < c->n_members;
}

/* The extension module a .pyd member defines: "_C" for _C.cp312-win_amd64.pyd or _C.pyd; the
 * tag between the dots in *tag ("cp312-win_amd64" or ""). NULL when member is no .pyd. */
static const char *pyd_module(struct audit_ctx *c, const char *member, const char **tag)
{
	const char *base = base_of(member);
	if (!iends(base, ".pyd"))
		return NULL;
	const char *dot = strchr(base, '.');
	size_t blen = strlen(base);
	const char *end = base + blen - 4;
	*tag = dot < end ? arena_strndup(c->a, dot + 1, (size_t)(end - dot - 1)) : "";
	return arena_strndup(c->a, base, (size_t)(dot - base));
}

/* The pythonXY.dll the wheel's tags allow ("python312.dll"), or NULL for abi3/none. */
static bool python_dll_ok(struct audit_ctx *c, const char *dll, const char **want)
{
	*want = NULL;
	bool any = false;
	for (size_t i = 0; i < c->wn.n_tags; i++) {
		const char *abi = c->wn.tags[i].abi, *flags;
		int major, minor;
		struct python_tag py;
		if (strcmp(abi, "abi3") == 0) {
			*want = "python3.dll";
			any |= ieq(dll, "python3.dll");
		} else if (tag_abi_parse(abi, &major, &minor, &flags) && major == 3) {
			char *w = arena_printf(c->a, "python%d%d%s.dll", major, minor,
			                       flags[0] == 't' ? "t" : "");
			*want = w;
			/* A version-specific module may use the limited API too. */
			any |= ieq(dll, w) || ieq(dll, "python3.dll");
		} else if (tag_python_parse(c->wn.tags[i].python, &py) && py.kind == 'c' &&
		           py.major == 3 && strcmp(abi, "none") == 0) {
			any |= ieq(dll, "python3.dll");
		}
	}
	return any;
}

static struct audit_lib *lib_note(struct audit_ctx *c, size_t *cap, const char *dll,
                                  const char *member, const char *provider, bool excluded)
{
	struct audit_result *r = c->r;
	for (size_t i = 0; i < r->n_libs; i++)
		if (ieq(r->libs[i].soname, dll))
			return &r->libs[i];
	if (r->n_libs == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		r->libs = arena_realloc(c->a, r->libs, *cap, nc, sizeof *r->libs);
		*cap = nc;
	}
	struct audit_lib *l = &r->libs[r->n_libs++];
	*l = (struct audit_lib){
	    .soname = dll, .needed_by = member, .provider = provider, .excluded = excluded};
	return l;
}

/* Returns the declared nvidia-<pkg>[-cuN] requirement, or NULL. */
static const char *nvidia_req(struct audit_ctx *c, const char *pkg)
{
	char *want = arena_printf(c->a, "nvidia-%s", pkg);
	size_t n = strlen(want);
	for (size_t i = 0; i < c->requires.n; i++) {
		const char *r = c->requires.v[i];
		if (strncmp(r, want, n) == 0 && (r[n] == '\0' || strncmp(r + n, "-cu", 3) == 0))
			return r;
	}
	return NULL;
}

/* What the user sees when Python cannot load the module that (indirectly) needs dll. */
static const char *load_error(struct audit_ctx *c, const char *module)
{
	return arena_printf(c->a,
	                    "ImportError: DLL load failed while importing %s: The specified "
	                    "module could not be found.",
	                    module ? module : "<module>");
}

/* Classifies one imported DLL of member; delayed imports fail at first call, not at load. */
static void check_dll(struct audit_ctx *c, size_t *cap, const char *member, const char *module,
                      const char *dll, bool delayed)
{
	if (bundled_beside(c, member, dll))
		return;
	if (istarts(dll, "api-ms-win-") || istarts(dll, "ext-ms-win-") || IN(dll, windows_dlls)) {
		lib_note(c, cap, dll, member, "windows", true);
		return;
	}
	if (ieq(dll, "nvcuda.dll") || ieq(dll, "nvml.dll")) {
		lib_note(c, cap, dll, member, "driver", true);
		return;
	}
	if (IN(dll, msvc_python)) {
		lib_note(c, cap, dll, member, "python (CPython ships it)", true);
		return;
	}
	if (IN(dll, msvc_redist)) {
		bool torch = strv_contains(&c->requires, "torch");
		lib_note(c, cap, dll, member, torch ? "torch" : MSVC_REDIST, true);
		if (!torch)
			audit_add(c, AUDIT_NOTE, "msvc-runtime", member,
			          "link the C++ runtime statically (/MT) or bundle the DLL beside "
			          "the module to need nothing",
			          "needs %s from " MSVC_REDIST
			          "; CPython does not ship it, so machines without the "
			          "redistributable fail with: %s",
			          dll, load_error(c, module));
		return;
	}
	if (audit_is_python_dll(dll)) {
		const char *want;
		if (c->name_ok && !python_dll_ok(c, dll, &want))
			audit_add(
			    c, AUDIT_ERROR, "pe-python-dll", member,
			    want ? arena_printf(c->a,
			                        "link against %s (its import library "
			                        "from the Python the wheel is tagged for)",
			                        want)
			         : NULL,
			    "imports %s, which the Python the wheel is tagged for (%s) does not "
			    "have: %s",
			    dll, c->wn.abi, load_error(c, module));
		else
			lib_note(c, cap, dll, member, "python", true);
		return;
	}
	const char *provider = NULL, *pkg = NULL;
	for (size_t i = 0; i < sizeof cuda_dlls / sizeof cuda_dlls[0]; i++)
		if (istarts(dll, cuda_dlls[i].prefix)) {
			pkg = cuda_dlls[i].pkg;
			break;
		}
	bool torch_dll = audit_is_torch_dll(dll);
	if ((pkg || torch_dll) && strv_contains(&c->requires, "torch"))
		provider = "torch";
	else if (pkg)
		provider = nvidia_req(c, pkg);
	if (provider) {
		lib_note(c, cap, dll, member, provider, true);
		if (strcmp(provider, "torch") != 0)
			audit_add(c, AUDIT_NOTE, "pe-dll-directory", member, NULL,
			          "needs %s from %s: the package must add that package's bin "
			          "directory with os.add_dll_directory() before importing %s",
			          dll, provider, module ? module : "it");
		return;
	}
	lib_note(c, cap, dll, member, NULL, false);
	const char *hint =
	    pkg && strcmp(pkg, "cuda-runtime") == 0
	        ? "link the CUDA runtime statically (cudart_static.lib, cudart = \"static\"), or "
	          "declare torch / nvidia-cuda-runtime as a dependency"
	    : pkg       ? arena_printf(c->a,
	                               "declare torch or nvidia-%s as a dependency, or bundle %s "
	                                     "beside the module",
	                               pkg, dll)
	    : torch_dll ? "add torch to [project] dependencies"
	                : arena_printf(c->a,
	                               "bundle %s beside the module (in the same directory) "
	                               "or link it statically",
	                               dll);
	if (delayed)
		audit_add(c, AUDIT_WARNING, "pe-delay-dll-missing", member, hint,
		          "delay-loads %s, which is not in the wheel, not part of Windows and not "
		          "provided by a declared dependency: the import works, the first call "
		          "into it raises an exception",
		          dll);
	else
		audit_add(c, AUDIT_ERROR, torch_dll ? "torch-unprovided" : "pe-dll-missing", member,
		          hint,
		          "imports %s, which is not in the wheel, not part of Windows and not "
		          "provided by a declared dependency; a user would see: %s",
		          dll, load_error(c, module));
}

/* The machine a platform tag wants ("amd64" for win_amd64), or NULL when it is no Windows
 * tag. */
static const char *tag_arch(struct audit_ctx *c, const char *plat)
{
	const char *arch;
	return tag_platform_os(c->a, plat, &arch) == TAG_OS_WINDOWS ? arch : NULL;
}

static const char *machine_text(struct audit_ctx *c, const struct pe_info *pe)
{
	return pe->arch ? pe->arch : arena_printf(c->a, "machine 0x%04x", (unsigned)pe->machine);
}

/* The .pyd's own checks: PyInit_<module> (unless it is a library loaded by path), its tag
 * against the wheel's. */
static void check_pyd(struct audit_ctx *c, const struct audit_member *m, const char *mod,
                      const char *tag)
{
	const char *member = m->zm->name;
	const char *want = arena_printf(c->a, "PyInit_%s", mod);
	/* A library its package loads by path (opts->libraries) needs no PyInit_. */
	if (!audit_is_library(c, member, mod) && !strv_contains(&m->pe.exports, want)) {
		const char *other = NULL;
		for (size_t i = 0; i < m->pe.exports.n && !other; i++)
			if (strncmp(m->pe.exports.v[i], "PyInit_", 7) == 0)
				other = m->pe.exports.v[i];
		const char *define = arena_printf(c->a,
		                                  "define the module with PyMODINIT_FUNC %s(void) "
		                                  "(MSVC: link with /EXPORT:%s)",
		                                  want, want);
		audit_add(c, AUDIT_ERROR, other ? "pyinit-mismatch" : "pyinit-missing", member,
		          other ? define : audit_pyinit_hint(c, member, mod, define),
		          "exports no %s%s%s: 'import %s' fails with: ImportError: dynamic module "
		          "does not define module export function (%s)",
		          want, other ? ", only " : "", other ? other : "", mod, want);
	}
	if (!c->name_ok || !*tag)
		return;
	/* "cp312-win_amd64": the interpreter and the platform must match the wheel's tags. */
	const char *abi, *plat;
	tag_pyd_suffix_split(c->a, tag, &abi, &plat);
	bool abi_ok = false, plat_ok = false;
	for (size_t i = 0; i < c->wn.n_tags; i++) {
		abi_ok |= strcmp(c->wn.tags[i].abi, abi) == 0;
		plat_ok |= plat && strcmp(c->wn.tags[i].platform, plat) == 0;
	}
	if (!abi_ok)
		audit_add(c, AUDIT_ERROR, "ext-python-abi", member,
		          "build the module with the Python the wheel is tagged for",
		          "module is built for %s (%s) but the wheel's ABI tag is %s", abi, tag,
		          c->wn.abi);
	if (plat && !plat_ok)
		audit_add(c, AUDIT_ERROR, "ext-platform", member, NULL,
		          "suffix says %s but the wheel is tagged %s", plat,
		          c->wn.n_tags ? c->wn.tags[0].platform : "?");
}

/* The module of a .pyd that imports the DLL member (what the user imports when it fails), or
 * NULL. */
static const char *importer_module(struct audit_ctx *c, const char *member)
{
	const char *dll = base_of(member);
	for (size_t i = 0; i < c->n_members; i++) {
		const struct audit_member *m = &c->members[i];
		const char *tag;
		if (!m->is_pe)
			continue;
		const char *mod = pyd_module(c, m->zm->name, &tag);
		for (size_t j = 0; mod && j < m->pe.imports.n; j++)
			if (ieq(m->pe.imports.v[j], dll))
				return mod;
	}
	return NULL;
}

/* True when the member's image imports anything from a python3*.dll. */
static bool imports_python(const struct pe_info *pe)
{
	for (size_t j = 0; j < pe->imports.n; j++)
		if (audit_is_python_dll(pe->imports.v[j]))
			return true;
	for (size_t j = 0; j < pe->delay.n; j++)
		if (audit_is_python_dll(pe->delay.v[j]))
			return true;
	return false;
}

/* The ABI promises of the modules (the limited API in an abi3 wheel, torch's stable ABI with
 * --torch-abi stable) for every .pyd, every DLL of the wheel a .pyd reaches through its
 * imports and delay-loaded imports (each found beside its importer, transitively), and every
 * DLL of the wheel that imports from a python3*.dll: a helper DLL the module loads breaks the
 * promise as surely as the module would. */
static void check_abi(struct audit_ctx *c)
{
	bool limited = false, stable = c->opts->torch_stable;
	for (size_t i = 0; c->name_ok && i < c->wn.n_tags; i++)
		limited |= strcmp(c->wn.tags[i].abi, "abi3") == 0;
	if (!limited && !stable)
		return;
	size_t n = c->n_members, qn = 0;
	char *reached = arena_calloc(c->a, n + 1, 1); /* 1: a module, 2: loaded by one */
	size_t *queue = arena_calloc(c->a, n + 1, sizeof *queue);
	for (size_t i = 0; i < n; i++) {
		const char *tag;
		if (c->members[i].is_pe && pyd_module(c, c->members[i].zm->name, &tag))
			reached[i] = 1, queue[qn++] = i;
	}
	for (size_t q = 0; q < qn; q++) {
		const struct audit_member *m = &c->members[queue[q]];
		const struct strv *dlls[] = {&m->pe.imports, &m->pe.delay};
		for (size_t k = 0; k < 2; k++)
			for (size_t j = 0; j < dlls[k]->n; j++) {
				size_t d = beside_index(c, m->zm->name, dlls[k]->v[j]);
				if (d < n && c->members[d].is_pe && !reached[d])
					reached[d] = 2, queue[qn++] = d;
			}
	}
	for (size_t i = 0; i < n; i++) {
		const struct audit_member *m = &c->members[i];
		if (!m->is_pe || (!reached[i] && !imports_python(&m->pe)))
			continue;
		if (limited)
			audit_check_limited_api(c, m, reached[i] == 1);
		if (stable)
			audit_check_torch_stable(c, m, reached[i] == 1);
	}
}

void audit_check_pes(struct audit_ctx *c)
{
	struct audit_result *r = c->r;
	size_t cap = r->n_libs, n_pe = 0;
	for (size_t i = 0; i < c->n_members; i++)
		n_pe += c->members[i].is_pe;
	if (!n_pe)
		return;
	struct audit_elf *all = arena_calloc(c->a, r->n_elfs + n_pe, sizeof *all);
	if (r->n_elfs)
		memcpy(all, r->elfs, r->n_elfs * sizeof *all);
	r->elfs = all;
	const char *want_arch = NULL;
	for (size_t i = 0; c->name_ok && i < c->wn.n_tags && !want_arch; i++)
		want_arch = tag_arch(c, c->wn.tags[i].platform);
	for (size_t i = 0; i < c->n_members; i++) {
		const struct audit_member *m = &c->members[i];
		if (!m->is_pe)
			continue;
		const char *member = m->zm->name, *tag = "";
		const char *mod = pyd_module(c, member, &tag);
		const char *user_mod = mod ? mod : importer_module(c, member);
		struct audit_elf *ae = &r->elfs[r->n_elfs++];
		ae->member = member;
		ae->arch = m->pe.arch;
		ae->module = mod;
		for (size_t j = 0; j < m->pe.imports.n; j++)
			strv_push(c->a, &ae->needed, m->pe.imports.v[j]);
		for (size_t j = 0; j < m->pe.delay.n; j++)
			strv_push(c->a, &ae->needed,
			          arena_printf(c->a, "%s (delay-loaded)", m->pe.delay.v[j]));
		if (!r->arch && m->pe.arch)
			r->arch = m->pe.arch;
		if (c->name_ok && !want_arch)
			audit_add(
			    c, AUDIT_ERROR, "platform-arch", member, "tag the wheel win_amd64",
			    "a Windows %s image in a wheel tagged %s", machine_text(c, &m->pe),
			    c->wn.n_tags ? c->wn.tags[0].platform : "?");
		else if (want_arch && (!m->pe.arch || strcmp(m->pe.arch, want_arch) != 0))
			audit_add(
			    c, AUDIT_ERROR, "pe-machine", member,
			    "build it with the x64 toolchain (vcvars64 / x86_64-w64-mingw32)",
			    "built for %s but the wheel is win_%s: Windows refuses it with: "
			    "ImportError: DLL load failed while importing %s: %%1 is not a valid "
			    "Win32 application.",
			    machine_text(c, &m->pe), want_arch, user_mod ? user_mod : "<module>");
		if (mod)
			check_pyd(c, m, mod, tag);
		for (size_t j = 0; j < m->pe.imports.n; j++)
			check_dll(c, &cap, member, user_mod, m->pe.imports.v[j], false);
		for (size_t j = 0; j < m->pe.delay.n; j++)
			check_dll(c, &cap, member, user_mod, m->pe.delay.v[j], true);
	}
	check_abi(c);
	if (want_arch)
		r->platform_tag = arena_printf(c->a, "win_%s", want_arch);
	r->policy = "windows";
}
