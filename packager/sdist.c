/* sdist.c: a hardened reader of gzip-compressed tar archives (source distributions) and the
 * unpacker that writes one into a fresh directory. Python's tarfile would extract `../x`,
 * absolute paths and links out of the tree unless told otherwise; this reader refuses them. */
#include "packager/sdist.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/beneath.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "base/os-lock.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "standards/digest.h"

#define BLOCK    512
#define META_MAX (1u << 20) /* a pax or GNU long-name payload */

void sdist_default_limits(struct sdist_limits *l)
{
	l->max_total = (uint64_t)1 << 30;
	l->max_member = (uint64_t)256 << 20;
	l->max_members = 200000;
	l->max_path = 4096;
}

/* The gzip stream: members concatenated (gzip -c a b) are read as one. */
struct gz {
	z_stream zs;
	const unsigned char *in;
	size_t in_left;
	bool done;
	const char *err;  /* set on a broken stream */
	const char *zmsg; /* zlib's own words, when it has some */
};

static void gz_feed(struct gz *g)
{
	if (g->zs.avail_in == 0 && g->in_left) {
		uInt n = g->in_left > UINT_MAX ? UINT_MAX : (uInt)g->in_left;
		g->zs.next_in = (Bytef *)g->in;
		g->zs.avail_in = n;
		g->in += n;
		g->in_left -= n;
	}
}

/* Reads up to n bytes; returns how many (fewer only at the end of the stream), -1 on error. */
static long gz_read(struct gz *g, unsigned char *buf, size_t n)
{
	size_t got = 0;
	while (got < n && !g->done) {
		gz_feed(g);
		g->zs.next_out = buf + got;
		g->zs.avail_out = (uInt)(n - got);
		int rc = inflate(&g->zs, Z_NO_FLUSH);
		got = n - g->zs.avail_out;
		if (rc == Z_STREAM_END) {
			gz_feed(g);
			if (g->zs.avail_in >= 2 && g->zs.next_in[0] == 0x1f &&
			    g->zs.next_in[1] == 0x8b) {
				inflateReset(&g->zs);
				continue;
			}
			g->done = true; /* trailing bytes after the last member are ignored, as gzip
			                   does */
		} else if (rc == Z_BUF_ERROR && g->zs.avail_in == 0 && g->in_left == 0) {
			g->err = "the gzip stream is truncated";
			return -1;
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			g->err = "the gzip stream is corrupt";
			g->zmsg = g->zs.msg;
			return -1;
		}
	}
	return (long)got;
}

struct reader {
	struct arena *a;
	struct diag *d;
	const char *name;
	const struct sdist_limits *lim;
	struct gz gz;
	uint64_t total;
	size_t members;
	const char *top;
};

static bool fail(struct reader *r, const char *member, const char *fmt, ...) CW_PRINTF(3, 4);
static bool fail(struct reader *r, const char *member, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (member)
		diag_path(r->d, DIAG_ERROR, r->name, "member '%s': %s",
		          esc_str(r->a, ESC_TERM, member), buf);
	else
		diag_path(r->d, DIAG_ERROR, r->name, "%s", buf);
	return false;
}

/* Reads exactly n bytes or reports a truncated archive. */
static bool read_exact(struct reader *r, unsigned char *buf, size_t n, const char *member)
{
	long got = gz_read(&r->gz, buf, n);
	if (got < 0)
		return fail(r, member, "%s%s%s", r->gz.err, r->gz.zmsg ? " (zlib: " : "",
		            r->gz.zmsg ? arena_printf(r->a, "%s)", r->gz.zmsg) : "");
	if ((size_t)got != n)
		return fail(r, member, "the archive ends inside this member (truncated)");
	return true;
}

static bool skip_bytes(struct reader *r, uint64_t n, const char *member)
{
	unsigned char buf[BLOCK * 8];
	while (n) {
		size_t k = n > sizeof(buf) ? sizeof(buf) : (size_t)n;
		if (!read_exact(r, buf, k, member))
			return false;
		n -= k;
	}
	return true;
}

/* A numeric header field: octal digits (leading spaces, then a space or NUL ends it) or
 * GNU base-256 (high bit set). Returns false for anything else. */
