/* elf.c: reads dynamic section, dynamic symbols, symbol versions, GNU properties and the CUDA
 * fatbin of one ELF image with libelf. */
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "packager/elf.h"
#include "standards/cuda_arch.h"

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif
#ifndef NT_GNU_PROPERTY_TYPE_0
#define NT_GNU_PROPERTY_TYPE_0 5
#endif
#define CW_X86_ISA_1_NEEDED 0xc0008002u

#define FATBIN_MAGIC             0xBA55ED50u
#define FATBIN_MAGIC_REL         0x466243B1u
#define FATBIN_KIND_PTX          0x1
#define FATBIN_KIND_ELF          0x2
#define FATBIN_KIND_ELF_ALT      0x10
#define FATBIN_FLAG_COMPRESS_OLD 0x2000u
#define FATBIN_FLAG_COMPRESS     0x8000u
#define FATBIN_FLAG_ARCH_A       0x100000u
#define FATBIN_FLAG_ARCH_F       0x200000u

bool elf_is_elf(const void *data, size_t len)
{
	return len >= 4 && memcmp(data, "\177ELF", 4) == 0;
}

const char *elf_arch_name(int machine, int elf_class, bool le)
{
	bool b64 = elf_class == ELFCLASS64;
	switch (machine) {
	case EM_386:
		return !b64 && le ? "i686" : NULL;
	case EM_X86_64:
		return b64 && le ? "x86_64" : NULL;
	case EM_AARCH64:
		return b64 && le ? "aarch64" : NULL;
	case EM_PPC64:
		return b64 ? (le ? "ppc64le" : "ppc64") : NULL;
	case EM_S390:
		return b64 && !le ? "s390x" : NULL;
	case EM_ARM:
		return !b64 && le ? "armv7l" : NULL;
	case EM_RISCV:
		return b64 && le ? "riscv64" : NULL;
	case EM_LOONGARCH:
		return b64 && le ? "loongarch64" : NULL;
	default:
		return NULL;
	}
}

static uint64_t rd_le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int cubin_cmp(const void *x, const void *y)
{
	const struct elf_cubin *a = x, *b = y;
	if (a->arch != b->arch)
		return a->arch < b->arch ? -1 : 1;
	if (a->ptx != b->ptx)
		return a->ptx ? 1 : -1;
	return (a->suffix > b->suffix) - (a->suffix < b->suffix);
}

static void cubin_add(struct arena *a, struct elf_cubin **v, size_t *n, size_t *cap,
                      const struct elf_cubin *c)
{
	for (size_t i = 0; i < *n; i++) {
		struct elf_cubin *o = &(*v)[i];
		if (o->ptx == c->ptx && o->arch == c->arch && o->suffix == c->suffix) {
			o->compressed |= c->compressed;
			return;
		}
	}
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		*v = arena_realloc(a, *v, *cap, nc, sizeof **v);
		*cap = nc;
	}
	(*v)[(*n)++] = *c;
}

bool elf_parse_fatbin(struct arena *a, const unsigned char *d, size_t len, struct elf_cubin **out,
                      size_t *n, const char **err)
{
	size_t cap = *n;
	size_t off = 0;
	*err = NULL;
	/* Containers follow each other, each aligned to 8 bytes; zero padding may sit between. */
	while (off + 16 <= len) {
		uint32_t magic = (uint32_t)rd_le(d + off, 4);
		if (magic != FATBIN_MAGIC && magic != FATBIN_MAGIC_REL) {
			off += 8;
			continue;
		}
		uint64_t hsz = rd_le(d + off + 6, 2);
		uint64_t fsz = rd_le(d + off + 8, 8);
		if (hsz < 16 || hsz > len - off || fsz > len - off - hsz) {
			*err = arena_printf(a, "fatbin container at offset %zu is truncated", off);
			break;
		}
		size_t e = off + (size_t)hsz, end = off + (size_t)hsz + (size_t)fsz;
		while (e + 64 <= end) {
			const unsigned char *h = d + e;
			uint32_t kind = (uint32_t)rd_le(h, 2);
			uint64_t ehs = rd_le(h + 4, 4);
			uint64_t size = rd_le(h + 8, 8);
			uint32_t arch = (uint32_t)rd_le(h + 28, 4);
			uint64_t flags = rd_le(h + 40, 8);
			if (ehs < 64 || ehs > end - e || size > end - e - ehs) {
				*err =
				    arena_printf(a, "fatbin entry at offset %zu is malformed", e);
				goto done;
			}
			if (kind == FATBIN_KIND_PTX || kind == FATBIN_KIND_ELF ||
			    kind == FATBIN_KIND_ELF_ALT) {
				struct elf_cubin c = {
				    .ptx = kind == FATBIN_KIND_PTX,
				    .arch = (int)arch,
				    .suffix = (flags & FATBIN_FLAG_ARCH_A)   ? 'a'
				              : (flags & FATBIN_FLAG_ARCH_F) ? 'f'
				                                             : '\0',
				    .compressed = (flags & (FATBIN_FLAG_COMPRESS |
				                            FATBIN_FLAG_COMPRESS_OLD)) != 0,
				};
				cubin_add(a, out, n, &cap, &c);
			}
			e += (size_t)ehs + (size_t)size;
		}
		off = (end + 7) & ~(size_t)7;
	}
done:
	if (*n > 1)
		qsort(*out, *n, sizeof **out, cubin_cmp);
	return *err == NULL;
}

