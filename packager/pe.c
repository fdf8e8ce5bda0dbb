/* pe.c: a bounds-checked reader of PE headers, sections, the import, delay-import and export
 * directories and their name tables (Microsoft's "PE Format" specification), for images nobody
 * vouches for. */
#include <stdint.h>
#include <string.h>

#include "packager/pe.h"

#define PE_DIR_EXPORT 0
#define PE_DIR_IMPORT 1
#define PE_DIR_DELAY  13
#define PE_FILE_DLL   0x2000u

/* Limits that no real image reaches; they bound the work a hostile one can cause. */
#define PE_MAX_SECTIONS 96      /* the loader's own limit */
#define PE_MAX_DLLS     4096    /* import descriptors per directory */
#define PE_MAX_EXPORTS  1000000 /* exported names: far more than any real DLL */
#define PE_MAX_IMPORTS  1000000 /* import name table entries of one image, all DLLs together */
#define PE_MAX_NAME     4096    /* bytes of one name */

struct pe_section {
	uint32_t va, vsize, raw_off, raw_size;
};

struct pe_img {
	const unsigned char *p;
	size_t len;
	uint64_t image_base;
	bool pe32plus; /* 64-bit name table entries */
	size_t budget; /* name table entries left to read (PE_MAX_IMPORTS in all) */
	uint32_t size_of_headers;
	struct pe_section sec[PE_MAX_SECTIONS];
	size_t n_sec;
};

static uint16_t rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* True when [off, off+n) lies inside the image (overflow-safe). */
static bool in_file(const struct pe_img *img, uint64_t off, uint64_t n)
{
	return off <= img->len && n <= img->len - off;
}

/* Maps an RVA to a file offset with at least `need` bytes behind it inside the same section
 * (or the headers); *avail gets the bytes the mapping covers. False when nothing maps it. */
static bool rva_map(const struct pe_img *img, uint32_t rva, uint32_t need, size_t *off,
                    size_t *avail)
{
	for (size_t i = 0; i < img->n_sec; i++) {
		const struct pe_section *s = &img->sec[i];
		uint32_t size = s->vsize ? s->vsize : s->raw_size;
		if (rva < s->va || rva - s->va >= size)
			continue;
		uint32_t delta = rva - s->va;
		if (delta >= s->raw_size)
			return false; /* uninitialised data: nothing in the file */
		uint64_t o = (uint64_t)s->raw_off + delta;
		uint64_t end = (uint64_t)s->raw_off + s->raw_size;
		if (end > img->len)
			end = img->len;
		if (o >= end || end - o < need)
			return false;
		*off = (size_t)o;
		*avail = (size_t)(end - o);
		return true;
	}
	if (rva < img->size_of_headers && in_file(img, rva, need)) {
		*off = rva;
		size_t end = img->size_of_headers < img->len ? img->size_of_headers : img->len;
		*avail = end - rva;
		return *avail >= need;
	}
	return false;
}

/* Copies the NUL-terminated string at rva into the arena; NULL when it is unmapped, longer
 * than PE_MAX_NAME, unterminated within its section, or empty. */
static const char *rva_str(struct arena *a, const struct pe_img *img, uint32_t rva)
{
	size_t off, avail;
	if (!rva_map(img, rva, 1, &off, &avail))
		return NULL;
	size_t max = avail < PE_MAX_NAME ? avail : PE_MAX_NAME;
	const unsigned char *s = img->p + off;
	const unsigned char *nul = memchr(s, 0, max);
	if (!nul || nul == s)
		return NULL;
	return arena_strndup(a, (const char *)s, (size_t)(nul - s));
}

bool pe_is_pe(const void *data, size_t len)
{
	const unsigned char *p = data;
	if (len < 0x40 || p[0] != 'M' || p[1] != 'Z')
		return false;
	uint32_t lfanew = rd32(p + 0x3c);
	return lfanew <= len && len - lfanew >= 4 && memcmp(p + lfanew, "PE\0\0", 4) == 0;
}

/* Returns the platform arch a wheel tags machine with ("amd64" for win_amd64), or NULL. */
static const char *pe_arch_name(int machine)
{
	switch (machine) {
	case PE_MACHINE_AMD64:
		return "amd64";
	case PE_MACHINE_I386:
		return "win32";
	case PE_MACHINE_ARM64:
		return "arm64";
	default:
		return NULL;
	}
}

/* Reads the names of an import name table at ref (entries of 8 bytes in PE32+, 4 in PE32,
 * ending in a zero one) into out; an import by ordinal has no name. va: ref and the entries are
 * virtual addresses (an old delay-load descriptor's), not RVAs. dll: the DLL's name, for
 * messages. A table at 0 is empty (nothing lists the names). */