static bool parse_num(const unsigned char *f, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (f[0] & 0x80) {
		if (f[0] != 0x80)
			return false; /* negative, or more than 63 bits */
		for (size_t i = 1; i < n; i++) {
			if (v >> 55)
				return false;
			v = (v << 8) | f[i];
		}
		*out = v;
		return true;
	}
	size_t i = 0;
	while (i < n && f[i] == ' ')
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return false;
		v = v * 8 + (uint64_t)(f[i] - '0');
	}
	for (; i < n; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return false;
	*out = v;
	return true;
}

static bool checksum_ok(const unsigned char *h)
{
	uint64_t want;
	if (!parse_num(h + 148, 8, &want))
		return false;
	unsigned long u = 0;
	long s = 0;
	for (size_t i = 0; i < BLOCK; i++) {
		unsigned char c = (i >= 148 && i < 156) ? ' ' : h[i];
		u += c;
		s += (signed char)c;
	}
	return want == u || (long)want == s;
}

/* A NUL-terminated copy of a fixed-size header field. */
static char *field(struct arena *a, const unsigned char *f, size_t n)
{
	size_t len = 0;
	while (len < n && f[len])
		len++;
	return arena_strndup(a, (const char *)f, len);
}

/* Parses pax records "LEN key=value\n" and keeps path, linkpath and size. */
static bool parse_pax(struct reader *r, const unsigned char *p, size_t n, const char **path,
                      const char **link, uint64_t *size, bool *has_size)
{
	size_t i = 0;
	while (i < n) {
		size_t len = 0, j = i;
		while (j < n && p[j] >= '0' && p[j] <= '9' && len < META_MAX)
			len = len * 10 + (size_t)(p[j++] - '0');
		if (j == i || j >= n || p[j] != ' ' || len <= j - i + 1 || len > n - i ||
		    p[i + len - 1] != '\n')
			return fail(r, NULL, "a pax extended header record is malformed");
		const unsigned char *kv = p + j + 1, *end = p + i + len - 1;
		const unsigned char *eq = memchr(kv, '=', (size_t)(end - kv));
		if (!eq)
			return fail(r, NULL, "a pax extended header record has no '='");
		size_t klen = (size_t)(eq - kv), vlen = (size_t)(end - eq - 1);
		char *val = arena_strndup(r->a, (const char *)eq + 1, vlen);
		if (memchr(eq + 1, '\0', vlen))
			return fail(r, NULL, "a pax extended header value holds a NUL byte");
		if (klen == 4 && !memcmp(kv, "path", 4)) {
			*path = val;
		} else if (klen == 8 && !memcmp(kv, "linkpath", 8)) {
			*link = val;
		} else if (klen == 4 && !memcmp(kv, "size", 4)) {
			char *e;
			errno = 0;
			unsigned long long s = strtoull(val, &e, 10);
			if (!*val || *e || errno || val[0] == '-')
				return fail(r, NULL, "a pax size '%s' is not a number",
				            esc_str(r->a, ESC_TERM, val));
			*size = s;
			*has_size = true;
		}
		i += len;
	}
	return true;
}

/* Checks and normalises a member path; returns it, or NULL with *why set. */
static char *norm_path(struct reader *r, const char *raw, const char **why)
{
	size_t n = strlen(raw);
	if (n == 0)
		return *why = "its name is empty", NULL;
	if (n > r->lim->max_path)
		return *why = "its name is longer than the limit", NULL;
	if (raw[0] == '/')
		return *why = "it has an absolute path", NULL;
	for (const char *p = raw; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return *why = "its name holds a control character", NULL;
		if (*p == '\\')
			return *why = "its name holds a backslash", NULL;
	}
	struct strbuf sb = {0};
	const char *p = raw;
	size_t parts = 0;
	const char *s;
	size_t len;
	while ((s = path_next(&p, &len))) {
		if (len == 0 || (len == 1 && s[0] == '.'))
			continue;
		if (len == 2 && s[0] == '.' && s[1] == '.') {
			sb_release(&sb);
			return *why = "its path has a '..' component", NULL;
		}
		if (parts++)
			sb_putc(&sb, '/');
		sb_printf(&sb, "%.*s", (int)len, s);
	}
	if (parts == 0) {
		sb_release(&sb);
		return *why = "its name has no component", NULL;
	}
	return sb_to_arena(&sb, r->a);
}

