/* code_flags.h: the compiler arguments that make a compiler, the host compiler nvcc drives or
 * the linker run a program or load code (gcc's and clang's -wrapper, -fplugin=, -specs=, -B,
 * @file; nvcc's -ccbin, --options-file, -run; the linker's -plugin; and each of them carried by
 * -Xcompiler, -Xlinker, -Xpreprocessor, -Xclang, -Wl, -Wp, -Wa, --compiler-options...). One
 * function decides, for the setup.py capture and for the config's flag keys alike. */
#ifndef CUWHEEL_TOOLCHAIN_CODE_FLAGS_H
#define CUWHEEL_TOOLCHAIN_CODE_FLAGS_H

#include <stdbool.h>
#include <stddef.h>

/* Which compiler reads the arguments. */
enum code_flags_for {
	CODE_FLAGS_CC,   /* gcc/clang as compiler or link driver (cflags, ldflags, host flags) */
	CODE_FLAGS_NVCC, /* nvcc: its own options, and the host options it forwards */
};

/* One argument that runs a program or loads code. */
struct code_flag_hit {
	size_t at;       /* the index of the argument to name (and to trust) */
	size_t next;     /* where a further scan resumes (past the option's value) */
	const char *why; /* a phrase: "makes gcc run a program (-wrapper)" */
};

/* Scans args[start..n) as `who` reads them; true + *hit for the first argument that makes a
 * compiler or linker run a program or load code, false when none does. */
bool code_flags_scan(const char *const *args, size_t n, enum code_flags_for who, size_t start,
                     struct code_flag_hit *hit);

#endif
