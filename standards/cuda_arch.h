/* cuda_arch.h: CUDA GPU architectures (8.6, 9.0a, 10.0f, 12.0+PTX): the one place their names are
 * parsed and rendered, for the config, the audit and the build graph. */
#ifndef CUWHEEL_STANDARDS_CUDA_ARCH_H
#define CUWHEEL_STANDARDS_CUDA_ARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

/* One entry of a TORCH_CUDA_ARCH_LIST-style list: 8.6, 9.0a, 10.0f, 12.0+PTX. */
struct arch {
	int major, minor;
	char suffix; /* '\0', 'a' or 'f' */
	bool ptx;    /* also embed PTX for this arch */
};

/* The spellings a list may use; every list takes 8.6, 9.0a, 10.0f and 12.0+PTX. */
enum arch_spelling {
	ARCH_SPELL_TORCH = 1, /* TORCH_CUDA_ARCH_LIST: also names such as Ampere */
	ARCH_SPELL_NVCC = 2,  /* also 86, 90a, 120+PTX, sm_86 and compute_90 (+PTX implied) */
};

/* Parses a list separated by ';', ',' or spaces; a repeated arch merges its +PTX. Returns
 * false with a message naming the bad entry in *err (arena string). */
bool cuda_arch_parse_list(struct arena *a, const char *text, enum arch_spelling sp,
                          struct arch **out, size_t *n, const char **err);
/* Returns nvcc's name of the arch's SASS ("sm_90a") or, with ptx, its PTX ("compute_90a"). */
char *cuda_arch_name(struct arena *a, const struct arch *ar, bool ptx);
/* Returns nvcc's flags for the list, each with a space before it: " --generate-code=arch=
 * compute_90,code=sm_90", and code=[sm_90,compute_90] for an arch with +PTX when ptx is true
 * (false: SASS only, as a device link wants). --generate-code, not -gencode: ccache 4.7 reads
 * -gencode as -g (debug info) and then hashes the build directory into every key. */
char *cuda_arch_nvcc_flags(struct arena *a, const struct arch *v, size_t n, bool ptx);
/* Returns the list in the compact spelling the audit takes: "75,86,90a,120+PTX". */
char *cuda_arch_list_compact(struct arena *a, const struct arch *v, size_t n);

#endif
