/* kernel_guess.c: a kernel source's torch and Python includes, read from its text
 * (torch/kernel_guess.h). */
#include "torch/kernel_guess.h"

#include <ctype.h>
#include <string.h>

#include "base/os-file.h"

/* The files read at most, and the bytes of one: a guess, so a project past them is guessed
 * from what was read. */
enum { GUESS_FILES = 1000, GUESS_DEPTH = 64, GUESS_FILE_MAX = 4 << 20 };

enum branch { BR_ON, BR_OFF, BR_UNKNOWN };

/* One #if of the file being read: the state of its current branch and of those before it. */
struct cond {
	enum branch state;
	bool any_on, any_unknown;
};

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* The branch an #if, #ifdef or #ifndef (kind) with text cond (to the line's end) takes for
 * the compiler: known only for 0, 1 and __CUDACC__ (defined for cu). */
static enum branch evaluate(const char *kind, const char *p, const char *end, bool cu)
{
	char buf[64];
	size_t n = 0;
	for (; p < end && n + 1 < sizeof(buf); p++)
		if (!isspace((unsigned char)*p) && *p != '(' && *p != ')')
			buf[n++] = *p;
	buf[n] = '\0';
	bool neg = false;
	const char *name = buf;
	if (!strcmp(kind, "ifdef") || !strcmp(kind, "ifndef")) {
		neg = !strcmp(kind, "ifndef");
	} else {
		if (!strcmp(buf, "0"))
			return BR_OFF;
		if (!strcmp(buf, "1"))
			return BR_ON;
		if (*name == '!') {
			neg = true;
			name++;
		}
		if (strncmp(name, "defined", 7) != 0)
			return BR_UNKNOWN;
		name += 7;
	}
	if (strcmp(name, "__CUDACC__") != 0)
		return BR_UNKNOWN;
	return cu != neg ? BR_ON : BR_OFF;
}

