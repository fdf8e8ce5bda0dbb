/* audit_elf.c: per-ELF checks: RPATH, where each DT_NEEDED comes from (the wheel, the system,
 * the CUDA driver, torch or the nvidia-* runtime packages), extension modules, CUDA archs. */
#include <string.h>

#include "packager/audit_int.h"
#include "packager/manylinux.h"

/* CUDA toolkit libraries and the nvidia-<package> that ships each on PyPI. */
static const struct {
	const char *prefix, *pkg;
} cuda_libs[] = {
    {"libcudart.so", "cuda-runtime"},
    {"libcublasLt.so", "cublas"},
    {"libcublas.so", "cublas"},
    {"libcufftw.so", "cufft"},
    {"libcufft.so", "cufft"},
    {"libcurand.so", "curand"},
    {"libcusparseLt.so", "cusparselt"},
    {"libcusparse.so", "cusparse"},
    {"libcusolverMg.so", "cusolver"},
    {"libcusolver.so", "cusolver"},
    {"libnvrtc-builtins.so", "cuda-nvrtc"},
    {"libnvrtc.so", "cuda-nvrtc"},
    {"libnvJitLink.so", "nvjitlink"},
    {"libcudnn", "cudnn"},
    {"libnccl.so", "nccl"},
    {"libnvToolsExt.so", "nvtx"},
    {"libcupti.so", "cuda-cupti"},
    {"libcufile.so", "cufile"},
    {"libnvjpeg.so", "nvjpeg"},
    {"libnpp", "npp"},
    {"libnvshmem", "nvshmem"},
    {"libnvperf", "cuda-cupti"},
};

static const char *const torch_libs[] = {"libc10", "libtorch", "libshm.so"};

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool ends(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);
	return n >= k && strcmp(s + n - k, suf) == 0;
}

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

bool audit_is_loader(const char *s)
{
	return starts(s, "ld-linux") || strcmp(s, "ld64.so.2") == 0 || strcmp(s, "ld64.so.1") == 0;
}

static bool is_origin(const char *e)
{
	return starts(e, "$ORIGIN") || starts(e, "${ORIGIN}");
}

/* Joins dir and rel and resolves "." and ".."; NULL when it climbs above the archive root. */
static char *norm_join(struct arena *a, const char *dir, const char *rel)
{
	char *s = arena_printf(a, "%s/%s", dir, rel);
	const char **parts = arena_calloc(a, strlen(s) + 1, sizeof *parts);
	size_t n = 0;
	for (char *tok = s, *next; tok; tok = next) {
		char *slash = strchr(tok, '/');
		next = slash ? slash + 1 : NULL;
		if (slash)
			*slash = '\0';
		if (!*tok || strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0) {
			if (n == 0)
				return NULL;
			n--;
			continue;
		}
		parts[n++] = tok;
	}
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++)
		sb_printf(&sb, "%s%s", i ? "/" : "", parts[i]);
	return sb_to_arena(&sb, a);
}

/* The wheel member soname resolves to through elf's $ORIGIN RPATH/RUNPATH entries (elf being
 * member's), or NULL when it is not bundled. */
static const char *audit_bundled_member(struct audit_ctx *c, const char *member,
                                        const struct elf_info *elf, const char *soname)
{
	const struct strv *paths = elf->runpath.n ? &elf->runpath : &elf->rpath;
	const char *slash = strrchr(member, '/');
	char *dir = slash ? arena_strndup(c->a, member, (size_t)(slash - member)) : "";
	for (size_t i = 0; i < paths->n; i++) {
		const char *e = paths->v[i];
		if (!is_origin(e))
			continue;
		const char *rest = e + (e[1] == '{' ? 9 : 7);
		char *p = norm_join(c->a, dir, arena_printf(c->a, "%s/%s", rest, soname));
		if (p && zip_reader_find(&c->zr, p))
			return p;
	}
	return NULL;
}