char *elf_cubin_name(struct arena *a, const struct elf_cubin *c)
{
	struct arch ar = {.major = c->arch / 10, .minor = c->arch % 10, .suffix = c->suffix};
	return cuda_arch_name(a, &ar, c->ptx);
}

static void split_path(struct arena *a, struct strv *sv, const char *s)
{
	while (s) {
		const char *colon = strchr(s, ':');
		size_t n = colon ? (size_t)(colon - s) : strlen(s);
		if (n)
			strv_push(a, sv, arena_strndup(a, s, n));
		s = colon ? colon + 1 : NULL;
	}
}

static void read_dynamic(struct arena *a, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
                         struct elf_info *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || sh->sh_entsize == 0)
		return;
	size_t n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Dyn dyn;
		if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH &&
		    dyn.d_tag != DT_SONAME)
			continue;
		const char *s = elf_strptr(e, sh->sh_link, dyn.d_un.d_val);
		if (!s)
			continue;
		if (dyn.d_tag == DT_NEEDED)
			strv_push(a, &out->needed, arena_strdup(a, s));
		else if (dyn.d_tag == DT_RPATH)
			split_path(a, &out->rpath, s);
		else if (dyn.d_tag == DT_RUNPATH)
			split_path(a, &out->runpath, s);
		else
			out->soname = arena_strdup(a, s);
	}
}

/* Version index -> (library, version name) from .gnu.version_r. */
struct vermap {
	const char **lib, **name;
	size_t n;
};

static void read_verneed(struct arena *a, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
                         struct elf_info *out, struct vermap *vm)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data)
		return;
	size_t off = 0, cap = 0;
	for (size_t i = 0; i < sh->sh_info && off < data->d_size; i++) {
		GElf_Verneed vn;
		if (!gelf_getverneed(data, (int)off, &vn))
			break;
		const char *lib = elf_strptr(e, sh->sh_link, vn.vn_file);
		size_t aoff = off + vn.vn_aux;
		for (size_t j = 0; j < vn.vn_cnt && aoff < data->d_size; j++) {
			GElf_Vernaux aux;
			if (!gelf_getvernaux(data, (int)aoff, &aux))
				break;
			const char *name = elf_strptr(e, sh->sh_link, aux.vna_name);
			if (lib && name) {
				if (out->n_verneeds == cap) {
					size_t nc = cap ? cap * 2 : 16;
					out->verneeds = arena_realloc(a, out->verneeds, cap, nc,
					                              sizeof *out->verneeds);
					cap = nc;
				}
				struct elf_verneed *v = &out->verneeds[out->n_verneeds++];
				v->lib = arena_strdup(a, lib);
				v->version = arena_strdup(a, name);
				size_t idx = aux.vna_other & 0x7fff;
				if (idx >= vm->n) {
					size_t nn = idx + 16;
					vm->lib =
					    arena_realloc(a, vm->lib, vm->n, nn, sizeof *vm->lib);
					vm->name =
					    arena_realloc(a, vm->name, vm->n, nn, sizeof *vm->name);
					vm->n = nn;
				}
				vm->lib[idx] = v->lib;
				vm->name[idx] = v->version;
			}
			if (aux.vna_next == 0)
				break;
			aoff += aux.vna_next;
		}
		if (vn.vn_next == 0)
			break;
		off += vn.vn_next;
	}
}