/* True when a symlink at `path` pointing to `target` stays inside path's top directory. */
static bool link_inside(const char *path, const char *target)
{
	if (!*target || target[0] == '/')
		return false;
	for (const char *p = target; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == '\\')
			return false;
	long depth = 0; /* directories below the top one */
	for (const char *p = path; *p; p++)
		depth += *p == '/';
	depth--; /* the link's own directory: path's parent, measured from inside top */
	const char *p = target;
	const char *s;
	size_t len;
	while ((s = path_next(&p, &len))) {
		if (len == 0 || (len == 1 && s[0] == '.'))
			continue;
		if (len == 2 && s[0] == '.' && s[1] == '.') {
			if (--depth < 0)
				return false;
		} else {
			depth++;
		}
	}
	return true;
}

static bool read_members(struct reader *r, sdist_entry_fn *fn, void *user)
{
	unsigned char h[BLOCK];
	const char *pax_path = NULL, *pax_link = NULL, *gnu_path = NULL, *gnu_link = NULL;
	uint64_t pax_size = 0;
	bool has_pax_size = false;
	for (;;) {
		long got = gz_read(&r->gz, h, BLOCK);
		if (got < 0)
			return fail(r, NULL, "%s%s%s", r->gz.err, r->gz.zmsg ? " (zlib: " : "",
			            r->gz.zmsg ? arena_printf(r->a, "%s)", r->gz.zmsg) : "");
		if (got == 0)
			break; /* no end-of-archive blocks: tolerated, as tar and Python do */
		if (got != BLOCK)
			return fail(r, NULL, "the archive ends inside a header (truncated)");
		bool zero = true;
		for (size_t i = 0; i < BLOCK && zero; i++)
			zero = h[i] == 0;
		if (zero)
			break;
		char *hname = field(r->a, h, 100);
		if (memcmp(h + 257, "ustar", 5) != 0)
			return fail(r, hname, "not a ustar, GNU or pax tar header");
		if (!checksum_ok(h))
			return fail(r, hname, "the header checksum does not match");
		uint64_t size;
		if (!parse_num(h + 124, 12, &size))
			return fail(r, hname, "the size field is not a number");
		char type = (char)h[156];
		if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
			if (size > META_MAX)
				return fail(r, hname,
				            "an extended header of %llu bytes is over the "
				            "1 MiB limit",
				            (unsigned long long)size);
			unsigned char *buf = arena_alloc(r->a, (size_t)size + 1);
			if (!read_exact(r, buf, (size_t)size, hname) ||
			    !skip_bytes(r, (BLOCK - size % BLOCK) % BLOCK, hname))
				return false;
			buf[size] = 0;
			if (type == 'x' && !parse_pax(r, buf, (size_t)size, &pax_path, &pax_link,
			                              &pax_size, &has_pax_size))
				return false;
			if (type == 'L' || type == 'K') {
				if (memchr(buf, '\0', (size_t)size) &&
				    strlen((char *)buf) + 1 < (size_t)size)
					return fail(r, hname, "a GNU long name holds a NUL byte");
				*(type == 'L' ? &gnu_path : &gnu_link) = (char *)buf;
			}
			continue; /* 'g' (global pax: git archive's commit comment) is ignored */
		}
		if (has_pax_size)
			size = pax_size;
		const char *raw = pax_path ? pax_path : gnu_path;
		if (!raw) {
			char *prefix =
			    memcmp(h + 257, "ustar\0", 6) == 0 ? field(r->a, h + 345, 155) : "";
			raw = *prefix ? arena_printf(r->a, "%s/%s", prefix, hname) : hname;
		}
		const char *link = pax_link   ? pax_link
		                   : gnu_link ? gnu_link
		                              : field(r->a, h + 157, 100);
		pax_path = pax_link = gnu_path = gnu_link = NULL;
		has_pax_size = false;

		const char *why = NULL;
		char *path = norm_path(r, raw, &why);
		if (!path)
			return fail(r, raw, "%s", why);
		if (++r->members > r->lim->max_members)
			return fail(r, path, "more than %zu members", r->lim->max_members);
		if (size > r->lim->max_member)
			return fail(r, path, "%llu bytes is over the %llu-byte limit for a member",
			            (unsigned long long)size,
			            (unsigned long long)r->lim->max_member);
		if (size > r->lim->max_total - r->total)
			return fail(r, path, "the members together exceed the %llu-byte limit",
			            (unsigned long long)r->lim->max_total);
		r->total += size;

		struct sdist_entry e = {.path = path};
		uint64_t mode = 0;
		parse_num(h + 100, 8, &mode);
		e.exec = (mode & 0111) != 0;
		switch (type) {
		case '0':
		case '\0':
		case '7':
			e.kind = SDIST_FILE;
			break;
		case '5':
			e.kind = SDIST_DIR;
			break;
		case '2':
			e.kind = SDIST_SYMLINK;
			break;
		case '1':
			return fail(r, path,
			            "hard links are not unpacked (a source distribution "
			            "needs none)");
		case '3':
		case '4':
		case '6':
			return fail(r, path, "devices and FIFOs are not unpacked");
		default:
			return fail(r, path, "member type '%c' is not a file, directory or symlink",
			            type >= 0x20 && type < 0x7f ? type : '?');
		}
		const char *slash = strchr(path, '/');
		size_t toplen = slash ? (size_t)(slash - path) : strlen(path);
		if (!r->top)
			r->top = arena_strndup(r->a, path, toplen);
		if (strlen(r->top) != toplen || strncmp(path, r->top, toplen))
			return fail(r, path,
			            "it is outside the top-level directory '%s/' (an sdist "
			            "holds one NAME-VERSION/ directory)",
			            r->top);
		if (!slash && e.kind != SDIST_DIR)
			return fail(r, path, "the top level must be a directory");
		if (e.kind == SDIST_SYMLINK) {
			if (!link_inside(path, link))
				return fail(r, path, "its link target '%s' is outside the tree",
				            esc_str(r->a, ESC_TERM, link));
			e.link = link;
		}
		unsigned char *data = NULL;
		if (e.kind == SDIST_FILE) {
			data = malloc(size ? (size_t)size : 1);
			if (!data)
				return fail(r, path, "out of memory");
			if (!read_exact(r, data, (size_t)size, path)) {
				free(data);
				return false;
			}
			e.data = data;
			e.size = size;
		} else if (!skip_bytes(r, size, path)) {
			return false;
		}
		bool ok = skip_bytes(r, (BLOCK - size % BLOCK) % BLOCK, path) && fn(user, &e);
		free(data);
		if (!ok)
			return false;
	}
	if (!r->top)
		return fail(r, NULL, "the archive holds no member");
	return true;
}