static bool read_thunks(struct arena *a, struct pe_img *img, uint64_t ref, bool va, const char *dll,
                        struct strv *out, const char **err)
{
	if (ref == 0)
		return true;
	uint64_t base = va ? img->image_base : 0, w = img->pe32plus ? 8 : 4;
	uint64_t by_ordinal = img->pe32plus ? 1ull << 63 : 1ull << 31;
	for (uint64_t i = 0;; i++) {
		size_t off, avail;
		uint64_t at = ref - base + w * i;
		if (ref < base || at > UINT32_MAX ||
		    !rva_map(img, (uint32_t)at, (uint32_t)w, &off, &avail)) {
			*err = arena_printf(a, "the import name table of %s runs outside the image",
			                    dll);
			return false;
		}
		if (img->budget == 0) {
			*err = arena_printf(a, "more than %d import name table entries",
			                    PE_MAX_IMPORTS);
			return false;
		}
		img->budget--;
		uint64_t e = w == 8 ? rd64(img->p + off) : rd32(img->p + off);
		if (e == 0)
			return true;
		if (e & by_ordinal)
			continue;
		/* A hint/name entry: a 2-byte hint, then the name. */
		uint64_t hint = va ? e - base : e & 0x7fffffffu;
		const char *name = NULL;
		if ((!va || e >= base) && hint <= UINT32_MAX - 2)
			name = rva_str(a, img, (uint32_t)hint + 2);
		if (!name) {
			*err = arena_printf(a, "import %u of %s names nothing readable",
			                    (unsigned)i, dll);
			return false;
		}
		strv_push(a, out, name);
	}
}

/* Makes room for the name list of DLL number n in *names (n+1 lists, the new one empty). */
static void grow_names(struct arena *a, struct strv **names, size_t n, size_t *cap)
{
	if (n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		*names = arena_realloc(a, *names, *cap, nc, sizeof **names);
		*cap = nc;
	}
	(*names)[n] = (struct strv){0};
}

/* Reads the import directory (20-byte descriptors ending in a zero one) and each DLL's names
 * (its import lookup table, or the unbound import address table where there is none). */
static bool read_imports(struct arena *a, struct pe_img *img, uint32_t rva, struct strv *out,
                         struct strv **names, const char **err)
{
	size_t cap = 0;
	for (uint32_t i = 0; i < PE_MAX_DLLS; i++) {
		size_t off, avail;
		if (rva > UINT32_MAX - 20 * i || !rva_map(img, rva + 20 * i, 20, &off, &avail)) {
			*err = "the import directory runs outside the image";
			return false;
		}
		const unsigned char *d = img->p + off;
		static const unsigned char zero[20];
		if (memcmp(d, zero, 20) == 0)
			return true;
		const char *name = rva_str(a, img, rd32(d + 12));
		if (!name) {
			*err = arena_printf(a, "import descriptor %u names no DLL", i);
			return false;
		}
		grow_names(a, names, out->n, &cap);
		/* The import lookup table, else the import address table, unless that is bound (a
		 * time stamp: it holds addresses, and nothing in the image lists the names). */
		uint32_t table = rd32(d) ? rd32(d) : rd32(d + 4) ? 0 : rd32(d + 16);
		if (!read_thunks(a, img, table, false, name, &(*names)[out->n], err))
			return false;
		strv_push(a, out, name);
	}
	*err = "the import directory has no end";
	return false;
}

/* Reads the delay-load directory (32-byte descriptors ending in a zero one, or at the
 * directory's size: GNU dlltool's descriptors have no zero one after them). Old images (no
 * dlattrRva bit) hold virtual addresses instead of RVAs. */
static bool read_delay(struct arena *a, struct pe_img *img, uint32_t rva, uint32_t size,
                       struct strv *out, struct strv **names, const char **err)
{
	size_t cap = 0;
	uint32_t n = size / 32 < PE_MAX_DLLS ? size / 32 : PE_MAX_DLLS;
	for (uint32_t i = 0; i < n; i++) {
		size_t off, avail;
		if (rva > UINT32_MAX - 32 * i || !rva_map(img, rva + 32 * i, 32, &off, &avail)) {
			*err = "the delay-load directory runs outside the image";
			return false;
		}
		const unsigned char *d = img->p + off;
		uint32_t attrs = rd32(d), name_ref = rd32(d + 4);
		if (name_ref == 0 && attrs == 0)
			return true;
		uint64_t name_rva = name_ref;
		if (!(attrs & 1)) {
			if (name_ref < img->image_base || name_ref - img->image_base > UINT32_MAX) {
				*err = arena_printf(a, "delay-load descriptor %u names no DLL", i);
				return false;
			}
			name_rva = name_ref - img->image_base;
		}
		const char *name = rva_str(a, img, (uint32_t)name_rva);
		if (!name) {
			*err = arena_printf(a, "delay-load descriptor %u names no DLL", i);
			return false;
		}
		grow_names(a, names, out->n, &cap);
		if (!read_thunks(a, img, rd32(d + 16), !(attrs & 1), name, &(*names)[out->n], err))
			return false;
		strv_push(a, out, name);
	}
	return true;
}