/* Whether every enclosing branch may be taken. */
static bool active(const struct cond *stack, size_t depth)
{
	for (size_t i = 0; i < depth; i++)
		if (stack[i].state == BR_OFF)
			return false;
	return true;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool torch_header_name(const char *name)
{
	return starts(name, "torch/") || starts(name, "ATen/") || starts(name, "c10/");
}

/* Notes what header name says (a torch header, a Python one); true for torch's and Python's
 * own headers, which are what is asked, not read. */
static bool classify(const char *name, struct kernel_guess *out)
{
	bool torch = torch_header_name(name);
	if (torch && !out->torch)
		out->torch = name;
	bool python = !strcmp(name, "Python.h") || starts(name, "pybind11/");
	if (python || !strcmp(name, "torch/extension.h") || !strcmp(name, "torch/python.h") ||
	    !strcmp(name, "torch/torch.h"))
		out->python = "Python.h";
	return torch || python;
}

/* The file name resolves to: in from's dir (quoted) and then each of dirs, or NULL. */
static const char *resolve(struct arena *a, const char *from, const char *name, bool quoted,
                           const struct strv *dirs)
{
	if (name[0] == '/')
		return os_exists(name) && !os_is_dir(name) ? name : NULL;
	if (quoted) {
		const char *slash = strrchr(from, '/');
		const char *dir = slash ? arena_strndup(a, from, (size_t)(slash - from)) : ".";
		const char *p = os_join(a, dir, name);
		if (os_exists(p) && !os_is_dir(p))
			return p;
	}
	for (size_t i = 0; i < dirs->n; i++) {
		const char *p = os_join(a, dirs->v[i], name);
		if (os_exists(p) && !os_is_dir(p))
			return p;
	}
	return NULL;
}

/* The header name of an #include's rest (p..end), and whether it was quoted; NULL for a
 * macro. */
static const char *include_name(struct arena *a, const char *p, const char *end, bool *quoted)
{
	p = skip_space(p, end);
	if (p >= end || (*p != '"' && *p != '<'))
		return NULL;
	char close = *p == '"' ? '"' : '>';
	*quoted = close == '"';
	const char *e = memchr(p + 1, close, (size_t)(end - p - 1));
	return e && e > p + 1 ? arena_strndup(a, p + 1, (size_t)(e - p - 1)) : NULL;
}

/* Copies line [p, end) into buf without its comments (*in_comment carries a block comment
 * across lines); returns the length. */
static size_t strip_comments(const char *p, const char *end, bool *in_comment, char *buf,
                             size_t cap)
{
	size_t n = 0;
	while (p < end && n + 1 < cap) {
		if (*in_comment) {
			if (p + 1 < end && p[0] == '*' && p[1] == '/') {
				*in_comment = false;
				p += 2;
			} else {
				p++;
			}
		} else if (p + 1 < end && p[0] == '/' && p[1] == '*') {
			*in_comment = true;
			p += 2;
			buf[n++] = ' ';
		} else if (p + 1 < end && p[0] == '/' && p[1] == '/') {
			break;
		} else {
			buf[n++] = *p++;
		}
	}
	buf[n] = '\0';
	return n;
}

/* Reads one file's directives: classifies each include taken, and queues those found. */
static void read_file(struct arena *a, const char *path, size_t depth, bool cu,
                      const struct strv *dirs, struct strv *queue, size_t *depths,
                      struct kernel_guess *out)
{
	struct source src;
	struct diag quiet = {0};
	if (!os_read_file_max(a, &quiet, path, GUESS_FILE_MAX, "a kernel header", &src))
		return;
	struct cond stack[GUESS_DEPTH];
	size_t sp = 0, skipped = 0; /* skipped: #ifs nested past the stack */
	bool in_comment = false;
	char line[1024];
	for (const char *p = src.text, *end = src.text + src.len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = strip_comments(p, le, &in_comment, line, sizeof(line));
		p = nl ? nl + 1 : end;
		const char *q = skip_space(line, line + n);
		if (q >= line + n || *q != '#')
			continue;
		q = skip_space(q + 1, line + n);
		const char *w = q;
		while (q < line + n && isalpha((unsigned char)*q))
			q++;
		char kind[16] = "";
		if ((size_t)(q - w) < sizeof(kind))
			memcpy(kind, w, (size_t)(q - w));
		if (!strcmp(kind, "if") || !strcmp(kind, "ifdef") || !strcmp(kind, "ifndef")) {
			if (sp == GUESS_DEPTH) {
				skipped++;
				continue;
			}
			enum branch b = evaluate(kind, q, line + n, cu);
			stack[sp++] = (struct cond){
			    .state = b, .any_on = b == BR_ON, .any_unknown = b == BR_UNKNOWN};
		} else if (!strcmp(kind, "elif") && sp && !skipped) {
			struct cond *c = &stack[sp - 1];
			enum branch b = c->any_on ? BR_OFF : evaluate("if", q, line + n, cu);
			c->state = b;
			c->any_on |= b == BR_ON;
			c->any_unknown |= b == BR_UNKNOWN;
		} else if (!strcmp(kind, "else") && sp && !skipped) {
			struct cond *c = &stack[sp - 1];
			c->state = c->any_on ? BR_OFF : c->any_unknown ? BR_UNKNOWN : BR_ON;
		} else if (!strcmp(kind, "endif")) {
			if (skipped)
				skipped--;
			else if (sp)
				sp--;
		} else if (!strcmp(kind, "include") && active(stack, sp)) {
			bool quoted = false;
			const char *name = include_name(a, q, line + n, &quoted);
			if (!name)
				continue;
			if (classify(name, out))
				continue;
			const char *f = resolve(a, path, name, quoted, dirs);
			if (f && depth + 1 < GUESS_DEPTH && queue->n < GUESS_FILES &&
			    !strv_contains(queue, f)) {
				depths[queue->n] = depth + 1;
				strv_push(a, queue, f);
			}
		}
	}
}

void kernel_guess(struct arena *a, const char *path, bool cu, const struct strv *dirs,
                  struct kernel_guess *out)
{
	memset(out, 0, sizeof(*out));
	struct strv queue = {0};
	size_t *depths = arena_calloc(a, GUESS_FILES + 1, sizeof(*depths));
	strv_push(a, &queue, path);
	for (size_t i = 0; i < queue.n; i++)
		read_file(a, queue.v[i], depths[i], cu, dirs, &queue, depths, out);
}
