/* torch_scan.c: decisions about torch sources taken by the preprocessor itself (-M for include
 * closures, -E for what each header expands to), never by reading #include lines: guards such
 * as `#ifndef __CUDACC__`, macros and include paths are the compiler's business. */
#include "torch/torch_scan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/os-file.h"
#include "base/os-run.h"
#include "base/pool.h"
#include "base/sandbox.h"
#include "base/strbuf.h"
#include "standards/digest.h"
#include "torch/kernel_guess.h"

#define SCAN_FORMAT "cuwheel-scan 4"
/* A source is read whole (its bytes key the answer; the preprocessor's -E output of it is
 * held too): at most what the sdist reader takes for a member (packager/sdist.c). */
#define SCAN_SOURCE_MAX ((size_t)256 << 20)

/* What one scan_run asks of the compiler. */
enum scan_mode {
	SCAN_DEPS,        /* -M: the include closure */
	SCAN_EXPAND,      /* -E: per file, the digest of what it expanded to */
	SCAN_EXPAND_NOPY, /* -E, with the text inside Python's headers (python_root) left out */
	SCAN_COMPILE,     /* a compile whose outcome is the answer (argv holds -fsyntax-only or
	                   * -cuda); its closure is given (the same flags' -E) */
	SCAN_OBJECT,      /* SCAN_COMPILE of the build's own compile (argv less -MD/-MF/-c/-o):
	                   * the object is kept beside the answer (object_path) */
};

const char *pch_state_name(enum pch_state p)
{
	switch (p) {
	case PCH_USE:
		return "yes";
	case PCH_EXCLUDED:
		return "no (pch-exclude)";
	case PCH_REFUSED:
		return "refused";
	case PCH_NONE:
		break;
	}
	return "no";
}

/* The first 32 hex digits of the sha256 of data (a cache file's name). */
static char *hex_digest(struct arena *a, const void *data, size_t len)
{
	char hex[65];
	mem_sha256_hex(data, len, hex);
	return arena_strndup(a, hex, 32);
}

/* A path the compiler printed, as this process can stat it. */
static const char *stat_path(struct scan_ctx *s, const char *p)
{
	static const char canon[] = SANDBOX_CANON_PROJECT "/";
	if (s->canon_project && !strncmp(p, canon, sizeof(canon) - 1))
		return os_join(s->a, s->canon_project, p + sizeof(canon) - 1);
	return p[0] == '/' ? p : os_join(s->a, s->build_dir, p);
}

/* FNV-1a, 64 bits: per-file digests of expanded text (equality, not security). */
static uint64_t fnv(uint64_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The files of a -E run and their digests, found by name through an open-addressing table. */
struct filetab {
	struct arena *a;
	const char **names;
	uint64_t *digest, *pydigest;
	size_t n, cap;
	size_t *slot; /* index+1, 0 empty */
	size_t nslot;
};

static size_t filetab_find(struct filetab *t, const char *name, size_t len)
{
	uint64_t h = fnv(0xcbf29ce484222325ull, name, len);
	if (t->n * 2 >= t->nslot) {
		size_t ns = t->nslot ? t->nslot * 2 : 1024;
		size_t *slot = arena_calloc(t->a, ns, sizeof(*slot));
		for (size_t i = 0; i < t->n; i++) {
			uint64_t hi = fnv(0xcbf29ce484222325ull, t->names[i], strlen(t->names[i]));
			size_t j = (size_t)hi & (ns - 1);
			while (slot[j])
				j = (j + 1) & (ns - 1);
			slot[j] = i + 1;
		}
		t->slot = slot;
		t->nslot = ns;
	}
	size_t j = (size_t)h & (t->nslot - 1);
	while (t->slot[j]) {
		const char *n = t->names[t->slot[j] - 1];
		if (strlen(n) == len && !memcmp(n, name, len))
			return t->slot[j] - 1;
		j = (j + 1) & (t->nslot - 1);
	}
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;
		t->names = arena_realloc(t->a, t->names, t->cap, nc, sizeof(*t->names));
		t->digest = arena_realloc(t->a, t->digest, t->cap, nc, sizeof(*t->digest));
		t->pydigest = arena_realloc(t->a, t->pydigest, t->cap, nc, sizeof(*t->pydigest));
		t->cap = nc;
	}
	t->names[t->n] = arena_strndup(t->a, name, len);
	t->digest[t->n] = 0xcbf29ce484222325ull;
	t->pydigest[t->n] = 0xcbf29ce484222325ull;
	t->slot[j] = t->n + 1;
	return t->n++;
}

struct filetab *torchscan_mtimes(struct arena *a)
{
	struct filetab *t = arena_calloc(a, 1, sizeof(*t));
	t->a = a;
	return t;
}

/* The mtime of a file an answer names (stat_path), from s->mtimes where statted before in this
 * run (its pydigest slot marks it known, its digest slot holds it). */
static int64_t answer_mtime(struct scan_ctx *s, const char *name)
{
	const char *path = stat_path(s, name);
	struct filetab *t = s->mtimes;
	if (!t)
		return os_mtime_ns(path);
	size_t i = filetab_find(t, path, strlen(path));
	if (t->pydigest[i] != 1) {
		t->digest[i] = (uint64_t)os_mtime_ns(path);
		t->pydigest[i] = 1;
	}
	return (int64_t)t->digest[i];
}

/* Parses `# 12 "file" 1 3` (gcc's line markers); returns the unescaped name or NULL, and in
 * *flag 1 (a file entered), 2 (returned to) or 0. */
static const char *line_marker(struct arena *a, const char *p, const char *end, size_t *len,
                               int *flag)
{
	*flag = 0;
	if (p >= end || *p != '#')
		return NULL;
	p++;
	if (p < end && *p == ' ')
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p + 1 >= end || p[0] != ' ' || p[1] != '"')
		return NULL;
	p += 2;
	struct strbuf sb = {0};
	while (p < end && *p != '"') {
		if (*p == '\\' && p + 1 < end)
			p++;
		sb_putc(&sb, *p++);
	}
	if (sb.len == 0) {
		sb_release(&sb);
		return NULL;
	}
	if (p < end)
		p++;
	if (p + 1 < end && p[0] == ' ' && (p[1] == '1' || p[1] == '2') &&
	    (p + 2 == end || p[2] == ' '))
		*flag = p[1] - '0';
	*len = sb.len;
	return sb_to_arena(&sb, a);
}

static bool python_root(const char *f);

/* Digests of -E output: per file, its non-blank lines with runs of blanks as one space (gcc
 * lays out the same tokens with other spacing when a file is entered at another point). With
 * nopy, the text of every file while a Python header (python_root) is open goes to its second
 * digest (pydigests) instead: the first is what the source and every other file say outside
 * Python's headers, the second what a file said while Python's headers included it (a system
 * header Python.h includes first, which other headers include again only later without it). */
static void parse_expanded(struct arena *a, const char *text, size_t n, bool nopy,
                           struct scan_closure *out)
{
	struct filetab t = {.a = a};
	size_t cur = filetab_find(&t, "<stdin>", 7);
	/* The include stack (from the markers' flags 1 and 2) and the depth at which the
	 * outermost open Python header was entered (0: none open). */
	const char **stack = NULL;
	size_t depth = 0, cap = 0, py_depth = 0;
	for (const char *p = text, *end = text + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t flen = 0;
		int flag = 0;
		const char *fname = line_marker(a, p, le, &flen, &flag);
		if (fname && nopy && flag == 1) {
			if (depth == cap) {
				size_t nc = cap ? cap * 2 : 64;
				stack = arena_realloc(a, stack, cap, nc, sizeof(*stack));
				cap = nc;
			}
			stack[depth++] = fname;
			if (!py_depth && python_root(fname))
				py_depth = depth;
		} else if (fname && nopy && flag == 2) {
			/* Back in an includer: pop to it. */
			while (depth > 0 && strcmp(stack[depth - 1], fname) != 0)
				depth--;
			if (py_depth > depth)
				py_depth = 0;
		}
		if (fname) {
			cur = filetab_find(&t, fname, flen);
		} else {
			uint64_t *dst = nopy && py_depth ? &t.pydigest[cur] : &t.digest[cur];
			uint64_t h = *dst;
			bool any = false, space = false;
			for (const char *q = p; q < le; q++) {
				if (*q == ' ' || *q == '\t' || *q == '\r') {
					space = any;
					continue;
				}
				if (space)
					h = fnv(h, " ", 1);
				space = false;
				any = true;
				h = fnv(h, q, 1);
			}
			if (any)
				h = fnv(h, "\n", 1);
			*dst = h;
		}
		p = nl ? nl + 1 : end;
	}
	for (size_t i = 1; i < t.n; i++) {
		strv_push(a, &out->files, t.names[i]);
		strv_push(a, &out->digests,
		          arena_printf(a, "%016llx", (unsigned long long)t.digest[i]));
		strv_push(a, &out->pydigests,
		          arena_printf(a, "%016llx", (unsigned long long)t.pydigest[i]));
	}
}