bool sdist_read(struct arena *a, struct diag *d, const char *name, const void *data, size_t len,
                const struct sdist_limits *lim, sdist_entry_fn *fn, void *user, const char **top)
{
	struct reader r = {.a = a, .d = d, .name = name, .lim = lim};
	const unsigned char *in = data;
	if (len < 2 || in[0] != 0x1f || in[1] != 0x8b)
		return fail(&r, NULL, "not a gzip-compressed tar archive (.tar.gz)");
	r.gz.in = in;
	r.gz.in_left = len;
	if (inflateInit2(&r.gz.zs, 15 + 16) != Z_OK)
		return fail(&r, NULL, "cannot start zlib");
	bool ok = read_members(&r, fn, user);
	inflateEnd(&r.gz.zs);
	if (ok && top)
		*top = r.top;
	return ok;
}

/* The unpacker: files first, symlinks last, so that nothing is ever written through a link. */
struct unpack {
	struct arena *a;
	struct diag *d;
	const char *root; /* the temporary directory */
	const char *sdist;
	struct strv links, targets;
};

/* "demo-1.0.tar.gz!demo-1.0/PKG-INFO": a member named as the user knows it, escaped. */
static const char *member_shown(struct arena *a, const char *sdist, const char *member)
{
	return arena_printf(a, "%s!%s", sdist, esc_str(a, ESC_TERM, member));
}

