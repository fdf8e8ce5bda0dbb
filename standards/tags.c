/* tags.c: project name normalisation, wheel file names and platform compatibility tags. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "standards/tags.h"
#include "standards/version.h"

static bool is_name_sep(char c)
{
	return c == '-' || c == '_' || c == '.';
}

/* Lower-cases name and replaces each run of -_. with sep. */
static char *name_collapse(struct arena *a, const char *name, char sep)
{
	size_t n = strlen(name), o = 0;
	char *out = arena_alloc(a, n + 1);
	for (size_t i = 0; i < n; i++) {
		if (is_name_sep(name[i])) {
			if (i == 0 || !is_name_sep(name[i - 1]))
				out[o++] = sep;
			continue;
		}
		out[o++] = (char)tolower((unsigned char)name[i]);
	}
	out[o] = '\0';
	return out;
}

char *name_normalize(struct arena *a, const char *name)
{
	return name_collapse(a, name, '-');
}

char *name_wheel_escape(struct arena *a, const char *name)
{
	return name_collapse(a, name, '_');
}

static bool is_ascii_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool name_is_valid(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || !is_ascii_alnum(name[0]) || !is_ascii_alnum(name[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_ascii_alnum(name[i]) && !is_name_sep(name[i]))
			return false;
	return true;
}

/* A tag component: lower-case letters, digits and '_' ("cp312", "manylinux_2_28_x86_64"). */
static bool tag_is_valid(const char *t, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(t[i] >= 'a' && t[i] <= 'z') && !(t[i] >= '0' && t[i] <= '9') && t[i] != '_')
			return false;
	return true;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Splits a compressed tag set on '.', sorted and de-duplicated; 0 when a tag is invalid. */
static size_t tagset_split(struct arena *a, const char *set, const char ***out)
{
	size_t cap = 1;
	for (const char *p = set; *p; p++)
		cap += *p == '.';
	const char **v = arena_calloc(a, cap, sizeof(*v));
	size_t n = 0;
	for (const char *p = set;;) {
		size_t len = strcspn(p, ".");
		if (!tag_is_valid(p, len))
			return 0;
		v[n++] = arena_strndup(a, p, len);
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	qsort(v, n, sizeof(*v), cmp_str);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || strcmp(v[u - 1], v[i]) != 0)
			v[u++] = v[i];
	*out = v;
	return u;
}

static char *tagset_join(struct arena *a, const char **v, size_t n)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_putc(&sb, '.');
		sb_puts(&sb, v[i]);
	}
	return sb_to_arena(&sb, a);
}

/* Normalises a compressed tag set ("py3.py2" -> "py2.py3"); NULL when invalid. */
static char *tagset_normalize(struct arena *a, const char *set)
{
	const char **v;
	size_t n = tagset_split(a, set, &v);
	return n ? tagset_join(a, v, n) : NULL;
}

/* A build tag starts with a digit and has no '-' ("1", "1abc", "20240101.1"). */
static bool build_is_valid(const char *b)
{
	if (!(b[0] >= '0' && b[0] <= '9'))
		return false;
	for (; *b; b++)
		if (!is_ascii_alnum(*b) && *b != '_' && *b != '.')
			return false;
	return true;
}

char *wheel_filename(struct arena *a, const char *name, const char *version, const char *build,
                     const char *python, const char *abi, const char *platform)
{
	struct pep440 v;
	const char *err;
	if (!name_is_valid(name) || !pep440_parse(a, version, &v, &err))
		return NULL;
	if (build && !build_is_valid(build))
		return NULL;
	char *py = tagset_normalize(a, python), *ab = tagset_normalize(a, abi),
	     *pl = tagset_normalize(a, platform);
	if (!py || !ab || !pl)
		return NULL;
	return arena_printf(a, "%s-%s%s%s-%s-%s-%s.whl", name_wheel_escape(a, name),
	                    pep440_str(a, &v), build ? "-" : "", build ? build : "", py, ab, pl);
}

static bool fname_fail(struct arena *a, const char **err, const char *filename, const char *why)
{
	*err = arena_printf(a, "invalid wheel file name '%s': %s", filename, why);
	return false;
}