/* Parses a make rule (`obj: a.cu b.h \` ...): every prerequisite, unescaped. */
static void parse_depfile(struct arena *a, const char *text, size_t n, struct scan_closure *out)
{
	const char *p = text, *end = text + n;
	/* The target: up to the first ':' that is followed by a blank or the end. */
	while (p < end &&
	       !(*p == ':' && (p + 1 == end || p[1] == ' ' || p[1] == '\n' || p[1] == '\\')))
		p++;
	if (p < end)
		p++;
	struct strbuf tok = {0};
	for (; p <= end; p++) {
		char c = p < end ? *p : ' ';
		if (c == '\\' && p + 1 < end && p[1] == '\n') {
			p++;
			c = ' ';
		} else if (c == '\\' && p + 1 < end && (p[1] == ' ' || p[1] == '#')) {
			sb_putc(&tok, *++p);
			continue;
		} else if (c == '$' && p + 1 < end && p[1] == '$') {
			sb_putc(&tok, *++p);
			continue;
		}
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
			if (tok.len) {
				strv_push(a, &out->files, arena_strndup(a, tok.buf, tok.len));
				tok.len = 0;
			}
			continue;
		}
		sb_putc(&tok, c);
	}
	sb_release(&tok);
}

/* Copies the next blank-ended word of [*p, end), shorter than cap, into w and skips one blank
 * after it; false when there is none or it is longer. */
static bool cache_word(const char **p, const char *end, char *w, size_t cap)
{
	size_t n = 0;
	while (*p + n < end && (*p)[n] != ' ')
		n++;
	if (!n || n >= cap || *p + n >= end)
		return false;
	memcpy(w, *p, n);
	w[n] = '\0';
	*p += n + 1;
	return true;
}

/* Parses `f <mtime> <digest> <pydigest> <name>` in [p, nl): *used is where the name starts. */
static bool cache_line(const char *p, const char *nl, long long *mt, char dig[17], char pydig[17],
                       size_t *used)
{
	const char *q = p + 2;
	char num[32];
	if (nl - p < 2 || p[0] != 'f' || p[1] != ' ' || !cache_word(&q, nl, num, sizeof(num)))
		return false;
	char *e = NULL;
	*mt = strtoll(num, &e, 10);
	if (!e || *e || !cache_word(&q, nl, dig, 17) || !cache_word(&q, nl, pydig, 17))
		return false;
	*used = (size_t)(q - p);
	return q < nl;
}

/* Reads a cached answer; true when it is still valid (every file unchanged). */
static bool cache_read(struct scan_ctx *s, const char *path, bool expand, const char *obj,
                       struct scan_closure *out)
{
	struct source src;
	struct diag quiet = {0};
	if (!os_read_file(s->a, &quiet, path, &src))
		return false;
	const char *p = src.text;
	size_t hl = strlen(SCAN_FORMAT);
	if (strncmp(p, SCAN_FORMAT "\n", hl + 1) != 0)
		return false;
	p += hl + 1;
	struct scan_closure c = {.ok = true, .cached = true};
	/* A compile that failed: its first error line. */
	if (!strncmp(p, "x ", 2)) {
		const char *nl = strchr(p, '\n');
		if (!nl)
			return false;
		c.ok = false;
		c.error = arena_strndup(s->a, p + 2, (size_t)(nl - p - 2));
		p = nl + 1;
	} else if (!strncmp(p, "b\n", 2)) {
		/* A compile the build ran and passed (PROOF_RECORD): no object kept. */
		c.built = true;
		p += 2;
	}
	while (*p) {
		const char *nl = strchr(p, '\n');
		if (!nl)
			return false;
		long long mt = 0;
		char dig[17] = {0}, pydig[17] = {0};
		size_t used = 0;
		/* One line at a time: sscanf on the rest of the file would measure all of it on
		 * each call (thousands of lines per answer). */
		if (!cache_line(p, nl, &mt, dig, pydig, &used))
			return false;
		char *name = arena_strndup(s->a, p + used, (size_t)(nl - p) - used);
		if (name[0] != '<' && answer_mtime(s, name) != (int64_t)mt)
			return false;
		strv_push(s->a, &c.files, name);
		if (expand) {
			strv_push(s->a, &c.digests, arena_strdup(s->a, dig));
			strv_push(s->a, &c.pydigests, arena_strdup(s->a, pydig));
		}
		p = nl + 1;
	}
	/* A proven compile's object must still be there. */
	if (obj && c.ok && !c.built && !os_exists(os_join(s->a, s->build_dir, obj)))
		return false;
	if (obj && c.ok && !c.built)
		c.obj = obj;
	*out = c;
	return true;
}

static bool cache_write(struct scan_ctx *s, const char *path, const struct scan_closure *c)
{
	struct strbuf sb = {0};
	sb_puts(&sb, SCAN_FORMAT "\n");
	if (!c->ok)
		sb_printf(&sb, "x %s\n", c->error);
	else if (c->built)
		sb_puts(&sb, "b\n");
	for (size_t i = 0; i < c->files.n; i++) {
		const char *f = c->files.v[i];
		if (strchr(f, '\n'))
			continue;
		long long mt = f[0] == '<' ? 0 : (long long)os_mtime_ns(stat_path(s, f));
		sb_printf(&sb, "f %lld %s %s %s\n", mt, c->digests.n ? c->digests.v[i] : "-",
		          c->pydigests.n ? c->pydigests.v[i] : "-", f);
	}
	bool ok = os_write_atomic(s->d, path, sb.buf, sb.len, 0644);
	sb_release(&sb);
	return ok;
}

/* The first line of a compiler's output that reports an error (else its first line), for a
 * one-line reason in plan. */
static const char *first_error(struct arena *a, const char *msg)
{
	const char *p = msg, *hit = NULL;
	while (p && *p && !hit) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		for (size_t i = 0; i + 5 <= n && !hit; i++)
			if (!memcmp(p + i, "error", 5))
				hit = p;
		if (!hit)
			p = nl ? nl + 1 : NULL;
	}
	if (!hit)
		hit = msg;
	const char *nl = strchr(hit, '\n');
	return arena_strndup(a, hit, nl ? (size_t)(nl - hit) : strlen(hit));
}

/* The object a SCAN_OBJECT answer (cache: its .scan file) keeps: <cache less .scan>.obj/
 * <basename of src>.o. The directory is the answer's own; the basename is the build's, since
 * nvcc names its temporaries (-objtemp), and so symbols of the object, after it. */
static const char *object_path(struct arena *a, const char *cache, const char *src)
{
	const char *name = strrchr(cache, '/') ? strrchr(cache, '/') + 1 : cache;
	size_t n = strlen(name);
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	return arena_printf(a, "scan/%.*s.obj/%s.o", (int)(n > 5 ? n - 5 : n), name, base);
}

/* The cache file that answers argv run on src as mode asks, keyed by the command as run and
 * the source's bytes (headers are checked one by one against the mtimes recorded with the
 * answer). NULL + diagnostic when src is over SCAN_SOURCE_MAX or cannot be read. */
static const char *scan_cache_path(struct scan_ctx *s, const struct strv *argv, const char *src,
                                   enum scan_mode mode)
{
	struct arena *a = s->a;
	static const char *const tags[] = {"M\x1e", "E\x1e", "P\x1e", "C\x1e", "O\x1e"};
	struct strbuf key = {0};
	sb_puts(&key, tags[mode]);
	for (size_t i = 0; i < argv->n; i++)
		sb_printf(&key, "%s\x1f", argv->v[i]);
	sb_printf(&key, "\x1e%s\x1e", src);
	/* Named by its real path in a refusal (src is relative to the build dir). */
	const char *path = os_realpath(a, stat_path(s, src));
	if (path) {
		struct source text;
		if (!os_read_file_max(a, s->d, path, SCAN_SOURCE_MAX,
		                      "a source the torch scan reads", &text)) {
			sb_release(&key);
			return NULL;
		}
		sb_add(&key, text.text, text.len);
	}
	char *cache =
	    arena_printf(a, "%s/scan/%s.scan", s->build_dir, hex_digest(a, key.buf, key.len));
	sb_release(&key);
	return cache;
}