static void read_dynsym(struct arena *a, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
                        Elf_Data *versym, const struct vermap *vm, struct elf_info *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || sh->sh_entsize == 0)
		return;
	size_t n = sh->sh_size / sh->sh_entsize, cap = 0;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		int bind = GELF_ST_BIND(sym.st_info), type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF) {
			if (out->n_undefs == cap) {
				size_t nc = cap ? cap * 2 : 64;
				out->undefs =
				    arena_realloc(a, out->undefs, cap, nc, sizeof *out->undefs);
				cap = nc;
			}
			struct elf_undef *u = &out->undefs[out->n_undefs++];
			u->name = arena_strdup(a, name);
			u->weak = bind == STB_WEAK;
			u->func = type == STT_FUNC || type == STT_GNU_IFUNC;
			GElf_Versym vs;
			if (versym && gelf_getversym(versym, (int)i, &vs)) {
				size_t idx = vs & 0x7fff;
				if (idx >= 2 && idx < vm->n && vm->name[idx]) {
					u->version = vm->name[idx];
					u->lib = vm->lib[idx];
				}
			}
			continue;
		}
		if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE)
			continue;
		int vis = GELF_ST_VISIBILITY(sym.st_other);
		if (vis != STV_DEFAULT && vis != STV_PROTECTED)
			continue;
		if (type == STT_SECTION || type == STT_FILE)
			continue;
		const char *copy = arena_strdup(a, name);
		strv_push(a, &out->exports, copy);
		if (type == STT_FUNC || type == STT_GNU_IFUNC)
			strv_push(a, &out->export_funcs, copy);
		if (bind == STB_WEAK || bind == STB_GNU_UNIQUE)
			strv_push(a, &out->vague_exports, copy);
	}
}

static void read_notes(Elf_Scn *scn, struct elf_info *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data)
		return;
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	size_t align = out->elf_class == ELFCLASS64 ? 8 : 4;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_PROPERTY_TYPE_0 || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) != 0)
			continue;
		const unsigned char *p = (const unsigned char *)data->d_buf + desc_off;
		size_t left = nh.n_descsz;
		while (left >= 8) {
			uint32_t type, sz;
			memcpy(&type, p, 4);
			memcpy(&sz, p + 4, 4);
			if (sz > left - 8)
				break;
			if (type == CW_X86_ISA_1_NEEDED && sz == 4) {
				uint32_t v;
				memcpy(&v, p + 8, 4);
				v &= ~1u;
				out->x86_isa_level = (v & 8) ? 4 : (v & 4) ? 3 : (v & 2) ? 2 : 0;
			}
			size_t step = 8 + ((sz + align - 1) & ~(align - 1));
			if (step > left)
				break;
			p += step;
			left -= step;
		}
	}
}

bool elf_read_mem(struct arena *a, void *image, size_t len, struct elf_info *out, const char **err)
{
	memset(out, 0, sizeof *out);
	*err = NULL;
	if (!elf_is_elf(image, len)) {
		*err = "not an ELF file";
		return false;
	}
	elf_version(EV_CURRENT);
	Elf *e = elf_memory(image, len);
	if (!e) {
		*err = arena_printf(a, "libelf: %s", elf_errmsg(-1));
		return false;
	}
	GElf_Ehdr eh;
	size_t shstrndx;
	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx)) {
		*err = arena_printf(a, "libelf: %s", elf_errmsg(-1));
		elf_end(e);
		return false;
	}
	out->elf_class = gelf_getclass(e);
	out->machine = eh.e_machine;
	out->little_endian = eh.e_ident[EI_DATA] == ELFDATA2LSB;
	out->arch = elf_arch_name(out->machine, out->elf_class, out->little_endian);
	out->shared = eh.e_type == ET_DYN;

	/* Version requirements first: dynamic symbols refer to them by index. */
	struct vermap vm = {0};
	Elf_Data *versym = NULL;
	Elf_Scn *dynsym = NULL;
	GElf_Shdr dynsym_sh;
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *sname = elf_strptr(e, shstrndx, sh.sh_name);
		switch (sh.sh_type) {
		case SHT_DYNAMIC:
			read_dynamic(a, e, scn, &sh, out);
			break;
		case SHT_GNU_verneed:
			read_verneed(a, e, scn, &sh, out, &vm);
			break;
		case SHT_GNU_versym:
			versym = elf_getdata(scn, NULL);
			break;
		case SHT_DYNSYM:
			dynsym = scn;
			dynsym_sh = sh;
			break;
		case SHT_NOTE:
			read_notes(scn, out);
			break;
		default:
			break;
		}
		if (sname && strcmp(sname, ".nv_fatbin") == 0 && sh.sh_type != SHT_NOBITS) {
			Elf_Data *d = elf_getdata(scn, NULL);
			out->has_fatbin = true;
			if (d && d->d_buf)
				elf_parse_fatbin(a, d->d_buf, d->d_size, &out->cubins,
				                 &out->n_cubins, &out->fatbin_error);
		}
	}
	if (dynsym)
		read_dynsym(a, e, dynsym, &dynsym_sh, versym, &vm, out);
	elf_end(e);
	return true;
}
