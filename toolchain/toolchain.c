/* toolchain.c: the nvcc options and the host compiler of a toolkit, read from the toolkit's own
 * files (nvcc --help, cudafe++, crt/host_config.h) rather than from a hand-kept table. */
#include "toolchain/toolchain.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "base/os-run.h"
#include "base/strbuf.h"
#include "standards/ninja.h"

/* True when the file at path contains needle (a binary's string table). */
static bool file_contains(struct arena *a, const char *path, const char *needle)
{
	struct diag quiet = {0};
	struct source src;
	if (!os_read_file(a, &quiet, path, &src))
		return false;
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= src.len; i++)
		if (src.text[i] == needle[0] && memcmp(src.text + i, needle, n) == 0)
			return true;
	return false;
}

unsigned toolchain_nvcc_lacks(struct arena *a, const char *root, const char *help)
{
	unsigned lacks = 0;
	if (!help || !strstr(help, "--threads"))
		lacks |= TOOLCHAIN_LACKS_THREADS;
	if (!help || !strstr(help, "(-objtemp)"))
		lacks |= TOOLCHAIN_LACKS_OBJTEMP;
	if (!help || !strstr(help, "--frandom-seed"))
		lacks |= TOOLCHAIN_LACKS_RANDOM_SEED;
	if (!file_contains(a, os_join(a, root, "bin/cudafe++"), "orig_src_path_name"))
		lacks |= TOOLCHAIN_LACKS_ORIG_SRC;
	return lacks;
}

/* Returns the newest gcc major <include_dir>/crt/host_config.h accepts ("gcc versions later
 * than 11 are not supported"), or 0 when the header sets no such limit or cannot be read. */
static int toolchain_max_gcc(struct arena *a, const char *include_dir)
{
	struct diag quiet = {0};
	struct source src;
	if (!include_dir ||
	    !os_read_file(a, &quiet, os_join(a, include_dir, "crt/host_config.h"), &src))
		return 0;
	/* "#error -- unsupported GNU version! gcc versions later than 11 are not supported!" */
	const char *p = strstr(src.text, "gcc versions later than ");
	if (!p)
		return 0;
	return atoi(p + strlen("gcc versions later than "));
}

/* Runs cc with one argument; its first output line, or NULL when it does not run cleanly. */
static const char *ask(struct arena *a, const char *cc, const char *arg)
{
	struct diag quiet = {0};
	const char *argv[] = {cc, arg, NULL};
	struct os_run r = {.argv = argv, .capture = true, .probe = true};
	struct strbuf out = {0};
	int st;
	const char *line = NULL;
	if (os_run(&quiet, &r, &out, &st) && st == 0 && out.len) /* shown: escaped */
		line = esc_mem(a, ESC_TERM, sb_str(&out), strcspn(sb_str(&out), "\r\n"));
	sb_release(&out);
	return line;
}

struct cand {
	const char *cc, *cxx, *version;
	int major;
	bool clang;
};

/* Fills c for the compiler pair (cc, cxx); false when cxx is not on env's PATH. */
static bool probe(struct arena *a, const char *const *env, const char *cc, const char *cxx,
                  struct cand *c)
{
	if (!os_which(a, env, cxx))
		return false;
	const char *banner = ask(a, cxx, "--version");
	if (!banner)
		return false;
	c->cc = cc;
	c->cxx = cxx;
	c->clang = strstr(banner, "clang") != NULL;
	c->version = ask(a, cxx, c->clang ? "-dumpversion" : "-dumpfullversion");
	c->major = c->version && isdigit((unsigned char)c->version[0]) ? atoi(c->version) : 0;
	return true;
}