/* Reads the export directory's own name and its name table. */
static bool read_exports(struct arena *a, const struct pe_img *img, uint32_t rva,
                         struct pe_info *out, const char **err)
{
	size_t off, avail;
	if (!rva_map(img, rva, 40, &off, &avail)) {
		*err = "the export directory runs outside the image";
		return false;
	}
	const unsigned char *d = img->p + off;
	uint32_t n_names = rd32(d + 24), names_rva = rd32(d + 32);
	out->dll_name = rva_str(a, img, rd32(d + 12));
	if (n_names > PE_MAX_EXPORTS) {
		*err = arena_printf(a, "the export directory claims %u names", n_names);
		return false;
	}
	if (n_names == 0)
		return true;
	if (!rva_map(img, names_rva, n_names * 4u, &off, &avail)) {
		*err = "the export name table runs outside the image";
		return false;
	}
	const unsigned char *t = img->p + off;
	for (uint32_t i = 0; i < n_names; i++) {
		const char *name = rva_str(a, img, rd32(t + 4 * (size_t)i));
		if (!name) {
			*err = arena_printf(a, "export name %u is not readable", i);
			return false;
		}
		strv_push(a, &out->exports, name);
	}
	return true;
}

bool pe_read_mem(struct arena *a, const void *data, size_t len, struct pe_info *out,
                 const char **err)
{
	memset(out, 0, sizeof *out);
	if (!pe_is_pe(data, len)) {
		*err = "not a PE image (no MZ header or no PE signature)";
		return false;
	}
	/* The section table is large; keep it off the caller's stack. */
	struct pe_img *img = arena_calloc(a, 1, sizeof *img);
	img->p = data;
	img->len = len;
	const unsigned char *p = img->p;
	uint32_t coff = rd32(p + 0x3c) + 4;
	if (!in_file(img, coff, 20)) {
		*err = "the COFF header is truncated";
		return false;
	}
	out->machine = rd16(p + coff);
	out->arch = pe_arch_name(out->machine);
	uint16_t n_sec = rd16(p + coff + 2), opt_size = rd16(p + coff + 16);
	out->dll = (rd16(p + coff + 18) & PE_FILE_DLL) != 0;
	uint64_t opt = (uint64_t)coff + 20;
	if (opt_size < 2 || !in_file(img, opt, opt_size)) {
		*err = "the optional header is missing or truncated";
		return false;
	}
	uint16_t magic = rd16(p + opt);
	if (magic != 0x10b && magic != 0x20b) {
		*err = arena_printf(a, "unknown optional header magic 0x%x", magic);
		return false;
	}
	out->pe32plus = magic == 0x20b;
	uint32_t dirs_at = out->pe32plus ? 112 : 96;
	if (opt_size < dirs_at) {
		*err = "the optional header is too short for its kind";
		return false;
	}
	img->pe32plus = out->pe32plus;
	img->budget = PE_MAX_IMPORTS;
	img->image_base = out->pe32plus ? rd64(p + opt + 24) : rd32(p + opt + 28);
	img->size_of_headers = rd32(p + opt + 60);
	uint32_t n_dirs = rd32(p + opt + dirs_at - 4);
	if (n_dirs > (uint32_t)(opt_size - dirs_at) / 8)
		n_dirs = (uint32_t)(opt_size - dirs_at) / 8;
	if (n_sec > PE_MAX_SECTIONS) {
		*err = arena_printf(a, "%u sections (the loader refuses more than %d)", n_sec,
		                    PE_MAX_SECTIONS);
		return false;
	}
	uint64_t sh = opt + opt_size;
	if (!in_file(img, sh, (uint64_t)n_sec * 40)) {
		*err = "the section table is truncated";
		return false;
	}
	for (uint16_t i = 0; i < n_sec; i++) {
		const unsigned char *s = p + sh + 40 * (size_t)i;
		img->sec[i] = (struct pe_section){.vsize = rd32(s + 8),
		                                  .va = rd32(s + 12),
		                                  .raw_size = rd32(s + 16),
		                                  .raw_off = rd32(s + 20)};
	}
	img->n_sec = n_sec;
	uint32_t dir_rva[16] = {0}, dir_size[16] = {0};
	for (uint32_t i = 0; i < n_dirs && i < 16; i++) {
		dir_rva[i] = rd32(p + opt + dirs_at + 8 * i);
		dir_size[i] = rd32(p + opt + dirs_at + 8 * i + 4);
	}
	if (dir_rva[PE_DIR_IMPORT] && dir_size[PE_DIR_IMPORT] &&
	    !read_imports(a, img, dir_rva[PE_DIR_IMPORT], &out->imports, &out->import_names, err))
		return false;
	if (dir_rva[PE_DIR_DELAY] && dir_size[PE_DIR_DELAY] &&
	    !read_delay(a, img, dir_rva[PE_DIR_DELAY], dir_size[PE_DIR_DELAY], &out->delay,
	                &out->delay_names, err))
		return false;
	if (dir_rva[PE_DIR_EXPORT] && dir_size[PE_DIR_EXPORT] &&
	    !read_exports(a, img, dir_rva[PE_DIR_EXPORT], out, err))
		return false;
	return true;
}