bool audit_bundled(struct audit_ctx *c, const char *member, const struct elf_info *elf,
                   const char *soname)
{
	return audit_bundled_member(c, member, elf, soname) != NULL;
}

/* The index of the ELF member named name, or n_members. */
static size_t elf_index(const struct audit_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->n_members; i++)
		if (c->members[i].is_elf && !strcmp(c->members[i].zm->name, name))
			return i;
	return c->n_members;
}

/* The ABI checks of the modules (limited API, torch's stable ABI) for every other ELF of the
 * wheel that a module reaches through DT_NEEDED within the wheel ($ORIGIN RPATH/RUNPATH), or
 * that imports CPython's symbols: a bundled helper the module loads breaks the promise as
 * surely as the module would. limited: the wheel has .abi3.so modules; stable: torch's. */
static void check_reached(struct audit_ctx *c, const bool *is_module, bool limited, bool stable)
{
	size_t n = c->n_members;
	char *reached = arena_calloc(c->a, n + 1, 1);
	size_t *queue = arena_calloc(c->a, n + 1, sizeof(*queue)), qn = 0;
	for (size_t i = 0; i < n; i++)
		if (is_module[i])
			reached[i] = 1, queue[qn++] = i;
	for (size_t q = 0; q < qn; q++) {
		const struct audit_member *m = &c->members[queue[q]];
		for (size_t j = 0; j < m->elf.needed.n; j++) {
			const char *p =
			    audit_bundled_member(c, m->zm->name, &m->elf, m->elf.needed.v[j]);
			size_t k = p ? elf_index(c, p) : n;
			if (k < n && !reached[k])
				reached[k] = 2, queue[qn++] = k;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct audit_member *m = &c->members[i];
		if (!m->is_elf || is_module[i])
			continue;
		bool imports_py = false;
		for (size_t k = 0; k < m->elf.n_undefs && !imports_py; k++) {
			const char *s = m->elf.undefs[k].name;
			imports_py = (s[0] == 'P' && s[1] == 'y') || starts(s, "_Py");
		}
		if (!reached[i] && !imports_py)
			continue;
		if (limited)
			audit_check_limited_api(c, m, false);
		if (stable)
			audit_check_torch_stable(c, m, false);
	}
}

void audit_scan_member(struct audit_ctx *c, size_t i, void *data, size_t len)
{
	struct audit_member *m = &c->members[i];
	if (m->scanned)
		return;
	m->scanned = true;
	if (!ends(m->zm->name, ".py") && pe_is_pe(data, len)) {
		audit_scan_pe(c, i, data, len);
		return;
	}
	if (ends(m->zm->name, ".py") || !elf_is_elf(data, len))
		return;
	const char *err;
	if (elf_read_mem(c->a, data, len, &m->elf, &err))
		m->is_elf = true;
	else
		audit_add(c, AUDIT_WARNING, "elf-unreadable", m->zm->name, NULL,
		          "looks like ELF but cannot be read: %s", err);
}

static void ignore_diag(void *user, const struct diag_msg *m)
{
	(void)user;
	(void)m;
}

void audit_read_elfs(struct audit_ctx *c)
{
	for (size_t i = 0; i < c->n_members; i++) {
		if (c->members[i].scanned || c->members[i].zm->is_dir)
			continue;
		struct arena tmp = {0};
		struct diag d = {.emit = ignore_diag};
		char *data;
		size_t len;
		if (zip_reader_read(&tmp, &d, &c->zr, c->members[i].zm,
		                    c->zr.limits.max_member_size, &data, &len))
			audit_scan_member(c, i, data, len);
		arena_free(&tmp);
	}
}

static bool requires(struct audit_ctx *c, const char *name)
{
	return strv_contains(&c->requires, name);
}

/* Returns the declared nvidia-<pkg>[-cuN] requirement, or NULL. */
static const char *nvidia_req(struct audit_ctx *c, const char *pkg)
{
	char *want = arena_printf(c->a, "nvidia-%s", pkg);
	size_t n = strlen(want);
	for (size_t i = 0; i < c->requires.n; i++) {
		const char *r = c->requires.v[i];
		if (strncmp(r, want, n) == 0 && (r[n] == '\0' || starts(r + n, "-cu")))
			return r;
	}
	return NULL;
}

static bool origin_nvidia_path(const struct elf_info *e)
{
	const struct strv *paths = e->runpath.n ? &e->runpath : &e->rpath;
	for (size_t i = 0; i < paths->n; i++)
		if (is_origin(paths->v[i]) && strstr(paths->v[i], "nvidia"))
			return true;
	return false;
}

static struct audit_lib *lib_add(struct audit_ctx *c, size_t *cap, const char *soname,
                                 const char *member)
{
	struct audit_result *r = c->r;
	for (size_t i = 0; i < r->n_libs; i++)
		if (strcmp(r->libs[i].soname, soname) == 0)
			return NULL;
	if (r->n_libs == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		r->libs = arena_realloc(c->a, r->libs, *cap, nc, sizeof *r->libs);
		*cap = nc;
	}
	struct audit_lib *l = &r->libs[r->n_libs++];
	l->soname = soname;
	l->needed_by = member;
	return l;
}

static const char *rpath_hint(const char *pkg, const char *soname)
{
	(void)soname;
	if (strcmp(pkg, "cuda-runtime") == 0)
		return "link with -Wl,-rpath,'$ORIGIN/../nvidia/cu13/lib' (CUDA 13) or "
		       "'$ORIGIN/../nvidia/cuda_runtime/lib' (CUDA 12), relative to the module";
	return "add an $ORIGIN-relative RPATH to the nvidia/*/lib directory of the package";
}

/* Classifies one DT_NEEDED that the wheel does not bundle. */
static void check_needed(struct audit_ctx *c, size_t *cap, const struct audit_member *m,
                         const char *soname, const struct ml_policy *any_wl)
{
	const char *member = m->zm->name;
	if (starts(soname, "libcuda.so") || starts(soname, "libnvidia-ml.so")) {
		struct audit_lib *l = lib_add(c, cap, soname, member);
		if (l) {
			l->provider = "driver";
			l->excluded = true;
		}
		return;
	}
	for (size_t i = 0; i < sizeof cuda_libs / sizeof cuda_libs[0]; i++) {
		if (!starts(soname, cuda_libs[i].prefix))
			continue;
		const char *pkg = cuda_libs[i].pkg;
		const char *nv = nvidia_req(c, pkg);
		struct audit_lib *l = lib_add(c, cap, soname, member);
		if (requires(c, "torch")) {
			if (l) {
				l->provider = "torch";
				l->excluded = true;
			}
		} else if (nv) {
			if (l) {
				l->provider = nv;
				l->excluded = true;
			}
			if (!origin_nvidia_path(&m->elf))
				audit_add(c, AUDIT_ERROR, "cuda-rpath", member,
				          rpath_hint(pkg, soname),
				          "needs %s from %s, but has no $ORIGIN-relative RPATH to "
				          "its nvidia/ directory, so the loader will not find it",
				          soname, nv);
		} else {
			if (l)
				l->excluded = false;
			audit_add(
			    c, AUDIT_ERROR,
			    strcmp(pkg, "cuda-runtime") == 0 ? "cuda-runtime-unprovided"
			                                     : "cuda-lib-unprovided",
			    member,
			    strcmp(pkg, "cuda-runtime") == 0
			        ? "link the CUDA runtime statically: cudart = \"static\" in "
			          "[tool.cuwheel.kernels] (or declare torch / nvidia-cuda-runtime "
			          "as a dependency)"
			        : arena_printf(c->a,
			                       "declare a dependency on torch or nvidia-%s "
			                       "(with an $ORIGIN RPATH), or link it statically",
			                       pkg),
			    "needs %s, but the wheel neither ships it nor depends on a package "
			    "that provides it (torch or nvidia-%s)",
			    soname, pkg);
		}
		return;
	}
	for (size_t i = 0; i < sizeof torch_libs / sizeof torch_libs[0]; i++) {
		if (!starts(soname, torch_libs[i]))
			continue;
		struct audit_lib *l = lib_add(c, cap, soname, member);
		if (requires(c, "torch")) {
			if (l) {
				l->provider = "torch";
				l->excluded = true;
			}
		} else {
			audit_add(
			    c, AUDIT_ERROR, "torch-unprovided", member,
			    "add torch to [project] dependencies",
			    "needs %s from PyTorch, but torch is not a dependency of the wheel",
			    soname);
		}
		return;
	}
	if (any_wl && manylinux_whitelisted(any_wl, soname)) {
		/* A system library some policy allows; the lowest policy may not (libmvec). */
		size_t np;
		const struct ml_policy *p = manylinux_policies(&np);
		const struct ml_policy *lowest = NULL;
		for (size_t i = 0; i < np; i++)
			if (p[i].priority > 0 && m->elf.arch &&
			    manylinux_arch(&p[i], m->elf.arch) &&
			    (!lowest || p[i].priority > lowest->priority))
				lowest = &p[i];
		if (lowest && !manylinux_whitelisted(lowest, soname)) {
			struct audit_lib *l = lib_add(c, cap, soname, member);
			if (l)
				l->provider = "system";
		}
		return;
	}
	struct audit_lib *l = lib_add(c, cap, soname, member);
	(void)l;
	audit_add(c, AUDIT_ERROR, "external-lib", member,
	          "ship it in the wheel next to the module with an $ORIGIN RPATH (what auditwheel "
	          "repair does), or link it statically",
	          "needs %s, which is not in the wheel and not a library any manylinux policy "
	          "allows",
	          soname);
}

/* Python's platform triplet for an ELF arch (the tail of EXT_SUFFIX). */
static const char *triplet_of(const char *arch)
{
	static const struct {
		const char *arch, *triplet;
	} t[] = {
	    {"x86_64", "x86_64-linux-gnu"},   {"aarch64", "aarch64-linux-gnu"},
	    {"i686", "i386-linux-gnu"},       {"ppc64le", "powerpc64le-linux-gnu"},
	    {"s390x", "s390x-linux-gnu"},     {"armv7l", "arm-linux-gnueabihf"},
	    {"riscv64", "riscv64-linux-gnu"}, {"loongarch64", "loongarch64-linux-gnu"},
	};
	for (size_t i = 0; arch && i < sizeof t / sizeof t[0]; i++)
		if (strcmp(t[i].arch, arch) == 0)
			return t[i].triplet;
	return NULL;
}

static bool wheel_has_abi(struct audit_ctx *c, const char *abi)
{
	for (size_t i = 0; i < c->wn.n_tags; i++)
		if (strcmp(c->wn.tags[i].abi, abi) == 0)
			return true;
	return false;
}

static bool std_symbol(const char *s)
{
	return strcmp(s, "_init") == 0 || strcmp(s, "_fini") == 0 || strcmp(s, "_edata") == 0 ||
	       strcmp(s, "_end") == 0 || strcmp(s, "__bss_start") == 0;
}

/* True when a mangled name is from torch's or pybind11's headers (c10::, at::, torch::,
 * pybind11::), or from libstdc++'s std:: (declared visibility("default") as a namespace). */
static bool from_torch_headers(const char *s)
{
	return strstr(s, "3c10") || strstr(s, "2at") || strstr(s, "5torch") ||
	       strstr(s, "8pybind11");
}
static bool from_std(const char *s)
{
	static const char *const pre[] = {"_ZSt", "_ZNSt", "_ZNKSt", "_ZTVSt", "_ZTISt", "_ZTSSt"};
	for (size_t i = 0; i < sizeof(pre) / sizeof(*pre); i++)
		if (starts(s, pre[i]))
			return true;
	return false;
}

/* The hint for a module exporting more than PyInit_: says where the symbols come from. Most
 * such exports of a torch extension are vague-linkage definitions instantiated from headers
 * whose classes or namespaces carry visibility("default") (c10::, torch::, std::), which
 * -fvisibility=hidden leaves exported; only a version script (or hidden-by-default headers)
 * removes them. */
static const char *exports_hint(struct audit_ctx *c, const struct elf_info *e, const char *want,
                                size_t extra)
{
	size_t vague = 0, torch = 0, std = 0;
	for (size_t i = 0; i < e->vague_exports.n; i++) {
		const char *s = e->vague_exports.v[i];
		if (std_symbol(s))
			continue;
		vague++;
		torch += from_torch_headers(s);
		std += !from_torch_headers(s) && from_std(s);
	}
	if (vague * 2 < extra)
		return "compile with -fvisibility=hidden (and -fvisibility-inlines-hidden for C++) "
		       "so only PyInit_ is exported";
	return arena_printf(
	    c->a,
	    "%zu of the %zu are weak or unique definitions (inline functions, template "
	    "instances, vtables, typeinfo) emitted from headers whose classes or namespaces are "
	    "declared visibility(\"default\"): %zu from torch/c10/ATen/pybind11, %zu from "
	    "libstdc++'s std::; -fvisibility=hidden (which cuwheel passes) cannot hide those. The "
	    "dynamic linker binds each to one copy, so they are harmless as long as every module "
	    "uses the same torch; to export %s alone, link with a version script "
	    "('{ global: %s; local: *; };' through ldflags = [\"-Wl,--version-script=/abs/path\"])",
	    vague, extra, torch, std, want, want);
}

/* Extension-module checks; returns the module name when member is one. A library the
 * package loads by path (opts->libraries) needs no PyInit_; every other check holds. */
static const char *check_extension(struct audit_ctx *c, const struct audit_member *m)
{
	const char *member = m->zm->name, *base = base_of(member);
	const struct elf_info *e = &m->elf;
	if (!ends(base, ".so"))
		return NULL;
	const char *dot = strchr(base, '.');
	char *mod = arena_strndup(c->a, base, (size_t)(dot - base));
	size_t blen = strlen(base);
	const char *tag = dot + 1 < base + blen - 3
	                      ? arena_strndup(c->a, dot + 1, (size_t)(base + blen - 3 - dot - 1))
	                      : "";
	const char *any_init = NULL;
	for (size_t i = 0; i < e->export_funcs.n; i++)
		if (starts(e->export_funcs.v[i], "PyInit_")) {
			any_init = e->export_funcs.v[i];
			break;
		}
	const char *soabi_abi, *soabi_triplet;
	bool looks = tag_soabi_parse(c->a, tag, &soabi_abi, &soabi_triplet) ||
	             strcmp(tag, "abi3") == 0 || (!*tag && any_init != NULL);
	if (!looks)
		return NULL;
	const char *want = arena_printf(c->a, "PyInit_%s", mod);
	bool library = audit_is_library(c, member, mod);
	if (!library && !strv_contains(&e->export_funcs, want)) {
		if (any_init)
			audit_add(c, AUDIT_ERROR, "pyinit-mismatch", member,
			          arena_printf(c->a, "rename the file to %s%s or the module to %s",
			                       any_init + 7, dot, mod),
			          "exports %s but its file name says module '%s', so Python looks "
			          "for %s and the import fails",
			          any_init, mod, want);
		else
			audit_add(c, AUDIT_ERROR, "pyinit-missing", member,
			          audit_pyinit_hint(c, member, mod,
			                            arena_printf(c->a,
			                                         "define the module with "
			                                         "PyMODINIT_FUNC %s(void) and "
			                                         "keep it exported",
			                                         want)),
			          "extension module exports no %s: 'import %s' will fail", want,
			          mod);
	}
	const char *abi, *triplet;
	if (c->name_ok && tag_soabi_parse(c->a, tag, &abi, &triplet)) {
		if (!wheel_has_abi(c, abi))
			audit_add(c, AUDIT_ERROR, "ext-python-abi", member,
			          "build the module with the Python the wheel is tagged for",
			          "module is built for %s (%s) but the wheel's ABI tag is %s", abi,
			          tag, c->wn.abi);
		const char *trip = triplet_of(e->arch);
		if (triplet && trip && strcmp(triplet, trip) != 0)
			audit_add(c, AUDIT_ERROR, "ext-platform", member, NULL,
			          "suffix says %s but the code is %s (%s)", triplet, e->arch, trip);
	} else if (c->name_ok && strcmp(tag, "abi3") == 0) {
		bool ok = false;
		for (size_t i = 0; i < c->wn.n_tags; i++) {
			const char *flags;
			int major, minor;
			ok |= strcmp(c->wn.tags[i].abi, "abi3") == 0 ||
			      (tag_abi_parse(c->wn.tags[i].abi, &major, &minor, &flags) &&
			       !strchr(flags, 't'));
		}
		if (!ok)
			audit_add(
			    c, AUDIT_ERROR, "ext-python-abi", member, NULL,
			    "a stable-ABI (.abi3.so) module in a wheel tagged %s: free-threaded "
			    "and non-CPython interpreters do not load abi3 modules",
			    c->wn.abi);
	}
	if (c->name_ok && strcmp(tag, "abi3") != 0 && wheel_has_abi(c, "abi3"))
		audit_add(c, AUDIT_ERROR, "ext-python-abi", member, NULL,
		          "the wheel is tagged abi3 but this module is not a stable-ABI .abi3.so");
	struct strbuf sb = {0};
	size_t extra = 0;
	for (size_t i = 0; i < e->exports.n; i++) {
		const char *s = e->exports.v[i];
		if (starts(s, "PyInit_") || std_symbol(s))
			continue;
		if (extra < 5)
			sb_printf(&sb, "%s%s", extra ? ", " : "", s);
		extra++;
	}
	size_t limit = c->opts->export_limit ? c->opts->export_limit : 16;
	if (extra > limit)
		audit_add(c, AUDIT_WARNING, "exports", member, exports_hint(c, e, want, extra),
		          "exports %zu symbols besides %s (%s, ...): they can clash with other "
		          "extensions' symbols",
		          extra, library ? "PyInit_ functions" : want, sb_str(&sb));
	sb_release(&sb);
	return mod;
}

static bool has_cubin(const struct elf_info *e, const struct arch *a, bool ptx)
{
	int code = a->major * 10 + a->minor;
	for (size_t i = 0; i < e->n_cubins; i++) {
		const struct elf_cubin *k = &e->cubins[i];
		if (k->ptx == ptx && k->arch == code && (!a->suffix || k->suffix == a->suffix))
			return true;
	}
	return false;
}

static void check_archs(struct audit_ctx *c, const struct audit_member *m, struct audit_elf *ae)
{
	const struct elf_info *e = &m->elf;
	for (size_t i = 0; i < e->n_cubins; i++)
		strv_push(c->a, &ae->cubins, elf_cubin_name(c->a, &e->cubins[i]));
	if (e->fatbin_error)
		audit_add(c, AUDIT_WARNING, "fatbin", m->zm->name, NULL, "%s", e->fatbin_error);
	if (!e->has_fatbin || !c->opts->n_archs)
		return;
	struct strbuf have = {0};
	for (size_t i = 0; i < ae->cubins.n; i++)
		sb_printf(&have, "%s%s", i ? ", " : "", ae->cubins.v[i]);
	for (size_t i = 0; i < c->opts->n_archs; i++) {
		const struct arch *a = &c->opts->archs[i];
		struct elf_cubin k = {.arch = a->major * 10 + a->minor, .suffix = a->suffix};
		if (!has_cubin(e, a, false))
			audit_add(c, AUDIT_ERROR, "arch-missing", m->zm->name,
			          "check the arch list and the toolkit's supported targets "
			          "(nvcc --list-gpu-code)",
			          "the fatbin has no %s code (it holds %s); GPUs of that "
			          "architecture get 'no kernel image is available'",
			          elf_cubin_name(c->a, &k), have.len ? sb_str(&have) : "nothing");
		k.ptx = true;
		if (a->ptx && !has_cubin(e, a, true))
			audit_add(c, AUDIT_ERROR, "arch-missing", m->zm->name, NULL,
			          "the fatbin has no %s PTX (requested with +PTX; it holds %s)",
			          elf_cubin_name(c->a, &k), have.len ? sb_str(&have) : "nothing");
	}
	sb_release(&have);
}

void audit_check_elfs(struct audit_ctx *c)
{
	struct audit_result *r = c->r;
	size_t n_elf = 0, cap = 0;
	bool any_fatbin = false;
	for (size_t i = 0; i < c->n_members; i++)
		n_elf += c->members[i].is_elf;
	r->elfs = arena_calloc(c->a, n_elf ? n_elf : 1, sizeof *r->elfs);
	/* The most permissive policy's whitelist decides what counts as a system library. */
	size_t np;
	const struct ml_policy *pols = manylinux_policies(&np);
	bool *is_module = arena_calloc(c->a, c->n_members + 1, sizeof(*is_module));
	bool any_abi3 = false;
	for (size_t i = 0; i < c->n_members; i++) {
		const struct audit_member *m = &c->members[i];
		if (!m->is_elf)
			continue;
		const char *member = m->zm->name;
		const struct elf_info *e = &m->elf;
		struct audit_elf *ae = &r->elfs[r->n_elfs++];
		ae->member = member;
		ae->arch = e->arch;
		ae->needed = e->needed;
		ae->rpath = e->rpath;
		ae->runpath = e->runpath;
		any_fatbin |= e->has_fatbin;
		if (starts(base_of(member), "libcuda.so"))
			audit_add(
			    c, AUDIT_ERROR, "cuda-driver-bundled", member,
			    "remove it: the driver library comes with the NVIDIA driver on the "
			    "user's machine",
			    "the wheel ships the CUDA driver library; it must never be bundled");
		for (int k = 0; k < 2; k++) {
			const struct strv *sv = k ? &e->runpath : &e->rpath;
			for (size_t j = 0; j < sv->n; j++)
				if (!is_origin(sv->v[j]))
					audit_add(
					    c, AUDIT_ERROR, "rpath", member,
					    "use only $ORIGIN-relative entries "
					    "(-Wl,-rpath,'$ORIGIN/...')",
					    "%s entry '%s' is not relative to $ORIGIN: it points "
					    "at the build machine",
					    k ? "RUNPATH" : "RPATH", sv->v[j]);
		}
		const struct ml_policy *any_wl = NULL;
		for (size_t j = 0; j < np; j++)
			if (pols[j].priority > 0 && e->arch && manylinux_arch(&pols[j], e->arch) &&
			    (!any_wl || pols[j].priority < any_wl->priority))
				any_wl = &pols[j];
		for (size_t j = 0; j < e->needed.n; j++) {
			const char *so = e->needed.v[j];
			if (audit_is_loader(so) || audit_bundled(c, member, e, so))
				continue;
			check_needed(c, &cap, m, so, any_wl);
		}
		ae->module = check_extension(c, m);
		is_module[i] = ae->module;
		any_abi3 |= ae->module && ends(member, ".abi3.so");
		if (ae->module && ends(member, ".abi3.so"))
			audit_check_limited_api(c, m, true);
		if (ae->module && c->opts->torch_stable)
			audit_check_torch_stable(c, m, true);
		check_archs(c, m, ae);
	}
	if (any_abi3 || c->opts->torch_stable)
		check_reached(c, is_module, any_abi3, c->opts->torch_stable);
	if (c->opts->n_archs && !any_fatbin && n_elf)
		audit_add(c, AUDIT_ERROR, "arch-no-fatbin", NULL, NULL,
		          "architectures were requested but no ELF file in the wheel carries CUDA "
		          "device code (.nv_fatbin)");
}
