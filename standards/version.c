/* version.c: PEP 440 version parsing, normalisation, ordering and specifier matching. */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/strbuf.h"
#include "standards/version.h"

/* A cursor over the text being parsed; matching is case-insensitive like PEP 440's regex. */
struct scan {
	const char *s;
	size_t i;
};

static bool is_sep(char c)
{
	return c == '-' || c == '_' || c == '.';
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Returns true and advances past word when the text continues with it (any case). */
static bool scan_word(struct scan *sc, const char *word)
{
	size_t n = strlen(word);
	if (strncasecmp(sc->s + sc->i, word, n) != 0)
		return false;
	sc->i += n;
	return true;
}

/* Reads a run of digits into *n; returns 0 when there is none, -1 on overflow, 1 on success. */
static int scan_number(struct scan *sc, unsigned long *n)
{
	if (!is_digit(sc->s[sc->i]))
		return 0;
	unsigned long v = 0;
	int rc = 1;
	for (; is_digit(sc->s[sc->i]); sc->i++) {
		unsigned long d = (unsigned long)(sc->s[sc->i] - '0');
		if (v > (ULONG_MAX - d) / 10)
			rc = -1;
		v = v * 10 + d;
	}
	*n = v;
	return rc;
}

/* Matches "[-_.]?" followed by one of labels; returns the label's index or -1 (cursor kept). */
static int scan_label(struct scan *sc, const char *const *labels, size_t n)
{
	size_t save = sc->i;
	if (is_sep(sc->s[sc->i]))
		sc->i++;
	for (size_t k = 0; k < n; k++)
		if (scan_word(sc, labels[k]))
			return (int)k;
	sc->i = save;
	return -1;
}

/* Matches the "[-_.]?[0-9]*" that may follow a label; a missing number is an implicit 0. */
static int scan_label_number(struct scan *sc, unsigned long *n)
{
	*n = 0;
	if (is_sep(sc->s[sc->i]))
		sc->i++;
	return scan_number(sc, n) < 0 ? -1 : 0;
}

char *pep440_normalize_local(struct arena *a, const char *label, const char **err)
{
	struct strbuf sb = {0};
	size_t i = 0;
	for (;;) {
		size_t start = i;
		bool numeric = true;
		while (isalnum((unsigned char)label[i])) {
			numeric = numeric && is_digit(label[i]);
			i++;
		}
		if (i == start) {
			sb_release(&sb);
			*err =
			    arena_printf(a, "invalid local version label '%s': %s", label,
			                 label[0] == '\0' ? "it is empty"
			                                  : "each part must be letters and digits, "
			                                    "separated by single '.', '-' or '_'");
			return NULL;
		}
		size_t from = start;
		if (numeric) /* numeric parts compare as numbers: packaging prints 01 as 1 */
			while (from + 1 < i && label[from] == '0')
				from++;
		for (size_t k = from; k < i; k++)
			sb_putc(&sb, (char)tolower((unsigned char)label[k]));
		if (label[i] == '\0')
			break;
		if (!is_sep(label[i])) {
			sb_release(&sb);
			*err = arena_printf(a, "invalid local version label '%s': unexpected '%c'",
			                    label, label[i]);
			return NULL;
		}
		sb_putc(&sb, '.');
		i++;
	}
	return sb_to_arena(&sb, a);
}

static bool parse_fail(struct arena *a, const char **err, const char *s, const char *why)
{
	*err = arena_printf(a, "invalid version '%s': %s", s, why);
	return false;
}

static const char *const pre_spellings[] = {"alpha", "a", "beta", "b", "preview", "pre", "c", "rc"};
static const char *const pre_canonical[] = {"a", "a", "b", "b", "rc", "rc", "rc", "rc"};
static const char *const post_spellings[] = {"post", "rev", "r"};
static const char *const dev_spellings[] = {"dev"};

#define N_OF(arr) (sizeof(arr) / sizeof((arr)[0]))

bool pep440_parse(struct arena *a, const char *s, struct pep440 *out, const char **err)
{
	static const char too_large[] = "a number is too large";
	struct scan sc = {s, 0};
	unsigned long n;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	while (is_space(s[sc.i]))
		sc.i++;
	if (s[sc.i] == 'v' || s[sc.i] == 'V')
		sc.i++;

	/* Epoch: digits followed by '!'; without the '!' the digits start the release. */
	size_t save = sc.i;
	int rc = scan_number(&sc, &n);
	if (rc != 0 && s[sc.i] == '!') {
		if (rc < 0)
			return parse_fail(a, err, s, too_large);
		out->epoch = n;
		sc.i++;
	} else {
		sc.i = save;
	}

	size_t cap = 4;
	out->release = arena_calloc(a, cap, sizeof(*out->release));
	for (;;) {
		rc = scan_number(&sc, &n);
		if (rc == 0)
			return parse_fail(a, err, s, "expected a release number such as 1.0");
		if (rc < 0)
			return parse_fail(a, err, s, too_large);
		if (out->n_release == cap) {
			out->release =
			    arena_realloc(a, out->release, cap, cap * 2, sizeof(*out->release));
			cap *= 2;
		}
		out->release[out->n_release++] = n;
		/* A '.' belongs to the release only when a digit follows ("1.0.dev1"). */
		if (s[sc.i] != '.' || !is_digit(s[sc.i + 1]))
			break;
		sc.i++;
	}

	int k = scan_label(&sc, pre_spellings, N_OF(pre_spellings));
	if (k >= 0) {
		out->has_pre = true;
		strcpy(out->pre_l, pre_canonical[k]);
		if (scan_label_number(&sc, &out->pre_n) < 0)
			return parse_fail(a, err, s, too_large);
	}

	/* Post release: the implicit "-N" spelling, or post/rev/r with an optional number. */
	if (s[sc.i] == '-' && is_digit(s[sc.i + 1])) {
		sc.i++;
		out->has_post = true;
		if (scan_number(&sc, &out->post_n) < 0)
			return parse_fail(a, err, s, too_large);
	} else if (scan_label(&sc, post_spellings, N_OF(post_spellings)) >= 0) {
		out->has_post = true;
		if (scan_label_number(&sc, &out->post_n) < 0)
			return parse_fail(a, err, s, too_large);
	}

	if (scan_label(&sc, dev_spellings, N_OF(dev_spellings)) >= 0) {
		out->has_dev = true;
		if (scan_label_number(&sc, &out->dev_n) < 0)
			return parse_fail(a, err, s, too_large);
	}

	if (s[sc.i] == '+') {
		size_t start = ++sc.i;
		while (s[sc.i] != '\0' && !is_space(s[sc.i]))
			sc.i++;
		char *label = arena_strndup(a, s + start, sc.i - start);
		const char *lerr;
		out->local = pep440_normalize_local(a, label, &lerr);
		if (!out->local)
			return parse_fail(a, err, s, lerr);
	}

	while (is_space(s[sc.i]))
		sc.i++;
	if (s[sc.i] != '\0')
		return parse_fail(
		    a, err, s, arena_printf(a, "unexpected text '%s' after the version", s + sc.i));
	return true;
}

static void put_public(struct strbuf *sb, const struct pep440 *v)
{
	if (v->epoch != 0)
		sb_printf(sb, "%lu!", v->epoch);
	for (size_t i = 0; i < v->n_release; i++)
		sb_printf(sb, i ? ".%lu" : "%lu", v->release[i]);
	if (v->has_pre)
		sb_printf(sb, "%s%lu", v->pre_l, v->pre_n);
	if (v->has_post)
		sb_printf(sb, ".post%lu", v->post_n);
	if (v->has_dev)
		sb_printf(sb, ".dev%lu", v->dev_n);
}

char *pep440_public(struct arena *a, const struct pep440 *v)
{
	struct strbuf sb = {0};
	put_public(&sb, v);
	return sb_to_arena(&sb, a);
}

char *pep440_str(struct arena *a, const struct pep440 *v)
{
	struct strbuf sb = {0};
	put_public(&sb, v);
	if (v->local)
		sb_printf(&sb, "+%s", v->local);
	return sb_to_arena(&sb, a);
}

bool pep440_is_canonical(struct arena *a, const char *s)
{
	struct pep440 v;
	const char *err;
	return pep440_parse(a, s, &v, &err) && strcmp(pep440_str(a, &v), s) == 0;
}

static int cmp_ul(unsigned long x, unsigned long y)
{
	return (x > y) - (x < y);
}

/* Release segments compare as if padded with zeros: 1.0 == 1.0.0. */
static int cmp_release(const struct pep440 *x, const struct pep440 *y)
{
	size_t n = x->n_release > y->n_release ? x->n_release : y->n_release;
	for (size_t i = 0; i < n; i++) {
		unsigned long a = i < x->n_release ? x->release[i] : 0;
		unsigned long b = i < y->n_release ? y->release[i] : 0;
		if (a != b)
			return cmp_ul(a, b);
	}
	return 0;
}

/* The pre-release rank: a dev release of a final version (1.0.dev0) sorts before its alphas,
 * a version without a pre-release after all of them. */
static int pre_rank(const struct pep440 *v, int *letter)
{
	if (!v->has_pre) {
		*letter = 0;
		return (!v->has_post && v->has_dev) ? 0 : 2;
	}
	*letter = v->pre_l[0] == 'a' ? 0 : v->pre_l[0] == 'b' ? 1 : 2;
	return 1;
}

/* Compares one local part: numbers by value and after every alphanumeric part. */
static int cmp_local_part(const char *x, size_t nx, const char *y, size_t ny)
{
	bool dx = strspn(x, "0123456789") >= nx, dy = strspn(y, "0123456789") >= ny;
	if (dx != dy)
		return dx ? 1 : -1;
	if (dx) {
		while (nx > 1 && *x == '0')
			x++, nx--;
		while (ny > 1 && *y == '0')
			y++, ny--;
		if (nx != ny)
			return nx < ny ? -1 : 1;
		int c = memcmp(x, y, nx);
		return (c > 0) - (c < 0);
	}
	int c = memcmp(x, y, nx < ny ? nx : ny);
	if (c != 0)
		return (c > 0) - (c < 0);
	return cmp_ul(nx, ny);
}

/* Compares normalised local labels; no label sorts first, a longer label after its prefix. */
static int cmp_local(const char *x, const char *y)
{
	if (!x || !y)
		return (x != NULL) - (y != NULL);
	for (;;) {
		size_t nx = strcspn(x, "."), ny = strcspn(y, ".");
		int c = cmp_local_part(x, nx, y, ny);
		if (c != 0)
			return c;
		x += nx;
		y += ny;
		if (*x == '\0' || *y == '\0')
			return (*x != '\0') - (*y != '\0');
		x++;
		y++;
	}
}

/* Compares everything but the local label. */
static int cmp_public(const struct pep440 *x, const struct pep440 *y)
{
	int c = cmp_ul(x->epoch, y->epoch);
	if (c == 0)
		c = cmp_release(x, y);
	if (c != 0)
		return c;
	int lx, ly;
	int rx = pre_rank(x, &lx), ry = pre_rank(y, &ly);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (rx == 1) {
		if (lx != ly)
			return lx < ly ? -1 : 1;
		if ((c = cmp_ul(x->pre_n, y->pre_n)) != 0)
			return c;
	}
	/* No post release sorts before any post release. */
	if (x->has_post != y->has_post)
		return x->has_post ? 1 : -1;
	if (x->has_post && (c = cmp_ul(x->post_n, y->post_n)) != 0)
		return c;
	/* No dev release sorts after any dev release. */
	if (x->has_dev != y->has_dev)
		return x->has_dev ? -1 : 1;
	if (x->has_dev)
		return cmp_ul(x->dev_n, y->dev_n);
	return 0;
}

int pep440_cmp(const struct pep440 *x, const struct pep440 *y)
{
	int c = cmp_public(x, y);
	return c != 0 ? c : cmp_local(x->local, y->local);
}

/* Returns true when x and y have the same epoch, release and pre-release. */
static bool same_up_to_pre(const struct pep440 *x, const struct pep440 *y)
{
	return x->epoch == y->epoch && cmp_release(x, y) == 0 && x->has_pre == y->has_pre &&
	       (!x->has_pre || (strcmp(x->pre_l, y->pre_l) == 0 && x->pre_n == y->pre_n));
}

static struct pep440 public_of(const struct pep440 *v)
{
	struct pep440 p = *v;
	p.local = NULL;
	return p;
}

enum spec_op {
	SPEC_OP_COMPATIBLE, /* ~= */
	SPEC_OP_ARBITRARY,  /* === */
	SPEC_OP_EQ,
	SPEC_OP_NE,
	SPEC_OP_LE,
	SPEC_OP_GE,
	SPEC_OP_LT,
	SPEC_OP_GT,
};

static const struct {
	const char *text;
	enum spec_op op;
} spec_ops[] = {
    /* Longest first so that "===" is not read as "==" and "<=" not as "<". */
    {"===", SPEC_OP_ARBITRARY}, {"~=", SPEC_OP_COMPATIBLE}, {"==", SPEC_OP_EQ}, {"!=", SPEC_OP_NE},
    {"<=", SPEC_OP_LE},         {">=", SPEC_OP_GE},         {"<", SPEC_OP_LT},  {">", SPEC_OP_GT},
};

/* Prefix match (==X.*): the epoch and the first n release numbers of the spec, v padded with
 * zeros; pre, post, dev and local parts of v do not matter. */
static bool match_prefix(const struct pep440 *v, const struct pep440 *spec, size_t n)
{
	if (v->epoch != spec->epoch)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((i < v->n_release ? v->release[i] : 0) != spec->release[i])
			return false;
	return true;
}

static bool spec_fail(struct arena *a, const char **err, const char *spec, const char *why)
{
	*err = arena_printf(a, "invalid version specifier '%s': %s", spec, why);
	return false;
}

/* Evaluates one specifier (already trimmed); false with *err set when it is malformed. */
static bool match_one(struct arena *a, const struct pep440 *v, const char *spec, bool *ok,
                      const char **err)
{
	size_t k;
	for (k = 0; k < N_OF(spec_ops); k++)
		if (strncmp(spec, spec_ops[k].text, strlen(spec_ops[k].text)) == 0)
			break;
	if (k == N_OF(spec_ops))
		return spec_fail(a, err, spec, "expected an operator: ~= == != <= >= < > ===");
	enum spec_op op = spec_ops[k].op;
	const char *text = spec + strlen(spec_ops[k].text);
	while (is_space(*text))
		text++;
	if (*text == '\0')
		return spec_fail(a, err, spec, "a version must follow the operator");

	if (op == SPEC_OP_ARBITRARY) {
		if (strpbrk(text, " \t\n\r\f\v"))
			return spec_fail(a, err, spec, "'===' takes one word");
		*ok = strcasecmp(pep440_str(a, v), text) == 0;
		return true;
	}

	size_t len = strlen(text);
	bool wildcard = len >= 2 && strcmp(text + len - 2, ".*") == 0;
	if (wildcard && (len < 3 || is_space(text[len - 3])))
		return spec_fail(a, err, spec, "expected release numbers before '.*'");
	if (wildcard && op != SPEC_OP_EQ && op != SPEC_OP_NE)
		return spec_fail(a, err, spec, "'.*' is only allowed with == and !=");
	struct pep440 sv;
	const char *verr;
	if (!pep440_parse(a, wildcard ? arena_strndup(a, text, len - 2) : text, &sv, &verr))
		return spec_fail(a, err, spec, verr);
	if (wildcard && (sv.has_pre || sv.has_post || sv.has_dev || sv.local))
		return spec_fail(a, err, spec, "'.*' must follow release numbers only");
	if (sv.local && op != SPEC_OP_EQ && op != SPEC_OP_NE)
		return spec_fail(a, err, spec,
		                 "a local version label is only allowed with == and !=");

	struct pep440 pub = public_of(v);
	switch (op) {
	case SPEC_OP_COMPATIBLE:
		if (sv.n_release < 2)
			return spec_fail(a, err, spec, "'~=' needs at least two release numbers");
		/* ~=2.2.post3 means >=2.2.post3, ==2.* */
		*ok = cmp_public(v, &sv) >= 0 && match_prefix(v, &sv, sv.n_release - 1);
		break;
	case SPEC_OP_EQ:
	case SPEC_OP_NE:
		if (wildcard)
			*ok = match_prefix(v, &sv, sv.n_release);
		else /* without a label in the spec, the candidate's label is ignored */
			*ok = pep440_cmp(sv.local ? v : &pub, &sv) == 0;
		if (op == SPEC_OP_NE)
			*ok = !*ok;
		break;
	case SPEC_OP_LE:
		*ok = cmp_public(v, &sv) <= 0;
		break;
	case SPEC_OP_GE:
		*ok = cmp_public(v, &sv) >= 0;
		break;
	case SPEC_OP_LT:
		/* <3.1 excludes 3.1's pre-releases (3.1.dev0 is the first) unless the spec is one.
		 */
		if (!sv.has_pre && !sv.has_dev) {
			sv.has_dev = true;
			sv.dev_n = 0;
		}
		*ok = pep440_cmp(v, &sv) < 0;
		break;
	case SPEC_OP_GT:
		/* >3.1 excludes 3.1+local and, unless the spec has a post or dev part, 3.1's post
		 * releases: the same epoch, release and pre-release. */
		*ok = cmp_public(v, &sv) > 0 &&
		      (sv.has_post || sv.has_dev || !same_up_to_pre(v, &sv));
		break;
	case SPEC_OP_ARBITRARY:
		break;
	}
	return true;
}

bool pep440_satisfies(struct arena *a, const struct pep440 *v, const char *specifiers,
                      const char **err)
{
	*err = NULL;
	bool all = true;
	const char *p = specifiers;
	for (;;) {
		size_t n = strcspn(p, ",");
		size_t b = 0, e = n;
		while (b < e && is_space(p[b]))
			b++;
		while (e > b && is_space(p[e - 1]))
			e--;
		if (e > b) {
			bool ok = false;
			if (!match_one(a, v, arena_strndup(a, p + b, e - b), &ok, err))
				return false;
			all = all && ok;
		}
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
	return all;
}

int version_dotted_parts(const char *v, long parts[], int max)
{
	int n = 0;
	const char *p = v;
	while (n < max) {
		if (!isdigit((unsigned char)*p))
			return 0;
		char *end;
		parts[n++] = strtol(p, &end, 10);
		p = end;
		if (*p == '\0')
			return n;
		if (*p != '.')
			return 0;
		p++;
	}
	return 0;
}

int version_dotted_cmp(const char *x, const char *y)
{
	while (isdigit((unsigned char)*x) || isdigit((unsigned char)*y)) {
		char *ex, *ey;
		long a = isdigit((unsigned char)*x) ? strtol(x, &ex, 10) : (ex = (char *)x, 0);
		long b = isdigit((unsigned char)*y) ? strtol(y, &ey, 10) : (ey = (char *)y, 0);
		if (a != b)
			return a < b ? -1 : 1;
		x = ex + (*ex == '.');
		y = ey + (*ey == '.');
	}
	return 0;
}