bool wheel_filename_parse(struct arena *a, const char *filename, struct wheel_name *out,
                          const char **err)
{
	memset(out, 0, sizeof(*out));
	*err = NULL;
	size_t len = strlen(filename);
	if (len < 4 || strcmp(filename + len - 4, ".whl") != 0)
		return fname_fail(a, err, filename, "it does not end in .whl");
	if (strchr(filename, '/') || strchr(filename, '\\'))
		return fname_fail(a, err, filename, "expected a base name, not a path");

	const char *part[6];
	size_t n = 0;
	char *stem = arena_strndup(a, filename, len - 4);
	for (char *p = stem;;) {
		char *dash = strchr(p, '-');
		if (n == 6)
			return fname_fail(a, err, filename,
			                  "too many '-'-separated parts (a '-' in the version?)");
		part[n++] = p;
		if (!dash)
			break;
		*dash = '\0';
		p = dash + 1;
	}
	if (n < 5)
		return fname_fail(
		    a, err, filename,
		    "expected {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl");

	const char *name = part[0], *version = part[1];
	out->distribution_as_written = name;
	if (!name_is_valid(name) || strchr(name, '-'))
		return fname_fail(a, err, filename,
		                  arena_printf(a, "'%s' is not a valid project name", name));
	if (strstr(name, "__"))
		return fname_fail(a, err, filename,
		                  arena_printf(a, "the name '%s' contains '__'", name));
	out->distribution = name_wheel_escape(a, name);

	struct pep440 v;
	const char *verr;
	if (!pep440_parse(a, version, &v, &verr))
		return fname_fail(a, err, filename, verr);
	const char *canon = pep440_str(a, &v);
	if (strcmp(canon, version) != 0)
		return fname_fail(a, err, filename,
		                  arena_printf(a, "the version '%s' is not normalised (write '%s')",
		                               version, canon));
	out->version = version;

	if (n == 6) {
		if (!build_is_valid(part[2]))
			return fname_fail(a, err, filename,
			                  arena_printf(a,
			                               "the build tag '%s' must start with a digit "
			                               "and hold only letters, digits, '_' and '.'",
			                               part[2]));
		out->build = part[2];
	}
	static const char *const what[] = {"python", "abi", "platform"};
	const char **set[3] = {&out->python, &out->abi, &out->platform};
	for (size_t i = 0; i < 3; i++) {
		const char *t = part[n - 3 + i];
		*set[i] = tagset_normalize(a, t);
		if (!*set[i])
			return fname_fail(a, err, filename,
			                  arena_printf(a, "invalid %s tag '%s'", what[i], t));
	}
	out->n_tags = wheel_tags_expand(a, out->python, out->abi, out->platform, &out->tags);
	return true;
}

size_t wheel_tags_expand(struct arena *a, const char *python, const char *abi, const char *platform,
                         struct wheel_tag **out)
{
	const char **py, **ab, **pl;
	size_t npy = tagset_split(a, python, &py), nab = tagset_split(a, abi, &ab),
	       npl = tagset_split(a, platform, &pl);
	*out = NULL;
	if (!npy || !nab || !npl)
		return 0;
	struct wheel_tag *t = arena_calloc(a, npy * nab, npl * sizeof(*t));
	size_t n = 0;
	for (size_t i = 0; i < npy; i++)
		for (size_t j = 0; j < nab; j++)
			for (size_t k = 0; k < npl; k++)
				t[n++] = (struct wheel_tag){py[i], ab[j], pl[k]};
	*out = t;
	return n;
}

char *tag_manylinux(struct arena *a, int glibc_major, int glibc_minor, const char *arch)
{
	if (glibc_major < 0 || glibc_minor < 0 || !arch || !tag_is_valid(arch, strlen(arch)))
		return NULL;
	return arena_printf(a, "manylinux_%d_%d_%s", glibc_major, glibc_minor, arch);
}

char *tag_musllinux(struct arena *a, int musl_major, int musl_minor, const char *arch)
{
	if (musl_major < 0 || musl_minor < 0 || !arch || !tag_is_valid(arch, strlen(arch)))
		return NULL;
	return arena_printf(a, "musllinux_%d_%d_%s", musl_major, musl_minor, arch);
}

/* Reads a decimal number without sign or leading zeros, up to a '_'; advances *p. */
static bool read_int_field(const char **p, int *n)
{
	const char *s = *p;
	if (!(s[0] >= '0' && s[0] <= '9') || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
		return false;
	long v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > 9999)
			return false;
	}
	if (*s != '_')
		return false;
	*n = (int)v;
	*p = s + 1;
	return true;
}