static const char *missing_header(struct arena *a, const char *err);
static const char *include_dir_arg(const struct strv *argv, size_t *i);

/* Splits a preprocessor's output run with -H: the headers it opened ("... path" lines, into
 * files, each once) and the rest (its messages, returned). */
static char *split_opened(struct arena *a, const char *msg, struct strv *files)
{
	struct strbuf rest = {0};
	for (const char *p = msg; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		size_t dots = 0;
		while (dots < n && p[dots] == '.')
			dots++;
		if (dots && dots < n && p[dots] == ' ') {
			char *f = arena_strndup(a, p + dots + 1, n - dots - 1);
			if (!strv_contains(files, f))
				strv_push(a, files, f);
		} else {
			sb_add(&rest, p, n);
			sb_putc(&rest, '\n');
		}
		p += n + (nl ? 1 : 0);
	}
	return sb_to_arena(&rest, a);
}

/* A preprocessor run that failed: out->ok = false with its messages. A -M that stopped on a
 * missing header (a kernel that includes Python.h, compiled without Python's include dir) is
 * cached like an answer: that error line, against the source, every header it opened before
 * (-H) and the include dirs it searched (a header added to one changes a dir's mtime), so a
 * warm plan or build does not run it again. Other failures are not cached (reported). */
static bool deps_failed(struct scan_ctx *s, const struct strv *argv, const char *src,
                        enum scan_mode mode, struct strbuf *msg, const char *cache,
                        struct scan_closure *out)
{
	struct arena *a = s->a;
	out->ok = false;
	if (!msg->len) {
		out->error = arena_strdup(a, "no output");
		return true;
	}
	struct strv opened = {0};
	out->error = split_opened(a, sb_to_arena(msg, a), &opened);
	const char *missing = missing_header(a, out->error);
	if (mode != SCAN_DEPS || !missing)
		return true;
	const char *line = strstr(out->error, "fatal error: ");
	while (line > out->error && line[-1] != '\n')
		line--;
	const char *nl = strchr(line, '\n');
	struct scan_closure c = {
	    .ok = false, .error = arena_strndup(a, line, nl ? (size_t)(nl - line) : strlen(line))};
	strv_push(a, &c.files, src);
	for (size_t i = 0; i < opened.n; i++)
		if (!strv_contains(&c.files, opened.v[i]))
			strv_push(a, &c.files, opened.v[i]);
	out->files = c.files; /* what it read, as a cached answer gives it (less the dirs) */
	/* A dir is named with a trailing '/' (stat then checks it is one), so that no reader
	 * takes it for a file it opened. */
	for (size_t i = 1; i < argv->n; i++) {
		const char *dir = include_dir_arg(argv, &i);
		const char *slash = dir ? arena_printf(a, "%s/", dir) : NULL;
		if (dir && !strv_contains(&c.files, slash))
			strv_push(a, &c.files, slash);
	}
	return cache_write(s, cache, &c);
}

/* Runs argv on src as mode asks, with cwd = build dir and the output in tmp, fills out and
 * writes it to cache. False (diagnostic) when the command cannot start or the cache cannot be
 * written; a compiler error is out->ok = false. */
static bool scan_exec(struct scan_ctx *s, const struct strv *argv, const char *src,
                      enum scan_mode mode, const struct strv *closure, const char *cache,
                      const char *twin, const char *tmp, struct scan_closure *out)
{
	struct arena *a = s->a;
	bool expand = mode == SCAN_EXPAND || mode == SCAN_EXPAND_NOPY;
	const char **av = arena_calloc(a, argv->n + 10, sizeof(*av));
	size_t n = 0;
	for (size_t i = 0; i < argv->n; i++)
		av[n++] = argv->v[i];
	const char *obj = NULL;
	if (mode == SCAN_OBJECT) {
		/* As the graph's compile rules run it: $flags -MD -MF $out.d -c $in -o $out. */
		obj = object_path(a, cache, src);
		char *dir = arena_strndup(a, obj, (size_t)(strrchr(obj, '/') - obj));
		if (!os_mkdir_p(s->d, os_join(a, s->build_dir, dir)))
			return false;
		tmp = obj;
		/* Its old answer goes first: an object half written is never one it vouches for. */
		os_unlink(cache);
		av[n++] = "-MD";
		av[n++] = "-MF";
		av[n++] = arena_printf(a, "%s.d", obj);
		av[n++] = "-c";
	} else if (mode != SCAN_COMPILE) {
		av[n++] = expand ? "-E" : "-M";
	}
	/* -H: every header the preprocessor opens, on stderr, a failed -M too (below). */
	if (mode == SCAN_DEPS) {
		const char *cc =
		    strrchr(argv->v[0], '/') ? strrchr(argv->v[0], '/') + 1 : argv->v[0];
		if (!strcmp(cc, "nvcc"))
			av[n++] = "-Xcompiler";
		av[n++] = "-H";
	}
	av[n++] = src;
	av[n++] = "-o";
	av[n++] = tmp;
	struct os_run r = {.argv = av, .cwd = s->build_dir, .capture = true};
	struct strbuf msg = {0};
	int status = 0;
	if (!os_run(s->d, &r, &msg, &status)) {
		sb_release(&msg);
		return false;
	}
	if (mode == SCAN_COMPILE || mode == SCAN_OBJECT) {
		if (!obj || status != 0)
			os_unlink(obj ? os_join(a, s->build_dir, obj) : tmp);
		if (obj && status == 0)
			out->obj = obj;
		out->ok = status == 0;
		if (status != 0)
			out->error = msg.len ? first_error(a, sb_to_arena(&msg, a)) : "no output";
		else
			sb_release(&msg);
		for (size_t i = 0; i < closure->n; i++)
			strv_push(a, &out->files, closure->v[i]);
		return cache_write(s, cache, out);
	}
	if (status != 0) {
		os_unlink(tmp);
		return deps_failed(s, argv, src, mode, &msg, cache, out);
	}
	sb_release(&msg);
	struct source res;
	if (!os_read_file(a, s->d, tmp, &res))
		return false;
	os_unlink(tmp);
	out->ok = true;
	if (expand)
		parse_expanded(a, res.text, res.len, mode == SCAN_EXPAND_NOPY, out);
	else
		parse_depfile(a, res.text, res.len, out);
	/* The same -E read the other way answers the twin mode too: one preprocessor run. */
	if (expand && twin) {
		struct scan_closure other = {.ok = true};
		parse_expanded(a, res.text, res.len, mode != SCAN_EXPAND_NOPY, &other);
		if (!cache_write(s, twin, &other))
			return false;
	}
	return cache_write(s, cache, out);
}

/* One scan a prefill pass queued. */
struct scan_job {
	struct strv argv;
	const char *src;
	enum scan_mode mode;
	struct strv closure; /* SCAN_COMPILE, SCAN_OBJECT */
	const char *cache;
	const char *twin; /* -E: the other -E mode's cache file, answered by the same run */
	char *failed;     /* a preprocessor run that failed: its output (malloc'd by the job) */
};

struct scan_batch {
	struct arena a;        /* the jobs and names below, for the whole prefill */
	struct scan_job *jobs; /* queued by this pass */
	size_t n, cap;
	struct strv queued; /* the cache file of every job ever queued: each runs once */
	struct strv failed, failed_why; /* preprocessor runs that failed (not cached): their
	                                 * cache files and outputs, for the passes after */
	const struct scan_ctx *s;
	long pid;
};

static void strv_copy(struct arena *a, const struct strv *from, struct strv *to)
{
	for (size_t i = 0; from && i < from->n; i++)
		strv_push(a, to, arena_strdup(a, from->v[i]));
}

/* Queues argv on src unless it was queued before (its answer then is not coming: the
 * decisions will run it themselves). */
static void batch_queue(struct scan_batch *b, const struct strv *argv, const char *src,
                        enum scan_mode mode, const struct strv *closure, const char *cache,
                        const char *twin)
{
	if (strv_contains(&b->queued, cache) || (twin && strv_contains(&b->queued, twin)))
		return;
	strv_push(&b->a, &b->queued, arena_strdup(&b->a, cache));
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		b->jobs = arena_realloc(&b->a, b->jobs, b->cap, cap, sizeof(*b->jobs));
		b->cap = cap;
	}
	struct scan_job *j = &b->jobs[b->n++];
	*j = (struct scan_job){.src = arena_strdup(&b->a, src),
	                       .mode = mode,
	                       .cache = arena_strdup(&b->a, cache),
	                       .twin = twin ? arena_strdup(&b->a, twin) : NULL};
	strv_copy(&b->a, argv, &j->argv);
	strv_copy(&b->a, closure, &j->closure);
}