static bool mkdirs_for(struct unpack *u, const char *path)
{
	char *dir = arena_strdup(u->a, path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return true;
	*slash = '\0';
	struct diag quiet = {0};
	if (os_mkdir_p(&quiet, os_join(u->a, u->root, dir)))
		return true;
	diag_path(u->d, DIAG_ERROR, member_shown(u->a, u->sdist, path),
	          "cannot create its directory: %s", strerror(errno));
	return false;
}

static bool unpack_entry(void *user, const struct sdist_entry *e)
{
	struct unpack *u = user;
	char *dest = os_join(u->a, u->root, e->path);
	const char *shown = member_shown(u->a, u->sdist, e->path);
	if (e->kind == SDIST_DIR) {
		struct diag quiet = {0};
		if (os_mkdir_p(&quiet, dest))
			return true;
		diag_path(u->d, DIAG_ERROR, shown, "cannot create this directory: %s",
		          strerror(errno));
		return false;
	}
	if (e->kind == SDIST_SYMLINK) {
		strv_push(u->a, &u->links, e->path);
		strv_push(u->a, &u->targets, e->link);
		return true;
	}
	if (!mkdirs_for(u, e->path))
		return false;
	int fd =
	    open(dest, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, e->exec ? 0755 : 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			diag_path(u->d, DIAG_ERROR, u->sdist,
			          "member '%s': the archive holds this path twice",
			          esc_str(u->a, ESC_TERM, e->path));
		else
			diag_path(u->d, DIAG_ERROR, shown, "cannot create: %s", strerror(errno));
		return false;
	}
	size_t off = 0;
	while (off < e->size) {
		ssize_t w = write(fd, e->data + off, (size_t)(e->size - off));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			diag_path(u->d, DIAG_ERROR, shown, "cannot write: %s",
			          w < 0 ? strerror(errno) : "no space");
			close(fd);
			return false;
		}
		off += (size_t)w;
	}
	if (close(fd) != 0) {
		diag_path(u->d, DIAG_ERROR, shown, "cannot write: %s", strerror(errno));
		return false;
	}
	return true;
}

/* Every link, followed one component at a time from the top directory as the kernel would
 * (a -> . makes a/a/a the top itself, so a/a/a/../x leaves it although its text does not):
 * each must stay beneath the top. A link to nothing is kept (reading it fails later, located). */
static bool links_beneath(struct unpack *u, const char *top)
{
	char *tree = os_join(u->a, u->root, top);
	int root = open(tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		diag_path(u->d, DIAG_ERROR, member_shown(u->a, u->sdist, top),
		          "cannot open the unpacked top directory: %s", strerror(errno));
		return false;
	}
	bool ok = true;
	size_t n = strlen(top);
	for (size_t i = 0; ok && i < u->links.n; i++) {
		const char *rel = u->links.v[i] + n + 1; /* below top/ (a link is never the top) */
		int fd = os_open_beneath(root, rel, O_RDONLY | O_NONBLOCK);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (errno == ENOENT || errno == ENOTDIR)
			continue;
		const char *why = errno == EXDEV ? "resolves outside the tree"
		                  : errno == ELOOP
		                      ? "is part of a symlink loop (too many levels of links)"
		                      : strerror(errno);
		diag_path(u->d, DIAG_ERROR, u->sdist,
		          "member '%s': its link target '%s' %s (links are followed one component "
		          "at a time, inside the unpacked tree)",
		          esc_str(u->a, ESC_TERM, u->links.v[i]),
		          esc_str(u->a, ESC_TERM, u->targets.v[i]), why);
		ok = false;
	}
	close(root);
	return ok;
}

/* True for a key: 64 lowercase hex digits (a sha256). */
static bool is_key(const char *name)
{
	size_t n = 0;
	for (; name[n]; n++)
		if (!((name[n] >= '0' && name[n] <= '9') || (name[n] >= 'a' && name[n] <= 'f')))
			return false;
	return n == 64;
}

/* Removes, under the lock, what is neither the lock nor a key: what an unpack killed midway
 * left (.unpack-XXXXXX), and the layout of earlier versions (NAME-VERSION/ trees beside
 * NAME.tar.gz.unpacked stamps, .old-NAME-VERSION/), which no build reads any more. */
static void sweep_leftovers(struct arena *a, const char *dest_parent)
{
	struct strv names = {0};
	struct diag quiet = {0};
	if (!os_list_dir(a, dest_parent, &names))
		return;
	for (size_t i = 0; i < names.n; i++)
		if (strcmp(names.v[i], ".unpack.lock") && !is_key(names.v[i]))
			os_rm_rf(&quiet, os_join(a, dest_parent, names.v[i]));
}

static bool unpack_locked(struct arena *a, struct diag *d, const char *path,
                          const char *dest_parent, const struct sdist_limits *lim,
                          const char **dir);

