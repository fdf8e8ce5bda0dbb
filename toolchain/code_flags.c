/* code_flags.c: which compiler arguments run a program or load code, read the way gcc, clang,
 * nvcc and the linkers they drive read them: an option, its value in the next argument or after
 * '=', and the lists that carry options to another program (-Wl,a,b; -Xcompiler a,b). */
#include "toolchain/code_flags.h"

#include <string.h>

/* Who reads a word: the option sets below. */
enum ctx {
	CTX_DRIVER, /* gcc/clang's driver (also what -Wp, and -Xpreprocessor carry) */
	CTX_CC1,    /* clang -cc1, through -Xclang */
	CTX_LINKER, /* ld, gold, lld, mold, through -Wl, and -Xlinker */
	CTX_OTHER,  /* the assembler, ptxas, nvlink: only response files */
	CTX_NVCC,
};

/* A word: an argument, or one item of a comma list inside one. */
struct word {
	const char *p;
	size_t n;
};

struct words {
	const struct word *v;
	size_t n;
};

#define MAX_ITEMS 256 /* items of one comma list looked at (more are looked at as one) */

static bool is(struct word w, const char *s)
{
	return w.n == strlen(s) && !memcmp(w.p, s, w.n);
}

static bool starts(struct word w, const char *s)
{
	size_t n = strlen(s);
	return w.n >= n && !memcmp(w.p, s, n);
}

static struct word skip_dashes(struct word w, size_t most)
{
	while (most-- && w.n && w.p[0] == '-')
		w.p++, w.n--;
	return w;
}

/* w is option name (given without dashes) with or without its value: 0 no, 1 the value is
 * the next word, 2 it is after '='. Any number of leading dashes (1 or 2) is accepted. */
static int option(struct word w, const char *name)
{
	if (!w.n || w.p[0] != '-')
		return 0;
	struct word b = skip_dashes(w, 2);
	size_t n = strlen(name);
	if (b.n < n || memcmp(b.p, name, n))
		return 0;
	return b.n == n ? 1 : b.p[n] == '=' ? 2 : 0;
}

static const char *scan_list(enum ctx c, struct words ws, int depth);
static const char *word_why(enum ctx c, struct word w, const struct word *next, size_t *take,
                            int depth);

/* The items of the comma list s (at most MAX_ITEMS) checked as c reads them. */
static const char *scan_commas(enum ctx c, struct word s, int depth)
{
	struct word items[MAX_ITEMS];
	size_t n = 0;
	const char *p = s.p, *end = s.p + s.n;
	while (p <= end && n < MAX_ITEMS) {
		const char *q = memchr(p, ',', (size_t)(end - p));
		if (!q || n == MAX_ITEMS - 1)
			q = end;
		items[n++] = (struct word){p, (size_t)(q - p)};
		p = q + 1;
	}
	return scan_list(c, (struct words){items, n}, depth + 1);
}

/* The value of option w: after '=' (eq), or the next word (NULL when there is none). */
static const struct word *value_of(struct word w, bool eq, const struct word *next,
                                   struct word *tmp)
{
	if (!eq)
		return next;
	const char *v = memchr(w.p, '=', w.n);
	*tmp = (struct word){v + 1, w.n - (size_t)(v + 1 - w.p)};
	return tmp;
}