/* A failed preprocessor run that the prefill already made (its cache file among keys, its
 * output the same entry of why), or NULL. */
static const char *failed_before(const struct strv *keys, const struct strv *why, const char *cache)
{
	for (size_t i = 0; i < keys->n; i++)
		if (!strcmp(keys->v[i], cache))
			return why->v[i];
	return NULL;
}

/* PROOF_RECORD's answer to a scan the cache (cache) could not answer: a compile (the build
 * ran it and it passed) is written to the cache as passed, with closure (the files of its
 * flags' -E, unchanged since that -E, or its answer would not have been read) and no object;
 * a -E is pending (runs nothing: what changed since the build's -E is not what it compiled).
 * False + diagnostic when the cache cannot be written. */
static bool scan_record(struct scan_ctx *s, bool compile, const struct strv *closure,
                        const char *cache, struct scan_closure *out)
{
	out->ok = true;
	if (!compile) {
		out->pending = true;
		return true;
	}
	out->built = true;
	for (size_t i = 0; closure && i < closure->n; i++)
		strv_push(s->a, &out->files, closure->v[i]);
	return cache_write(s, cache, out);
}

/* Runs argv (a compiler command without output options) on src as mode asks, with cwd = build
 * dir, and fills out; answers from the cache when argv, src's content and every file of the
 * cached closure are unchanged. SCAN_COMPILE takes its closure from closure (its outcome, a
 * failure too, is cached against it). In a prefill pass (s->batch) an unanswered scan is
 * queued and answered pending. False (diagnostic) when src is over SCAN_SOURCE_MAX or cannot
 * be read, the cache cannot be written or the command cannot start; a compiler error, a
 * missing src included, is out->ok = false. */
static bool scan_run(struct scan_ctx *s, const struct strv *argv, const char *src,
                     enum scan_mode mode, const struct strv *closure, struct scan_closure *out)
{
	memset(out, 0, sizeof(*out));
	bool expand = mode == SCAN_EXPAND || mode == SCAN_EXPAND_NOPY;
	const char *cache = scan_cache_path(s, argv, src, mode);
	if (!cache)
		return false;
	if (cache_read(s, cache, expand, mode == SCAN_OBJECT ? object_path(s->a, cache, src) : NULL,
	               out))
		return true;
	if (s->proofs == PROOF_GUESS) {
		out->ok = out->pending = true;
		return true;
	}
	bool compile = mode == SCAN_COMPILE || mode == SCAN_OBJECT;
	/* A -M runs as ever when its answer is not cached. */
	if (s->proofs == PROOF_RECORD && mode != SCAN_DEPS)
		return scan_record(s, compile, closure, cache, out);
	if (s->proofs == PROOF_DEFER && compile) {
		out->ok = out->deferred = true;
		return true;
	}
	/* SCAN_EXPAND and SCAN_EXPAND_NOPY of one command read the same preprocessor output. */
	const char *twin = NULL;
	if (expand && !(twin = scan_cache_path(
	                    s, argv, src, mode == SCAN_EXPAND ? SCAN_EXPAND_NOPY : SCAN_EXPAND)))
		return false;
	const char *why = s->batch ? failed_before(&s->batch->failed, &s->batch->failed_why, cache)
	                           : failed_before(&s->failed, &s->failed_why, cache);
	if (why) {
		out->ok = false;
		out->error = arena_strdup(s->a, why);
		return true;
	}
	if (s->batch) {
		batch_queue(s->batch, argv, src, mode, closure, cache, twin);
		out->ok = out->pending = true;
		return true;
	}
	const char *dir = os_join(s->a, s->build_dir, "scan");
	if (!os_mkdir_p(s->d, dir))
		return false;
	char *tmp = arena_printf(s->a, "%s/out-%ld.tmp", dir, (long)getpid());
	s->ran++;
	return scan_exec(s, argv, src, mode, closure, cache, twin, tmp, out);
}

/* pool_fn: runs the i-th queued scan, in an arena of its own; a failure leaves its answer out
 * of the cache. */
static void batch_job(void *ctx, size_t i)
{
	struct scan_batch *b = ctx;
	struct scan_job *j = &b->jobs[i];
	struct arena a = {0};
	struct diag quiet = {0};
	struct scan_ctx s = {.a = &a,
	                     .d = &quiet,
	                     .build_dir = b->s->build_dir,
	                     .proj = b->s->proj,
	                     .canon_project = b->s->canon_project};
	struct scan_closure out = {0};
	const char *tmp = arena_printf(&a, "%s/scan/out-%ld-%zu.tmp", s.build_dir, b->pid, i);
	bool ran =
	    scan_exec(&s, &j->argv, j->src, j->mode, &j->closure, j->cache, j->twin, tmp, &out);
	/* A compile's failure is cached, a -M's on a missing header too (deps_failed); every
	 * preprocessor failure is also kept for this prefill and the decisions after it. */
	if (ran && !out.ok && out.error && j->mode != SCAN_COMPILE && j->mode != SCAN_OBJECT)
		j->failed = strdup(out.error);
	arena_free(&a);
}

static const char *shown(struct scan_ctx *s, const char *f);
static void closure_index(struct arena *a, const struct scan_closure *c, struct filetab *t,
                          size_t *held);

/* The sources the batch's jobs read, each once, as the project names them: the first four,
 * then how many more (for the progress). */
static const char *batch_sources(struct scan_ctx *s, const struct scan_batch *b)
{
	struct strv seen = {0};
	for (size_t i = 0; i < b->n; i++)
		if (!strv_contains(&seen, b->jobs[i].src))
			strv_push(s->a, &seen, b->jobs[i].src);
	struct strbuf sb = {0};
	for (size_t i = 0; i < seen.n && i < 4; i++)
		sb_printf(&sb, "%s%s", i ? ", " : "", shown(s, seen.v[i]));
	if (seen.n > 4)
		sb_printf(&sb, " and %zu more", seen.n - 4);
	return sb_to_arena(&sb, s->a);
}

/* Moves the failures of the batch's jobs that just ran into b->failed (an -E's under its twin
 * too). */
static void batch_failures(struct scan_batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct scan_job *j = &b->jobs[i];
		if (!j->failed)
			continue;
		for (int t = 0; t < (j->twin ? 2 : 1); t++) {
			strv_push(&b->a, &b->failed, t ? j->twin : j->cache);
			strv_push(&b->a, &b->failed_why, arena_strdup(&b->a, j->failed));
		}
		free(j->failed);
		j->failed = NULL;
	}
}