bool sdist_unpack(struct arena *a, struct diag *d, const char *path, const char *dest_parent,
                  const struct sdist_limits *lim, const char **dir)
{
	if (!os_mkdir_p(d, dest_parent))
		return false;
	/* Two builds of one sdist at once: one unpacks, the other then finds the tree. */
	char *lock_path = os_join(a, dest_parent, ".unpack.lock");
	int lock = os_lock_open(d, lock_path, false);
	if (lock < 0)
		return false;
	bool ok = os_lock_wait(d, lock, lock_path);
	if (ok) {
		sweep_leftovers(a, dest_parent);
		ok = unpack_locked(a, d, path, dest_parent, lim, dir);
	}
	close(lock);
	return ok;
}

/* The tree unpacked before into keyed (DIGEST/), when it is whole: exactly one entry, a real
 * directory. NULL otherwise. */
static const char *unpacked_before(struct arena *a, const char *keyed)
{
	struct os_stat st;
	if (!os_lstat(keyed, &st) || st.kind != OS_KIND_DIR)
		return NULL;
	struct strv names = {0};
	if (!os_list_dir(a, keyed, &names) || names.n != 1)
		return NULL;
	char *tree = os_join(a, keyed, names.v[0]);
	if (!os_lstat(tree, &st) || st.kind != OS_KIND_DIR)
		return NULL;
	return tree;
}

static bool unpack_locked(struct arena *a, struct diag *d, const char *path,
                          const char *dest_parent, const struct sdist_limits *lim, const char **dir)
{
	struct os_stat st;
	if (os_stat(path, &st) && st.kind == OS_KIND_FILE && st.size > lim->max_total) {
		diag_path(d, DIAG_ERROR, path,
		          "%lld bytes is over the %llu-byte limit for an sdist", (long long)st.size,
		          (unsigned long long)lim->max_total);
		return false;
	}
	struct source src;
	if (!os_read_file(a, d, path, &src))
		return false;
	/* The tree is keyed by the archive's digest, not its top directory: two sdists with one
	 * top (demo-1.0.tar.gz, demo-1.0-patched.tar.gz) get two trees, and no member name can
	 * meet the lock or a temporary directory (they sit one level up, beside the keys). */
	char digest[65];
	mem_sha256_hex(src.text, src.len, digest);
	char *keyed = os_join(a, dest_parent, digest);
	const char *tree = unpacked_before(a, keyed);
	if (tree) {
		*dir = os_realpath(a, tree);
		return *dir != NULL;
	}
	struct diag quiet = {0};
	if (os_exists(keyed) && !os_rm_rf(d, keyed))
		return false; /* a partial key (removed by hand?): unpacked again */
	char *tmpl = os_join(a, dest_parent, ".unpack-XXXXXX");
	if (!mkdtemp(tmpl)) {
		diag_errno(d, dest_parent, "cannot create a temporary directory in");
		return false;
	}
	struct unpack u = {.a = a, .d = d, .root = tmpl, .sdist = path};
	const char *top = NULL;
	bool ok = sdist_read(a, d, path, src.text, src.len, lim, unpack_entry, &u, &top);
	for (size_t i = 0; ok && i < u.links.n; i++)
		ok = mkdirs_for(&u, u.links.v[i]);
	for (size_t i = 0; ok && i < u.links.n; i++) {
		char *lp = os_join(a, tmpl, u.links.v[i]);
		if (!os_symlink(u.targets.v[i], lp)) {
			if (errno == EEXIST)
				diag_path(
				    d, DIAG_ERROR, path,
				    "member '%s': a symlink where the archive also puts a file or "
				    "directory",
				    esc_str(a, ESC_TERM, u.links.v[i]));
			else
				diag_path(d, DIAG_ERROR, member_shown(a, path, u.links.v[i]),
				          "cannot create the symlink: %s", strerror(errno));
			ok = false;
		}
	}
	ok = ok && links_beneath(&u, top);
	if (ok && !os_rename(tmpl, keyed)) {
		diag_errno(d, keyed, "cannot rename the unpacked tree to");
		ok = false;
	}
	if (!ok) {
		os_rm_rf(&quiet, tmpl);
		return false;
	}
	*dir = os_realpath(a, os_join(a, keyed, top));
	return *dir != NULL;
}