void toolchain_pick_host(struct arena *a, const char *const *env, const char *include_dir,
                         const char *cuda, struct host_compiler *out)
{
	const char *env_cc = env_nonempty(env, "CC"), *env_cxx = env_nonempty(env, "CXX");
	struct cand def = {0};
	bool have_def = probe(a, env, env_cc ? env_cc : "cc", env_cxx ? env_cxx : "c++", &def);
	memset(out, 0, sizeof(*out));
	out->max_gcc = toolchain_max_gcc(a, include_dir);
	out->cc = have_def ? def.cc : (env_cc ? env_cc : "cc");
	out->cxx = have_def ? def.cxx : (env_cxx ? env_cxx : "c++");
	out->version = have_def ? def.version : NULL;
	int max = out->max_gcc;
	bool def_ok = have_def && (def.clang || max == 0 || (def.major && def.major <= max));
	if (env_cxx) {
		/* The user chose: take it, or say why the toolkit will not. */
		if (!def_ok)
			out->error = arena_printf(
			    a,
			    "CXX=%s is gcc %s; CUDA %s accepts gcc %d and older (its "
			    "crt/host_config.h): set CXX to g++-%d (Debian package g++-%d)",
			    env_cxx, def.version ? def.version : "(unknown version)", cuda, max,
			    max, max);
		return;
	}
	/* The newest accepted one: c++ itself, or a versioned g++-N beside it. */
	struct cand best = def_ok ? def : (struct cand){0};
	for (int n = max ? max : 0; n >= 6; n--) {
		struct cand c = {0};
		char *cxx = arena_printf(a, "g++-%d", n), *cc = arena_printf(a, "gcc-%d", n);
		if (best.cxx && best.major >= n)
			break;
		if (!probe(a, env, cc, cxx, &c) || c.clang || c.major != n || !os_which(a, env, cc))
			continue;
		best = c;
		break;
	}
	if (!best.cxx) {
		out->error = arena_printf(
		    a,
		    "no host compiler for CUDA %s: it accepts gcc %d and older (its "
		    "crt/host_config.h), this machine has %s %s and no g++-%d; install Debian's "
		    "g++-%d (apt-get install g++-%d)",
		    cuda, max, out->cxx, def.version ? def.version : "(not found)", max, max, max);
		return;
	}
	if (best.cxx == def.cxx)
		return;
	out->cc = best.cc;
	out->cxx = best.cxx;
	out->version = best.version;
	out->ccbin = true;
}

/* Whether the word before flags->v[i] takes it as its value (-Xcompiler x, -Xptxas x...). */
static bool nvcc_option_value(const struct strv *flags, size_t i)
{
	const char *prev = i ? flags->v[i - 1] : "";
	return !strncmp(prev, "-X", 2) || !strncmp(prev, "--compiler-options", 18) ||
	       !strncmp(prev, "--ptxas-options", 15) || !strncmp(prev, "--linker-options", 16);
}

bool toolchain_nvcc_own_opt(const struct strv *flags)
{
	for (size_t i = 0; i < flags->n; i++) {
		const char *f = flags->v[i];
		if (!nvcc_option_value(flags, i) && !strncmp(f, "-O", 2) && strcmp(f, "-O3") != 0)
			return true;
	}
	return false;
}

bool toolchain_nvcc_own_std(const struct strv *flags)
{
	for (size_t i = 0; i < flags->n; i++) {
		const char *f = flags->v[i];
		if (nvcc_option_value(flags, i))
			continue;
		if (!strncmp(f, "-std=", 5) || !strncmp(f, "--std=", 6) ||
		    ((!strcmp(f, "-std") || !strcmp(f, "--std")) && i + 1 < flags->n))
			return true;
	}
	return false;
}

/* nvcc pastes -Xcompiler values unquoted into the shell command that runs the host compiler,
 * after splitting them at commas: a value with anything but characters sh reads as themselves
 * (a space in a project path, ';', '|', '&', '(', '<', '*', '#', '~'...) or with a comma must
 * carry its own double quotes, which nvcc keeps; inside them sh treats all but '"', '\\', '$'
 * and '`' literally, and those are escaped. */
char *toolchain_xcompiler(struct arena *a, const char *flag)
{
	if (ninja_shell_plain(flag) && !strchr(flag, ','))
		return arena_printf(a, "-Xcompiler=%s", flag);
	struct strbuf sb = {0};
	sb_puts(&sb, "-Xcompiler=\"");
	for (const char *p = flag; *p; p++) {
		if (strchr("\"\\$`", *p))
			sb_putc(&sb, '\\');
		sb_putc(&sb, *p);
	}
	sb_putc(&sb, '"');
	return sb_to_arena(&sb, a);
}

void toolchain_nvcc_args(struct arena *a, unsigned lacks, const char *ccbin, const char *src,
                         int threads, struct strv *out)
{
	if (ccbin) {
		strv_push(a, out, "-ccbin");
		strv_push(a, out, ccbin);
	}
	if (!(lacks & TOOLCHAIN_LACKS_THREADS)) {
		strv_push(a, out, "--threads");
		strv_push(a, out, arena_printf(a, "%d", threads));
	}
	if (!(lacks & TOOLCHAIN_LACKS_OBJTEMP))
		strv_push(a, out, "-objtemp");
	const char *seed = arena_printf(a, "-frandom-seed=%s", src);
	strv_push(a, out,
	          lacks & TOOLCHAIN_LACKS_RANDOM_SEED ? toolchain_xcompiler(a, seed) : seed);
	/* cudafe++ hashes the source's absolute path into internal-linkage names: give it the
	 * project-relative one. */
	if (!(lacks & TOOLCHAIN_LACKS_ORIG_SRC)) {
		strv_push(a, out, "-Xcudafe");
		strv_push(a, out, arena_printf(a, "--orig_src_path_name=%s", src));
	}
}