static const char *driver_word(struct word w, const struct word *next, size_t *take, int depth)
{
	static const struct {
		const char *name, *why;
	} with_value[] = {
	    {"wrapper", "makes the compiler run a program (-wrapper)"},
	    {"fplugin", "loads a compiler plugin (-fplugin)"},
	    {"fpass-plugin", "loads an LLVM pass plugin (-fpass-plugin)"},
	    {"iplugindir", "sets where compiler plugins are loaded from (-iplugindir)"},
	    {"specs", "reads a specs file, which can run programs (-specs)"},
	    {"prefix", "makes the driver run its programs from another directory (--prefix)"},
	    {"gcc-toolchain", "takes the compiler's programs from another toolchain"},
	    {"gcc-install-dir", "takes the compiler's programs from another toolchain"},
	    {"ld-path", "runs the linker at a path of its own (--ld-path)"},
	};
	if (!w.n)
		return NULL;
	if (w.p[0] == '@')
		return "reads further arguments from a file (a response file, @file)";
	if (w.p[0] != '-')
		return NULL;
	for (size_t i = 0; i < sizeof(with_value) / sizeof(*with_value); i++) {
		int o = option(w, with_value[i].name);
		if (o) {
			*take = o == 1 && next ? 2 : 1;
			return with_value[i].why;
		}
	}
	if (starts(w, "-B")) {
		*take = is(w, "-B") && next ? 2 : 1;
		return "makes the driver run its programs (cc1, as, ld) from another directory "
		       "(-B)";
	}
	if (starts(w, "-ccc-") || starts(w, "--ccc-"))
		return "changes which programs the clang driver runs (-ccc-*)";
	if (starts(w, "-fuse-ld=") && memchr(w.p, '/', w.n))
		return "runs the linker at a path of its own (-fuse-ld=PATH)";
	if (depth > 4)
		return NULL;
	struct word tmp;
	if (starts(w, "-Wl,"))
		return scan_commas(CTX_LINKER, (struct word){w.p + 4, w.n - 4}, depth);
	if (starts(w, "-Wp,"))
		return scan_commas(CTX_DRIVER, (struct word){w.p + 4, w.n - 4}, depth);
	if (starts(w, "-Wa,"))
		return scan_commas(CTX_OTHER, (struct word){w.p + 4, w.n - 4}, depth);
	static const struct {
		const char *name;
		enum ctx c;
	} carriers[] = {{"Xlinker", CTX_LINKER},
	                {"Xpreprocessor", CTX_DRIVER},
	                {"Xassembler", CTX_OTHER},
	                {"Xclang", CTX_CC1}};
	for (size_t i = 0; i < sizeof(carriers) / sizeof(*carriers); i++) {
		int o = option(w, carriers[i].name);
		if (!o)
			continue;
		*take = o == 1 && next ? 2 : 1;
		const struct word *v = value_of(w, o == 2, next, &tmp);
		return v ? scan_list(carriers[i].c, (struct words){v, 1}, depth + 1) : NULL;
	}
	return NULL;
}

static const char *cc1_word(struct word w, const struct word *next, size_t *take)
{
	static const char *const names[] = {"load", "plugin", "add-plugin", "fpass-plugin",
	                                    "fplugin"};
	if (w.n && w.p[0] == '@')
		return "reads further arguments from a file (a response file, @file)";
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		int o = option(w, names[i]);
		if (o) {
			*take = o == 1 && next ? 2 : 1;
			return "makes clang load code (-Xclang -load, -plugin)";
		}
	}
	return NULL;
}

static const char *linker_word(struct word w, const struct word *next, size_t *take)
{
	static const char *const names[] = {"plugin", "load-pass-plugin", "run"};
	if (w.n && w.p[0] == '@')
		return "makes the linker read further arguments from a file (@file)";
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		int o = option(w, names[i]);
		if (o) {
			*take = o == 1 && next ? 2 : 1;
			return i == 2
			           ? "makes the linker run a program (mold -run)"
			           : "makes the linker load a plugin (-plugin, --load-pass-plugin)";
		}
	}
	if (starts(w, "-fuse-ld=") && memchr(w.p, '/', w.n))
		return "runs the linker at a path of its own (-fuse-ld=PATH)";
	return NULL;
}