void torchscan_prefill(struct scan_ctx *s, size_t workers,
                       void (*pass)(void *ctx, struct scan_ctx *s), void *ctx)
{
	if (workers <= 1)
		return;
	struct diag quiet = {0};
	struct scan_batch b = {.s = s, .pid = (long)getpid()};
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t total = 0;
	/* A scan waits on at most a few others (expand, prove, compile, rescan): the bound only
	 * guards against a decision that keeps asking new questions. */
	for (int round = 0; round < 16; round++) {
		struct arena pa = {0};
		struct diag pd = {0};
		struct scan_ctx ps = *s;
		ps.a = &pa;
		ps.d = &pd;
		ps.batch = &b;
		b.n = 0;
		pass(ctx, &ps);
		size_t n = b.n;
		/* Made only when there is a run: a plan with nothing to scan writes nothing. */
		if (n && !os_mkdir_p(&quiet, os_join(s->a, s->build_dir, "scan"))) {
			arena_free(&pa);
			break;
		}
		if (n) {
			/* What runs now, for the progress: the preprocessor runs, and the compiles
			 * of the Python-free proof (which are the build's own compiles). */
			size_t k[5] = {0};
			for (size_t i = 0; i < n; i++)
				k[b.jobs[i].mode]++;
			diag_msg(s->d, DIAG_NOTE,
			         "source scan, step %d: %zu preprocessor run%s (-M %zu, -E %zu), "
			         "%zu compile%s of the Python-free proof, %zu at a time: %s",
			         round + 1, k[0] + k[1] + k[2], k[0] + k[1] + k[2] == 1 ? "" : "s",
			         k[0], k[1] + k[2], k[3] + k[4], k[3] + k[4] == 1 ? "" : "s",
			         workers < n ? workers : n, batch_sources(s, &b));
			pool_run(n, workers, batch_job, &b);
			total += n;
			batch_failures(&b);
		}
		arena_free(&pa);
		if (!n)
			break;
	}
	/* The decisions after the prefill find its failures too. */
	for (size_t i = 0; i < b.failed.n; i++) {
		strv_push(s->a, &s->failed, arena_strdup(s->a, b.failed.v[i]));
		strv_push(s->a, &s->failed_why, arena_strdup(s->a, b.failed_why.v[i]));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (total)
		diag_msg(s->d, DIAG_NOTE, "source scan: %zu run%s in %.1f s", total,
		         total == 1 ? "" : "s",
		         (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	arena_free(&b.a);
}

/* Returns the package dir of ti (the parent of its first include dir, ".../torch"). */
static char *torch_root(struct arena *a, const struct torch_info *ti)
{
	if (!ti->include_dirs.n)
		return NULL;
	const char *inc = ti->include_dirs.v[0];
	const char *sl = strrchr(inc, '/');
	return sl ? arena_strndup(a, inc, (size_t)(sl - inc)) : NULL;
}

const char *torchscan_link(struct scan_ctx *s, const struct torch_info *ti)
{
	struct arena *a = s->a;
	char *root = torch_root(a, ti);
	if (!root || !ti->version) {
		diag_msg(s->d, DIAG_ERROR, "torch %s: its probe names no include dir",
		         ti->version ? ti->version : "?");
		return NULL;
	}
	/* The ABI defines are in the name: two builds of one version that differ in them are
	 * two torches. */
	struct strbuf sb = {0};
	sb_printf(&sb, "%d", ti->cxx11_abi);
	for (size_t i = 0; i < ti->abi_flags.n; i++)
		sb_printf(&sb, "\x1f%s", ti->abi_flags.v[i]);
	char *dig = hex_digest(a, sb.buf ? sb.buf : "", sb.len);
	sb_release(&sb);
	dig[8] = '\0';
	/* Another platform's wheel of the same version is another torch. */
	const char *rel = ti->platform
	                      ? arena_printf(a, "torch/%s-%s-%s", ti->version, ti->platform, dig)
	                      : arena_printf(a, "torch/%s-%s", ti->version, dig);
	char *link = os_join(a, s->build_dir, rel);
	char *inc = os_join(a, link, "include");
	/* A link that still leads to a torch of this version stays: its headers are the same
	 * bytes whichever venv holds them, and moving it would touch every dependent's mtime. */
	if (os_is_dir(inc))
		return rel;
	if (!os_mkdir_p(s->d, os_join(a, s->build_dir, "torch")))
		return NULL;
	char *tmp = arena_printf(a, "%s.%ld.tmp", link, (long)getpid());
	os_unlink(tmp);
	if (!os_symlink(root, tmp)) {
		diag_errno(s->d, tmp, "symlink");
		return NULL;
	}
	if (!os_rename(tmp, link)) {
		diag_errno(s->d, link, "rename");
		os_unlink(tmp);
		return NULL;
	}
	return rel;
}

void torchscan_link_includes(struct scan_ctx *s, const struct torch_info *ti, const char *link,
                             struct strv *out)
{
	char *root = torch_root(s->a, ti);
	size_t rl = root ? strlen(root) : 0;
	for (size_t i = 0; i < ti->include_dirs.n; i++) {
		const char *d = ti->include_dirs.v[i];
		if (root && link && !strncmp(d, root, rl) && (d[rl] == '/' || !d[rl]))
			strv_push(s->a, out, arena_printf(s->a, "%s%s", link, d + rl));
		else
			strv_push(s->a, out, d);
	}
}

/* Returns the header a failed preprocessor run could not find ("torch/extension.h"), or NULL. */
static const char *missing_header(struct arena *a, const char *err)
{
	const char *p = strstr(err, "fatal error: ");
	if (!p)
		return NULL;
	p += strlen("fatal error: ");
	const char *e = strstr(p, ": No such file or directory");
	const char *nl = strchr(p, '\n');
	if (!e || (nl && nl < e))
		return NULL;
	return arena_strndup(a, p, (size_t)(e - p));
}

/* The compiler's message, its first lines only, for a diagnostic. */
static const char *first_lines(struct arena *a, const char *msg)
{
	const char *p = msg;
	for (int i = 0; i < 6 && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	size_t n = p ? (size_t)(p - msg) : strlen(msg);
	while (n && (msg[n - 1] == '\n'))
		n--;
	return arena_strndup(a, msg, n);
}

static bool is_python_header(const char *f);
static bool ends_with(const char *s, const char *suffix);
static const char *shown(struct scan_ctx *s, const char *f);
static void torch_file(const struct strv *files, const struct strv *torch_dirs, bool *uses,
                       const char **which);

void torchscan_kernel_python(struct scan_ctx *s, const char *src, const char *header,
                             const char *why)
{
	diag_path(s->d, DIAG_ERROR, shown(s, src),
	          "this kernel source includes Python's headers (%s), but kernels are compiled "
	          "once per toolkit for every Python%s%s",
	          header, why ? ", and it is not Python-free: " : "", why ? why : "");
	diag_msg(s->d, DIAG_HINT,
	         "list it among the sources of the torch extension instead (compiled per Python "
	         "there, or once where it includes no Python header), or keep torch/extension.h "
	         "out of it (torch/all.h, ATen/ATen.h)");
}

/* PROOF_GUESS's answer for kernel src (build-dir relative) under argv: its text and the
 * headers it includes from argv's include dirs, read, not preprocessed. */
static void guess_kernel(struct scan_ctx *s, const struct strv *argv, const char *src, bool *uses,
                         const char **which, const char **python)
{
	struct strv dirs = {0};
	for (size_t i = 0; i < argv->n; i++) {
		const char *d = include_dir_arg(argv, &i);
		if (d)
			strv_push(s->a, &dirs, d[0] == '/' ? d : os_join(s->a, s->build_dir, d));
	}
	struct kernel_guess g;
	kernel_guess(s->a, os_join(s->a, s->build_dir, src), ends_with(src, ".cu"), &dirs, &g);
	*uses = g.torch != NULL;
	*which = g.torch;
	*python = g.python;
}

bool torchscan_kernel(struct scan_ctx *s, const struct strv *argv, const char *src,
                      const struct strv *torch_dirs, bool *uses, const char **which,
                      const char **python)
{
	*uses = false;
	*which = NULL;
	*python = NULL;
	struct scan_closure c;
	if (!scan_run(s, argv, src, SCAN_DEPS, NULL, &c))
		return false;
	if (c.pending && s->proofs == PROOF_GUESS) {
		guess_kernel(s, argv, src, uses, which, python);
		return true;
	}
	if (!c.ok) {
		/* No torch at hand to find its headers: a torch header is what was missing. */
		const char *m = missing_header(s->a, c.error);
		if (m && is_python_header(m)) {
			/* It stopped at Python.h: the torch headers it opened before say it uses
			 * torch (torch/extension.h first), without a scan through the stand-ins. */
			*python = m;
			torch_file(&c.files, torch_dirs, uses, which);
			return true;
		}
		if (m && torch_header_name(m)) {
			*uses = true;
			*which = m;
			return true;
		}
		diag_path(s->d, DIAG_ERROR, src, "the preprocessor (%s -M) failed on it:\n%s",
		          argv->v[0], first_lines(s->a, c.error));
		return false;
	}
	for (size_t i = 0; i < c.files.n; i++)
		if (is_python_header(c.files.v[i])) {
			*python = c.files.v[i];
			return true;
		}
	torch_file(&c.files, torch_dirs, uses, which);
	return true;
}

/* The first of files under one of torch_dirs: *uses = true, *which = its name there. A name
 * with a trailing '/' is a dir a failed run searched (deps_failed), not a file it read. */
static void torch_file(const struct strv *files, const struct strv *torch_dirs, bool *uses,
                       const char **which)
{
	for (size_t i = 0; i < files->n; i++) {
		const char *f = files->v[i];
		size_t fl = strlen(f);
		if (fl && f[fl - 1] == '/')
			continue;
		for (size_t d = 0; d < torch_dirs->n; d++) {
			size_t l = strlen(torch_dirs->v[d]);
			if (!strncmp(f, torch_dirs->v[d], l) && f[l] == '/') {
				*uses = true;
				*which = f + l + 1;
				return;
			}
		}
	}
}

static bool is_python_header(const char *f)
{
	const char *base = strrchr(f, '/');
	base = base ? base + 1 : f;
	return !strcmp(base, "Python.h") || strstr(f, "/pybind11/") != NULL ||
	       !strncmp(f, "pybind11/", 9);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* Writes build_dir/scan/<header with / as _> holding `#include <header>` (no .gch ever lies
 * beside it) and returns it. */
static const char *scan_stub(struct scan_ctx *s, const char *header)
{
	char *text = arena_printf(s->a, "#include <%s>\n", header);
	char *name = arena_strdup(s->a, header);
	for (char *p = name; *p; p++)
		if (*p == '/')
			*p = '_';
	const char *rel = arena_printf(s->a, "scan/%s", name);
	if (!os_mkdir_p(s->d, os_join(s->a, s->build_dir, "scan")) ||
	    !os_write_if_changed(s->a, s->d, os_join(s->a, s->build_dir, rel), text, strlen(text),
	                         0644))
		return NULL;
	return rel;
}

/* A path the compiler printed, for a message: project-relative when it is in the project. */
static const char *shown(struct scan_ctx *s, const char *f)
{
	size_t pl = s->proj ? strlen(s->proj) : 0;
	if (pl && !strncmp(f, s->proj, pl) && f[pl] == '/')
		return f + pl + 1;
	return f;
}

/* Compares what every file expanded to in x (as written) and y (the PCH's header forced
 * first): the source means the same when each file expands to the same text. Returns NULL, or
 * the files that differ (at most three, then "..."). */
static const char *differences(struct scan_ctx *s, const struct scan_closure *x,
                               const struct scan_closure *y, const char *stub)
{
	struct strbuf sb = {0};
	int n = 0;
	/* Thousands of torch's headers: looked up by name, not searched. */
	struct filetab tx, ty;
	size_t hx, hy;
	closure_index(s->a, x, &tx, &hx);
	closure_index(s->a, y, &ty, &hy);
	for (size_t i = 0; i < y->files.n; i++) {
		const char *f = y->files.v[i];
		if (f[0] == '<' || ends_with(f, stub))
			continue;
		size_t k = filetab_find(&tx, f, strlen(f));
		size_t j = k < hx ? (size_t)tx.digest[k] : x->files.n;
		if (j < x->files.n && j < x->digests.n && i < y->digests.n &&
		    !strcmp(x->digests.v[j], y->digests.v[i]))
			continue;
		if (n++ < 3)
			sb_printf(&sb, "%s%s%s", sb.len ? ", " : "", shown(s, f),
			          j == x->files.n ? " (only with it)" : "");
	}
	for (size_t j = 0; j < x->files.n; j++) {
		const char *f = x->files.v[j];
		if (f[0] == '<')
			continue;
		if (filetab_find(&ty, f, strlen(f)) >= hy && n++ < 3)
			sb_printf(&sb, "%s%s (only without it)", sb.len ? ", " : "", shown(s, f));
	}
	if (n > 3)
		sb_printf(&sb, " and %d more", n - 3);
	return n ? sb_to_arena(&sb, s->a) : NULL;
}

bool torchscan_binding(struct scan_ctx *s, const struct strv *argv, const char *src,
                       const char *pch_header, struct binding_decision *out)
{
	memset(out, 0, sizeof(*out));
	struct scan_closure as;
	if (!scan_run(s, argv, src, SCAN_EXPAND, NULL, &as))
		return false;
	if (!as.ok) {
		diag_path(s->d, DIAG_ERROR, src, "the preprocessor (%s -E) failed on it:\n%s",
		          argv->v[0], first_lines(s->a, as.error));
		return false;
	}
	/* A prefill pass: taken as including Python's headers meanwhile, so that the proof's
	 * other -E is queued beside this one (a source without them wastes one -E). */
	if (as.pending && !pch_header) {
		out->python = true;
		return true;
	}
	for (size_t i = 0; i < as.files.n; i++) {
		const char *f = as.files.v[i];
		if (!out->python && is_python_header(f)) {
			out->python = true;
			out->python_via = f;
		}
		if (ends_with(f, "/torch/extension.h") || !strcmp(f, "torch/extension.h"))
			out->torch_ext = true;
	}
	if (!pch_header || !out->torch_ext || !out->python)
		return true;
	const char *stub = scan_stub(s, pch_header);
	if (!stub)
		return false;
	struct strv forced = {0};
	for (size_t i = 0; i < argv->n; i++)
		strv_push(s->a, &forced, argv->v[i]);
	strv_push(s->a, &forced, "-include");
	strv_push(s->a, &forced, stub);
	struct scan_closure bs;
	if (!scan_run(s, &forced, src, SCAN_EXPAND, NULL, &bs))
		return false;
	if (!bs.ok) {
		out->pch = PCH_REFUSED;
		out->pch_why = arena_printf(s->a, "with %s forced first it fails: %s", pch_header,
		                            first_lines(s->a, bs.error));
		return true;
	}
	const char *diff = differences(s, &as, &bs, stub);
	if (diff) {
		out->pch = PCH_REFUSED;
		out->pch_why = arena_printf(s->a,
		                            "with %s forced first, the preprocessor "
		                            "expands %s to other text (what comes before "
		                            "torch's headers in it changes their meaning)",
		                            pch_header, diff);
	} else {
		out->pch = PCH_USE;
	}
	return true;
}

/* A header that opens Python's part of a translation unit: Python.h, pybind11's headers,
 * torch/python.h (and their stand-ins). Everything entered from one is Python's. */
static bool python_root(const char *f)
{
	return is_python_header(f) || ends_with(f, "/torch/python.h") ||
	       !strcmp(f, "torch/python.h");
}

/* Mirrors dir (a pybind11 include tree) as empty files under out. */
static bool standin_tree(struct scan_ctx *s, const char *dir, const char *out)
{
	struct strv names = {0};
	if (!os_list_dir(s->a, dir, &names))
		return true;
	for (size_t i = 0; i < names.n; i++) {
		const char *from = os_join(s->a, dir, names.v[i]);
		const char *to = os_join(s->a, out, names.v[i]);
		if (os_is_dir(from)) {
			if (!os_mkdir_p(s->d, to) || !standin_tree(s, from, to))
				return false;
		} else if (!os_write_if_changed(s->a, s->d, to, "", 0, 0644)) {
			return false;
		}
	}
	return true;
}

static void python_h_includes(struct scan_ctx *s, const struct strv *argv, struct strv *out);

/* True for the feature-test macros autoconf's pyconfig.h defines (AC_USE_SYSTEM_EXTENSIONS,
 * large files): they change what libc's headers after Python.h declare. */
static bool feature_macro(const char *name, size_t n)
{
	static const char *const also[] = {
	    "_FILE_OFFSET_BITS", "_XOPEN_SOURCE_EXTENDED",   "__BSD_VISIBLE",
	    "__EXTENSIONS__",    "_POSIX_PTHREAD_SEMANTICS", "_LARGE_FILES"};
	if (n > 8 && name[0] == '_' && !strncmp(name + n - 7, "_SOURCE", 7))
		return true;
	for (size_t i = 0; i < sizeof(also) / sizeof(*also); i++)
		if (strlen(also[i]) == n && !strncmp(name, also[i], n))
			return true;
	return false;
}

/* Appends to sb the feature macros text #defines (each once: seen), each guarded. */
static void feature_defines(struct scan_ctx *s, const char *text, struct strv *seen,
                            struct strbuf *sb)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *q = p + strspn(p, " \t");
		if (*q != '#')
			continue;
		q += 1 + strspn(q + 1, " \t");
		if (strncmp(q, "define", 6) != 0 || (q[6] != ' ' && q[6] != '\t'))
			continue;
		q += 6 + strspn(q + 6, " \t");
		size_t n =
		    strspn(q, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		const char *name = arena_strndup(s->a, q, n);
		if (!feature_macro(name, n) || strv_contains(seen, name))
			continue;
		strv_push(s->a, seen, name);
		const char *v = q + n + strspn(q + n, " \t");
		size_t vn = strcspn(v, "\n");
		while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t' || v[vn - 1] == '\r'))
			vn--;
		sb_printf(sb, "#ifndef %s\n#define %s %.*s\n#endif\n", name, name, (int)vn, v);
	}
}

/* The include dir argv->v[*i] names (-IDIR, -I DIR, -isystem DIR; *i then on DIR), or NULL. */
static const char *include_dir_arg(const struct strv *argv, size_t *i)
{
	const char *a = argv->v[*i];
	if (!strncmp(a, "-I", 2) && a[2])
		return a + 2;
	if ((!strcmp(a, "-isystem") || !strcmp(a, "-I")) && *i + 1 < argv->n)
		return argv->v[++*i];
	return NULL;
}

/* The text of the pyconfig.h in include dir d, or NULL. Debian's and Ubuntu's system Pythons
 * have a wrapper there that includes <TRIPLET/python3.X/pyconfig.h> per architecture: the
 * first of those found under /usr/include (the host's; a provisioned Python's is flattened)
 * is read instead. */
static const char *pyconfig_text(struct scan_ctx *s, const char *d)
{
	struct source src;
	struct diag quiet = {0};
	const char *cfg = os_join(s->a, stat_path(s, d), "pyconfig.h");
	if (!os_exists(cfg) || !os_read_file(s->a, &quiet, cfg, &src))
		return NULL;
	const char *own = src.text; /* a real pyconfig.h includes no other pyconfig.h */
	for (const char *p = own; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *q = p + strspn(p, " \t");
		if (*q != '#')
			continue;
		q += 1 + strspn(q + 1, " \t");
		if (strncmp(q, "include", 7) != 0)
			continue;
		q += 7 + strspn(q + 7, " \t");
		size_t n = *q == '<' ? strcspn(q + 1, ">\n") : 0;
		const char *name = n ? arena_strndup(s->a, q + 1, n) : NULL;
		const char *base = name ? strrchr(name, '/') : NULL;
		if (!base || strstr(name, "..") || strcmp(base + 1, "pyconfig.h") != 0)
			continue;
		const char *real = os_join(s->a, "/usr/include", name);
		if (os_exists(real) && os_read_file(s->a, &quiet, real, &src))
			return src.text;
	}
	return own;
}

/* The stand-in Python.h: no declaration of Python's, but the feature macros the first
 * pyconfig.h among argv's include dirs defines (_GNU_SOURCE, _POSIX_C_SOURCE, _XOPEN_SOURCE,
 * _FILE_OFFSET_BITS, ...), each once and guarded, so that the libc headers a source includes
 * after Python.h expand as they do after the real one. Empty when no pyconfig.h is found. */
static char *standin_python_h(struct scan_ctx *s, const struct strv *argv)
{
	struct strbuf sb = {0};
	struct strv seen = {0};
	for (size_t i = 0; i < argv->n && !sb.len; i++) {
		const char *d = include_dir_arg(argv, &i);
		const char *text = d ? pyconfig_text(s, d) : NULL;
		if (!text)
			continue;
		sb_puts(
		    &sb,
		    "/* cuwheel's stand-in for Python.h: the feature macros of pyconfig.h */\n");
		feature_defines(s, text, &seen, &sb);
	}
	/* Then what Python.h itself includes of the system's, in its order: a libc header it
	 * enters first expands there as it does after the real Python.h. */
	struct strv inc = {0};
	if (sb.len)
		python_h_includes(s, argv, &inc);
	for (size_t i = 0; i < inc.n; i++)
		sb_printf(&sb, "#include %s\n", inc.v[i]);
	return sb_to_arena(&sb, s->a);
}

/* The directive's header name on line `line` of file (`#  include <stdlib.h>`: "<stdlib.h>"),
 * or NULL. */
static const char *directive_name(struct scan_ctx *s, const char *file, long line)
{
	struct source src;
	struct diag quiet = {0};
	if (line < 1 || !os_read_file(s->a, &quiet, stat_path(s, file), &src))
		return NULL;
	const char *p = src.text;
	for (long l = 1; p && l < line; l++)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	if (!p)
		return NULL;
	p += strspn(p, " \t");
	if (*p != '#')
		return NULL;
	p += 1 + strspn(p + 1, " \t");
	if (strncmp(p, "include", 7) != 0)
		return NULL;
	p += 7 + strspn(p + 7, " \t");
	char close = *p == '<' ? '>' : *p == '"' ? '"' : 0;
	const char *e = close ? strchr(p + 1, close) : NULL;
	const char *nl = strchr(p, '\n');
	return e && (!nl || e < nl) ? arena_strndup(s->a, p, (size_t)(e - p + 1)) : NULL;
}

/* Where python_h_includes keeps its answer for argv: beside its probe, named by argv. */
static const char *python_h_cache(struct scan_ctx *s, const struct strv *argv)
{
	struct strbuf key = {0};
	for (size_t i = 0; i < argv->n; i++) {
		sb_puts(&key, argv->v[i]);
		sb_putc(&key, '\x1f');
	}
	char *dig = hex_digest(s->a, key.buf ? key.buf : "", key.len);
	sb_release(&key);
	return os_join(s->a, s->build_dir, arena_printf(s->a, "pyfree/python-h-%s.answer", dig));
}

static const char python_h_magic[] = "cuwheel python-h 1\n";

/* The answer kept in cache ("F <mtime> <file>" for each file the -E entered, then
 * "A <directive>" for each answer), appended to out when every file has its mtime still. */
static bool python_h_cached(struct scan_ctx *s, const char *cache, struct strv *out)
{
	struct source src;
	struct diag quiet = {0};
	size_t m = sizeof(python_h_magic) - 1;
	if (!os_read_file(s->a, &quiet, cache, &src) || strncmp(src.text, python_h_magic, m))
		return false;
	struct strv names = {0};
	for (const char *p = src.text + m; *p;) {
		const char *nl = strchr(p, '\n');
		if (!nl)
			return false;
		char *line = arena_strndup(s->a, p, (size_t)(nl - p));
		p = nl + 1;
		char *end = line;
		if (!strncmp(line, "F ", 2)) {
			long long mt = strtoll(line + 2, &end, 10);
			if (*end != ' ' || answer_mtime(s, end + 1) != mt)
				return false;
		} else if (!strncmp(line, "A ", 2)) {
			strv_push(s->a, &names, line + 2);
		} else {
			return false;
		}
	}
	for (size_t i = 0; i < names.n; i++)
		strv_push(s->a, out, names.v[i]);
	return true;
}

/* Keeps python_h_includes' answer (out) and the files its -E entered (files) in cache. */
static void python_h_keep(struct scan_ctx *s, const char *cache, const struct strv *files,
                          const struct strv *out)
{
	struct strbuf sb = {0};
	struct diag quiet = {0};
	sb_puts(&sb, python_h_magic);
	for (size_t i = 0; i < files->n; i++) {
		long long mt = (long long)answer_mtime(s, files->v[i]);
		if (strchr(files->v[i], '\n') || mt < 0) { /* not kept: no answer to check */
			sb_release(&sb);
			return;
		}
		sb_printf(&sb, "F %lld %s\n", mt, files->v[i]);
	}
	for (size_t i = 0; i < out->n; i++)
		sb_printf(&sb, "A %s\n", out->v[i]);
	(void)os_write_atomic(&quiet, cache, sb.buf, sb.len, 0644);
	sb_release(&sb);
}

/* The headers outside Python's include dir that Python.h's own files include, in the order
 * they do (each directive as written there): one -E of `#include <Python.h>` with argv (the
 * compile with Python's include dir), read from its line markers; kept for the next plan while
 * every file it entered keeps its mtime. Empty when it fails. */
static void python_h_includes(struct scan_ctx *s, const struct strv *argv, struct strv *out)
{
	struct arena *a = s->a;
	const char *probe = "pyfree/python-h.cpp", *res = "pyfree/python-h.i";
	static const char text[] = "#include <Python.h>\n";
	struct diag quiet = {0};
	if (!argv->n || !os_write_if_changed(a, &quiet, os_join(a, s->build_dir, probe), text,
	                                     strlen(text), 0644))
		return;
	const char *cache = python_h_cache(s, argv);
	if (python_h_cached(s, cache, out))
		return;
	struct strv av = {0};
	for (size_t i = 0; i < argv->n; i++)
		strv_push(a, &av, argv->v[i]);
	const char *tail[] = {"-E", probe, "-o", res, NULL};
	for (size_t i = 0; tail[i]; i++)
		strv_push(a, &av, tail[i]);
	strv_push(a, &av, NULL);
	struct os_run r = {.argv = (const char **)av.v, .cwd = s->build_dir, .capture = true};
	struct strbuf msg = {0};
	int status = 0;
	struct source src;
	bool ran = os_run(&quiet, &r, &msg, &status) && status == 0 &&
	           os_read_file(a, &quiet, os_join(a, s->build_dir, res), &src);
	sb_release(&msg);
	os_unlink(os_join(a, s->build_dir, res));
	if (!ran)
		return;
	enum { MAX_DEPTH = 256 };
	const char **stack = arena_calloc(a, MAX_DEPTH, sizeof(*stack));
	bool *from_py = arena_calloc(a, MAX_DEPTH, sizeof(*from_py));
	size_t depth = 0, pn = 0;
	const char *pydir = NULL;
	struct strv files = {0};
	for (const char *p = src.text, *end = src.text + src.len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t flen = 0;
		int flag = 0;
		const char *f = line_marker(a, p, le, &flen, &flag);
		if (f && flag == 1 && f[0] != '<' && !strv_contains(&files, f))
			strv_push(a, &files, f);
		if (f && flag == 1 && depth < MAX_DEPTH) {
			if (!pydir && ends_with(f, "/Python.h"))
				pydir = arena_strndup(a, f, pn = flen - strlen("Python.h"));
			bool in_py = pydir && !strncmp(f, pydir, pn);
			from_py[depth] =
			    depth && pydir && !strncmp(stack[depth - 1], pydir, pn) && !in_py;
			stack[depth++] = f;
		} else if (f && flag == 2) {
			/* Back in an includer: the directive was on the line before the marker's.
			 */
			long line = strtol(p + 1 + (p[1] == ' '), NULL, 10) - 1;
			while (depth > 0 && strcmp(stack[depth - 1], f) != 0) {
				depth--;
				const char *name =
				    from_py[depth] ? directive_name(s, f, line) : NULL;
				if (name && !strv_contains(out, name))
					strv_push(a, out, name);
			}
		}
		p = nl ? nl + 1 : end;
	}
	python_h_keep(s, cache, &files, out);
}

const char *torchscan_standins(struct scan_ctx *s, const struct strv *argv)
{
	const char *rel = "pyfree/include";
	char *root = os_join(s->a, s->build_dir, rel);
	static const char ext[] = "#pragma once\n#include <torch/all.h>\n";
	if (!os_mkdir_p(s->d, os_join(s->a, root, "torch")) ||
	    !os_mkdir_p(s->d, os_join(s->a, root, "pybind11")) ||
	    !os_write_if_changed(s->a, s->d, os_join(s->a, root, "torch/extension.h"), ext,
	                         strlen(ext), 0644) ||
	    !os_write_if_changed(s->a, s->d, os_join(s->a, root, "torch/python.h"), "", 0, 0644))
		return NULL;
	/* A command without Python's include dir (the shared flags' own call) keeps the macros a
	 * call with it wrote. */
	const char *pyh = os_join(s->a, root, "Python.h"), *py = standin_python_h(s, argv);
	if ((*py || !os_exists(pyh)) && !os_write_if_changed(s->a, s->d, pyh, py, strlen(py), 0644))
		return NULL;
	/* Every pybind11 header any include dir of the command holds (torch's copy, a
	 * vendored one): each name resolves to the empty stand-in first. */
	for (size_t i = 0; i < argv->n; i++) {
		const char *d = include_dir_arg(argv, &i);
		if (d && strcmp(d, rel) != 0 &&
		    !standin_tree(s, os_join(s->a, stat_path(s, d), "pybind11"),
		                  os_join(s->a, root, "pybind11")))
			return NULL;
	}
	return rel;
}

static const char empty_digest[] = "cbf29ce484222325";

/* A closure's files by name: t maps each to its first position in c (in t->digest); a name
 * looked up that c does not hold gets an index at or past *held. */
static void closure_index(struct arena *a, const struct scan_closure *c, struct filetab *t,
                          size_t *held)
{
	*t = (struct filetab){.a = a};
	for (size_t i = 0; i < c->files.n; i++) {
		size_t n = t->n, j = filetab_find(t, c->files.v[i], strlen(c->files.v[i]));
		if (t->n > n)
			t->digest[j] = i;
	}
	*held = t->n;
}

/* c's digests of f outside (*out) and inside (*in) Python's headers (t, held: c's index);
 * empty when absent. */
static void digests_of(const struct scan_closure *c, struct filetab *t, size_t held, const char *f,
                       const char **out, const char **in)
{
	*out = *in = empty_digest;
	size_t j = filetab_find(t, f, strlen(f));
	if (j >= held)
		return;
	size_t i = (size_t)t->digest[j];
	if (i < c->digests.n) {
		*out = c->digests.v[i];
		*in = i < c->pydigests.n ? c->pydigests.v[i] : empty_digest;
	}
}

/* Compares what every file outside Python's headers expanded to with Python (x) and without
 * (y); a file missing from one run counts as empty there. A file that, with Python, said
 * nothing outside Python's headers because they included it first is the same when its text
 * there equals its text without Python (the same header reached later, with the same macros in
 * effect). torch/extension.h is left out (the stand-in narrows it; what it includes is
 * compared). Returns NULL or the first file that differs. */
static const char *pyfree_difference(struct scan_ctx *s, const struct scan_closure *x,
                                     const struct scan_closure *y)
{
	/* Thousands of torch's headers: looked up by name, not searched. */
	struct filetab tx, ty;
	size_t hx, hy;
	closure_index(s->a, x, &tx, &hx);
	closure_index(s->a, y, &ty, &hy);
	for (int pass = 0; pass < 2; pass++) {
		const struct scan_closure *p = pass ? y : x;
		for (size_t i = 0; i < p->files.n; i++) {
			const char *f = p->files.v[i];
			if (f[0] == '<' || ends_with(f, "torch/extension.h"))
				continue;
			const char *xo, *xp, *yo, *yp;
			digests_of(x, &tx, hx, f, &xo, &xp);
			digests_of(y, &ty, hy, f, &yo, &yp);
			if (!strcmp(xo, yo))
				continue;
			if (!strcmp(xo, empty_digest) && !strcmp(xp, yo))
				continue;
			return shown(s, f);
		}
	}
	return NULL;
}

bool torchscan_pyfree(struct scan_ctx *s, const struct strv *with, const struct strv *without,
                      const struct strv *compile, bool object, const char *src, const char *csrc,
                      struct binding_decision *out)
{
	struct scan_closure x, y, c;
	if (!scan_run(s, with, src, SCAN_EXPAND_NOPY, NULL, &x))
		return false;
	if (!x.ok) {
		out->pyfree = PYFREE_EXPAND;
		out->pyfree_why = arena_printf(s->a, "the preprocessor fails on it: %s",
		                               first_error(s->a, x.error));
		return true;
	}
	if (!scan_run(s, without, src, SCAN_EXPAND_NOPY, NULL, &y))
		return false;
	/* A prefill pass: the compile waits for both expansions' answers; taken as proven
	 * meanwhile, so the scans that follow a proof are queued now. */
	if (x.pending || y.pending) {
		out->pyfree = PYFREE_PROVEN;
		out->python = false;
		return true;
	}
	if (!y.ok) {
		out->pyfree = PYFREE_COMPILE;
		out->pyfree_why =
		    arena_printf(s->a, "without Python's headers the preprocessor fails: %s",
		                 first_error(s->a, y.error));
		return true;
	}
	const char *diff = pyfree_difference(s, &x, &y);
	if (diff) {
		out->pyfree = PYFREE_EXPAND;
		out->pyfree_why =
		    arena_printf(s->a,
		                 "without Python's headers the preprocessor expands %s "
		                 "to other text (a macro of theirs is used)",
		                 diff);
		return true;
	}
	if (!scan_run(s, compile, csrc, object ? SCAN_OBJECT : SCAN_COMPILE, &y.files, &c))
		return false;
	if (!c.ok) {
		out->pyfree = PYFREE_COMPILE;
		out->pyfree_why =
		    arena_printf(s->a, "without Python's headers it does not compile: %s", c.error);
		return true;
	}
	out->pyfree = PYFREE_PROVEN;
	out->python = false;
	out->obj = c.obj;
	out->tentative = c.deferred;
	return true;
}

const char *pyfree_state_name(enum pyfree_state p)
{
	switch (p) {
	case PYFREE_PROVEN:
		return "proven";
	case PYFREE_OFF:
		return "off";
	case PYFREE_EXPAND:
		return "refused: expansion differs";
	case PYFREE_COMPILE:
		return "refused: does not compile";
	case PYFREE_MODULE:
		return "refused: defines the module";
	case PYFREE_NONE:
		break;
	}
	return "no";
}
