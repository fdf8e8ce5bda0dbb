/* pe.h: what the audit needs to know about one PE image (a Windows .dll / .pyd / .exe): the
 * machine, the DLLs it imports (plain and delay-loaded) with the names it imports from each,
 * and the names it exports. */
#ifndef CUWHEEL_PACKAGER_PE_H
#define CUWHEEL_PACKAGER_PE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

#define PE_MACHINE_I386  0x014c
#define PE_MACHINE_AMD64 0x8664
#define PE_MACHINE_ARM64 0xaa64

struct pe_info {
	int machine;         /* COFF Machine field */
	const char *arch;    /* wheel platform arch: "amd64", "win32", "arm64"; NULL: unknown */
	bool pe32plus;       /* a 64-bit optional header */
	bool dll;            /* IMAGE_FILE_DLL */
	struct strv imports; /* DLL names of the import directory, in order, as written */
	struct strv delay;   /* DLL names of the delay-load import directory */
	/* Parallel to imports and delay: the names imported from each DLL, in order (an import by
	 * ordinal has no name and is not listed). */
	struct strv *import_names, *delay_names;
	struct strv exports;  /* exported names */
	const char *dll_name; /* the export directory's own name, or NULL */
};

/* Returns true when data starts like a PE image: "MZ" and, at e_lfanew, "PE\0\0". */
bool pe_is_pe(const void *data, size_t len);
/* Reads a PE image held in memory (nothing of data is kept: strings are arena copies). Every
 * offset is checked against len; returns false with a message in *err (a static or arena
 * string) when the image is truncated or malformed. */
bool pe_read_mem(struct arena *a, const void *data, size_t len, struct pe_info *out,
                 const char **err);

#endif