static const char *nvcc_word(struct word w, const struct word *next, size_t *take, int depth)
{
	static const struct {
		const char *name, *why;
	} own[] = {
	    {"ccbin", "makes nvcc run another host compiler (-ccbin)"},
	    {"compiler-bindir", "makes nvcc run another host compiler (--compiler-bindir)"},
	    {"optf", "makes nvcc read further arguments from a file (--options-file)"},
	    {"options-file", "makes nvcc read further arguments from a file (--options-file)"},
	    {"run", "makes nvcc run the program it builds (--run)"},
	    {"run-args", "makes nvcc run the program it builds (--run-args)"},
	};
	static const struct {
		const char *name;
		enum ctx c;
	} carriers[] = {
	    {"Xcompiler", CTX_DRIVER}, {"compiler-options", CTX_DRIVER},
	    {"Xlinker", CTX_LINKER},   {"linker-options", CTX_LINKER},
	    {"Xptxas", CTX_OTHER},     {"ptxas-options", CTX_OTHER},
	    {"Xnvlink", CTX_OTHER},    {"nvlink-options", CTX_OTHER},
	    {"Xarchive", CTX_OTHER},   {"archive-options", CTX_OTHER},
	};
	for (size_t i = 0; i < sizeof(own) / sizeof(*own); i++) {
		int o = option(w, own[i].name);
		if (o) {
			*take = o == 1 && next && i != 4 ? 2 : 1;
			return own[i].why;
		}
	}
	struct word tmp;
	for (size_t i = 0; i < sizeof(carriers) / sizeof(*carriers); i++) {
		int o = option(w, carriers[i].name);
		if (!o)
			continue;
		*take = o == 1 && next ? 2 : 1;
		const struct word *v = value_of(w, o == 2, next, &tmp);
		if (!v || depth > 4)
			return NULL;
		/* nvcc splits the value at commas; read whole too, in case the host compiler
		 * gets it whole (-Xcompiler -Wl\,-plugin\,x.so, a quoting nvcc may keep) */
		size_t t2 = 1;
		const char *why = word_why(carriers[i].c, *v, NULL, &t2, depth + 1);
		return why ? why : scan_commas(carriers[i].c, *v, depth);
	}
	/* What nvcc does not know it forwards to the host compiler
	 * (--forward-unknown-to-host-compiler): read as the host compiler would. */
	return driver_word(w, next, take, depth);
}

static const char *word_why(enum ctx c, struct word w, const struct word *next, size_t *take,
                            int depth)
{
	*take = 1;
	switch (c) {
	case CTX_DRIVER:
		return driver_word(w, next, take, depth);
	case CTX_CC1:
		return cc1_word(w, next, take);
	case CTX_LINKER:
		return linker_word(w, next, take);
	case CTX_NVCC:
		return nvcc_word(w, next, take, depth);
	case CTX_OTHER:
		break;
	}
	return w.n && w.p[0] == '@' ? "reads further arguments from a file (a response file, @file)"
	                            : NULL;
}

static const char *scan_list(enum ctx c, struct words ws, int depth)
{
	for (size_t i = 0; i < ws.n;) {
		size_t take = 1;
		const char *why =
		    word_why(c, ws.v[i], i + 1 < ws.n ? &ws.v[i + 1] : NULL, &take, depth);
		if (why)
			return why;
		i += take;
	}
	return NULL;
}

bool code_flags_scan(const char *const *args, size_t n, enum code_flags_for who, size_t start,
                     struct code_flag_hit *hit)
{
	enum ctx c = who == CODE_FLAGS_NVCC ? CTX_NVCC : CTX_DRIVER;
	for (size_t i = start; i < n;) {
		struct word w = {args[i], strlen(args[i])}, nx;
		if (i + 1 < n)
			nx = (struct word){args[i + 1], strlen(args[i + 1])};
		size_t take = 1;
		const char *why = word_why(c, w, i + 1 < n ? &nx : NULL, &take, 0);
		if (why) {
			/* A carrier followed by its payload names the payload (-Xcompiler
			 * -fplugin=x.so names -fplugin=x.so). */
			bool carried = take == 2 && !word_why(c, w, NULL, &(size_t){1}, 0);
			hit->at = carried ? i + 1 : i;
			hit->next = i + take;
			hit->why = why;
			return true;
		}
		i += take;
	}
	return false;
}