bool tag_manylinux_parse(struct arena *a, const char *tag, int *glibc_major, int *glibc_minor,
                         const char **arch)
{
	static const struct {
		const char *prefix;
		int major, minor;
	} legacy[] = {
	    {"manylinux1_", 2, 5},
	    {"manylinux2010_", 2, 12},
	    {"manylinux2014_", 2, 17},
	};
	const char *p = NULL;
	int major = 0, minor = 0;
	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
		size_t n = strlen(legacy[i].prefix);
		if (strncmp(tag, legacy[i].prefix, n) == 0) {
			p = tag + n;
			major = legacy[i].major;
			minor = legacy[i].minor;
		}
	}
	if (!p) {
		if (strncmp(tag, "manylinux_", 10) != 0)
			return false;
		p = tag + 10;
		if (!read_int_field(&p, &major) || !read_int_field(&p, &minor))
			return false;
	}
	if (!tag_is_valid(p, strlen(p)))
		return false;
	*glibc_major = major;
	*glibc_minor = minor;
	*arch = arena_strdup(a, p);
	return true;
}

char *tag_python(struct arena *a, int major, int minor)
{
	return arena_printf(a, "cp%d%d", major, minor);
}

char *tag_abi(struct arena *a, int major, int minor, bool freethreaded)
{
	return arena_printf(a, "cp%d%d%s", major, minor, freethreaded ? "t" : "");
}

char *tag_platform_from_sysconfig(struct arena *a, const char *plat)
{
	/* What packaging.tags does: every '-' and '.' becomes '_'. */
	char *out = arena_strdup(a, plat);
	for (char *p = out; *p; p++) {
		if (*p == '-' || *p == '.')
			*p = '_';
		else
			*p = (char)tolower((unsigned char)*p);
	}
	return out;
}

bool tag_python_parse(const char *tag, struct python_tag *out)
{
	if (strncmp(tag, "cp", 2) && strncmp(tag, "py", 2))
		return false;
	const char *d = tag + 2;
	if (d[0] < '0' || d[0] > '9')
		return false;
	out->kind = tag[0];
	out->major = d[0] - '0';
	out->minor = -1;
	if (!d[1])
		return true;
	size_t n = strspn(d + 1, "0123456789");
	if (n == 0 || n > 2 || d[1 + n])
		return false;
	out->minor = atoi(d + 1);
	return true;
}

bool tag_abi_parse(const char *abi, int *major, int *minor, const char **flags)
{
	if (strncmp(abi, "cp", 2) || abi[2] < '0' || abi[2] > '9')
		return false;
	size_t n = strspn(abi + 3, "0123456789");
	if (n == 0 || n > 3)
		return false;
	*major = abi[2] - '0';
	*minor = atoi(abi + 3);
	*flags = abi + 3 + n;
	return true;
}

/* The arch after n "_<int>" fields: "11_0_arm64" with n 2 -> "arm64"; NULL when malformed. */
static const char *after_int_fields(const char *p, int n)
{
	for (int i = 0; i < n; i++) {
		size_t k = strspn(p, "0123456789");
		if (k == 0 || p[k] != '_')
			return NULL;
		p += k + 1;
	}
	return *p ? p : NULL;
}

enum tag_os tag_platform_os(struct arena *a, const char *plat, const char **arch)
{
	int maj, min;
	const char *m = NULL;
	enum tag_os os = TAG_OS_OTHER;
	if (!strcmp(plat, "any")) {
		os = TAG_OS_ANY;
	} else if (!strcmp(plat, "win32")) {
		os = TAG_OS_WINDOWS;
		m = "win32";
	} else if (!strncmp(plat, "win_", 4)) {
		os = TAG_OS_WINDOWS;
		m = plat + 4;
	} else if (!strncmp(plat, "macosx_", 7)) {
		os = TAG_OS_MACOS;
		m = after_int_fields(plat + 7, 2);
	} else if (!strncmp(plat, "linux_", 6)) {
		os = TAG_OS_LINUX;
		m = plat + 6;
	} else if (tag_manylinux_parse(a, plat, &maj, &min, &m)) {
		os = TAG_OS_MANYLINUX;
	} else if (!strncmp(plat, "musllinux_", 10)) {
		os = TAG_OS_MUSLLINUX;
		m = after_int_fields(plat + 10, 2);
	}
	if (arch)
		*arch = m;
	return os;
}

bool tag_soabi_parse(struct arena *a, const char *soabi, const char **abi, const char **triplet)
{
	if (strncmp(soabi, "cpython-", 8))
		return false;
	const char *v = soabi + 8;
	const char *dash = strchr(v, '-');
	*abi = arena_printf(a, "cp%.*s", (int)(dash ? (size_t)(dash - v) : strlen(v)), v);
	*triplet = dash ? dash + 1 : NULL;
	return true;
}

void tag_pyd_suffix_split(struct arena *a, const char *suffix, const char **abi,
                          const char **platform)
{
	const char *dash = strchr(suffix, '-');
	*abi = arena_strndup(a, suffix, dash ? (size_t)(dash - suffix) : strlen(suffix));
	*platform = dash ? dash + 1 : NULL;
}
