/* toolchain.h: what a CUDA toolkit needs around nvcc: the nvcc options it knows and the host
 * compiler it accepts, both read from the toolkit itself. */
#ifndef CUWHEEL_TOOLCHAIN_TOOLCHAIN_H
#define CUWHEEL_TOOLCHAIN_TOOLCHAIN_H

#include <stdbool.h>

#include "base/arena.h"

/* The nvcc options cuwheel adds that a toolkit may not know (bits of toolkit.nvcc_lacks). */
enum toolchain_lack {
	TOOLCHAIN_LACKS_THREADS = 1,     /* --threads N (nvcc --help lists it) */
	TOOLCHAIN_LACKS_OBJTEMP = 2,     /* -objtemp, --objdir-as-tempdir */
	TOOLCHAIN_LACKS_ORIG_SRC = 4,    /* -Xcudafe --orig_src_path_name (cudafe++ knows it) */
	TOOLCHAIN_LACKS_RANDOM_SEED = 8, /* nvcc's own --frandom-seed (13.0 has it, 12.4 not) */
};

/* The C and C++ compilers every nvcc call, kernel .cpp and binding of a toolkit use. */
struct host_compiler {
	const char *cc, *cxx; /* "gcc-11" / "g++-11", or $CC/$CXX ("cc"/"c++") when accepted */
	const char *version;  /* the C++ compiler's: "11.3.0"; NULL when unknown */
	int max_gcc;          /* newest gcc major the toolkit accepts; 0 when it says none */
	bool ccbin;           /* not the default: nvcc gets -ccbin cxx */
	const char *error;    /* no accepted compiler installed: why, naming the package */
};

/* Returns the TOOLCHAIN_LACKS_* bits for the options `nvcc --help` (help) does not list and,
 * for --orig_src_path_name, that <root>/bin/cudafe++ does not contain. */
unsigned toolchain_nvcc_lacks(struct arena *a, const char *root, const char *help);
/* Picks the host compiler for a toolkit of version cuda ("11.8.89") whose headers are in
 * include_dir: $CXX (and $CC) of env when set and not empty (an error when the toolkit refuses
 * it), else the newest of c++ and the installed g++-N the toolkit accepts. Never fails:
 * out->error says why none fits. */
void toolchain_pick_host(struct arena *a, const char *const *env, const char *include_dir,
                         const char *cuda, struct host_compiler *out);
/* Returns -Xcompiler=flag, the value in double quotes (with \"$` escaped) where nvcc's shell
 * would read it otherwise or it holds a comma (nvcc splits -Xcompiler values at commas). */
char *toolchain_xcompiler(struct arena *a, const char *flag);
/* True when flags (a project's nvcc flags) set an optimisation level other than cuwheel's -O3:
 * then cuwheel leaves its -O3 out, as two levels make nvcc warn "incompatible redefinition for
 * option 'optimize'" on every source. A value of -Xcompiler/-Xptxas (the next word) is not
 * nvcc's own level. */
bool toolchain_nvcc_own_opt(const struct strv *flags);
/* True when flags (a project's nvcc flags) name a C++ standard (-std=, --std=, or -std/--std
 * and the next word): then cuwheel adds no -std=c++17 of its own, as nvcc takes the last of two
 * and warns "incompatible redefinition for option 'std'" on every source. A value of
 * -Xcompiler/-Xptxas (the next word) is not nvcc's own. */
bool toolchain_nvcc_own_std(const struct strv *flags);
/* Appends the options cuwheel gives every nvcc compile of a toolkit whose missing options are
 * lacks (TOOLCHAIN_LACKS_*): -ccbin ccbin (when not NULL), --threads threads, -objtemp (the
 * temporaries beside the object: nvcc names them after it), -frandom-seed=src and cudafe++'s
 * --orig_src_path_name=src (src: the project-relative name, so every clone builds the same
 * bytes). */
void toolchain_nvcc_args(struct arena *a, unsigned lacks, const char *ccbin, const char *src,
                         int threads, struct strv *out);

#endif
