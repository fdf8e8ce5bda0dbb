/* elf.h: what audit needs to know about one ELF shared object, read with libelf (gelf). */
#ifndef CUWHEEL_PACKAGER_ELF_H
#define CUWHEEL_PACKAGER_ELF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

/* An undefined dynamic symbol and the version it asks for (from .gnu.version/.gnu.version_r). */
struct elf_undef {
	const char *name;
	const char *version; /* "GLIBC_2.34"; NULL when unversioned */
	const char *lib; /* the DT_NEEDED library the version comes from; NULL when unversioned */
	bool weak;
	bool func;
};

/* One version requirement: library `lib` must define version `version`. */
struct elf_verneed {
	const char *lib;     /* "libc.so.6" */
	const char *version; /* "GLIBC_2.17" */
};

/* One entry of a CUDA fatbin: SASS (a cubin) or PTX for one compute capability. */
struct elf_cubin {
	bool ptx;        /* PTX (compute_XY) rather than SASS (sm_XY) */
	int arch;        /* 75, 90, 120 */
	char suffix;     /* '\0', 'a' (sm_90a) or 'f' (sm_100f) */
	bool compressed; /* the payload is compressed; the header still names the arch */
};

struct elf_info {
	int elf_class; /* ELFCLASS32 / ELFCLASS64 */
	int machine;   /* e_machine */
	bool little_endian;
	const char *arch;   /* auditwheel's name: "x86_64", "aarch64", ...; NULL when unknown */
	int x86_isa_level;  /* x86-64 microarchitecture level the object needs (2..4); 0 baseline */
	bool shared;        /* ET_DYN */
	const char *soname; /* DT_SONAME or NULL */
	struct strv needed; /* DT_NEEDED, in order */
	struct strv rpath;  /* DT_RPATH split at ':' */
	struct strv runpath; /* DT_RUNPATH split at ':' */
	struct strv exports; /* defined dynamic symbols: global/weak/unique, default/protected */
	struct strv export_funcs;  /* the subset of exports that are functions (STT_FUNC/IFUNC) */
	struct strv vague_exports; /* the subset that is weak or unique: vague linkage (inline
	                            * functions, template instances, vtables, typeinfo) */
	struct elf_undef *undefs;
	size_t n_undefs;
	struct elf_verneed *verneeds;
	size_t n_verneeds;
	bool has_fatbin;          /* a .nv_fatbin section exists */
	struct elf_cubin *cubins; /* de-duplicated, sorted by arch, SASS before PTX */
	size_t n_cubins;
	const char *fatbin_error; /* a malformed fatbin container, or NULL */
};

/* Returns true when data starts with the ELF magic. */
bool elf_is_elf(const void *data, size_t len);
/* Reads an ELF image held in memory (libelf does not copy it: keep data alive while out is used;
 * strings in out are arena copies). Returns false with a message in *err when it is not a
 * readable ELF file. */
bool elf_read_mem(struct arena *a, void *data, size_t len, struct elf_info *out, const char **err);
/* Parses the contents of a .nv_fatbin section (one or more fatbin containers). Returns false
 * with *err when a container is truncated or malformed; entries found so far stay in *out. */
bool elf_parse_fatbin(struct arena *a, const unsigned char *data, size_t len,
                      struct elf_cubin **out, size_t *n, const char **err);
/* Formats a fatbin entry as nvcc names it: "sm_90a", "compute_120". */
char *elf_cubin_name(struct arena *a, const struct elf_cubin *c);
/* Returns auditwheel's architecture name for (machine, class, little-endian), or NULL. */
const char *elf_arch_name(int machine, int elf_class, bool little_endian);

#endif
