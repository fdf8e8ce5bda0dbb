/* cuda_arch.c: parsing and rendering CUDA architecture names (see cuda_arch.h). */
#include "standards/cuda_arch.h"

#include <ctype.h>
#include <string.h>

#include "base/diag.h"
#include "base/strbuf.h"

#define N(x) (sizeof(x) / sizeof(*(x)))

/* torch.utils.cpp_extension's named architectures. */
static const struct {
	const char *name, *list;
} arch_names[] = {
    {"Kepler+Tesla", "3.7"},     {"Kepler", "3.5+PTX"},
    {"Maxwell+Tegra", "5.3"},    {"Maxwell", "5.0;5.2+PTX"},
    {"Pascal", "6.0;6.1+PTX"},   {"Volta+Tegra", "7.2"},
    {"Volta", "7.0+PTX"},        {"Turing", "7.5+PTX"},
    {"Ampere+Tegra", "8.7"},     {"Ampere", "8.0;8.6+PTX"},
    {"Ada", "8.9+PTX"},          {"Hopper", "9.0+PTX"},
    {"Blackwell+Tegra", "10.1"}, {"Blackwell", "10.0;12.0+PTX"},
};

/* One entry, NUL-terminated in buf: "8.6", "9.0a", "12.0+PTX"; with ARCH_SPELL_NVCC also "86",
 * "90a", "120+PTX" and "sm_86". */
static bool parse_one(char *buf, enum arch_spelling sp, struct arch *out)
{
	memset(out, 0, sizeof *out);
	char *plus = strstr(buf, "+PTX");
	if (!plus)
		plus = strstr(buf, "+ptx");
	if (plus) {
		if (plus[4])
			return false;
		out->ptx = true;
		*plus = '\0';
	}
	const char *p = buf;
	if ((sp & ARCH_SPELL_NVCC) && !strncmp(p, "sm_", 3))
		p += 3;
	if (!isdigit((unsigned char)*p))
		return false;
	long v = 0;
	const char *digits = p;
	while (isdigit((unsigned char)*p) && p - digits < 4)
		v = v * 10 + (*p++ - '0');
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p) || v < 1 || v > 20)
			return false;
		out->major = (int)v;
		out->minor = *p++ - '0';
	} else {
		/* The compact spelling: the last digit is the minor ("120" is 12.0). */
		if (!(sp & ARCH_SPELL_NVCC) || v < 10 || v > 209)
			return false;
		out->major = (int)(v / 10);
		out->minor = (int)(v % 10);
	}
	if (*p == 'a' || *p == 'f')
		out->suffix = *p++;
	if (*p)
		return false;
	/* Arch-specific targets start with sm_90a, family-specific ones with sm_100f: nvcc
	 * rejects sm_86a or sm_90f. */
	if ((out->suffix == 'a' && out->major < 9) || (out->suffix == 'f' && out->major < 10))
		return false;
	return true;
}

static const char *bad_entry(struct arena *a, const char *word, enum arch_spelling sp)
{
	if (sp & ARCH_SPELL_TORCH) {
		const char *names[N(arch_names)];
		for (size_t i = 0; i < N(arch_names); i++)
			names[i] = arch_names[i].name;
		const char *close = diag_did_you_mean(word, names, N(arch_names));
		if (close)
			return arena_printf(a, "'%s' is not an architecture; did you mean '%s'?",
			                    word, close);
	}
	struct arch ar;
	char *stem = arena_strdup(a, word);
	size_t n = strlen(stem);
	if (n && (stem[n - 1] == 'a' || stem[n - 1] == 'f'))
		stem[n - 1] = '\0';
	if (parse_one(stem, sp, &ar))
		return arena_printf(a,
		                    "'%s' is not an architecture ('a' targets start at 9.0a, 'f' "
		                    "targets at 10.0f)",
		                    word);
	if (sp & ARCH_SPELL_NVCC)
		return arena_printf(
		    a, "'%s' is not a CUDA architecture (write 75, 8.6, 90a or 120+PTX)", word);
	return arena_printf(a,
	                    "'%s' is not an architecture (write 8.6, 9.0a, 12.0+PTX or a name such "
	                    "as Ampere)",
	                    word);
}

bool cuda_arch_parse_list(struct arena *a, const char *text, enum arch_spelling sp,
                          struct arch **out, size_t *n, const char **err)
{
	size_t cap = 16, len = 0;
	struct arch *v = arena_calloc(a, cap, sizeof(*v));
	const char *p = text;
	while (*p) {
		while (*p == ';' || *p == ',' || isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		const char *s = p;
		while (*p && *p != ';' && *p != ',' && !isspace((unsigned char)*p))
			p++;
		char *word = arena_strndup(a, s, (size_t)(p - s));
		const char *expand = NULL;
		for (size_t i = 0; (sp & ARCH_SPELL_TORCH) && i < N(arch_names); i++)
			if (!strcmp(word, arch_names[i].name))
				expand = arch_names[i].list;
		struct arch tmp[4];
		size_t ntmp = 0;
		if (expand) {
			char *list = arena_strdup(a, expand), *save = NULL;
			for (char *t = strtok_r(list, ";", &save); t;
			     t = strtok_r(NULL, ";", &save))
				parse_one(t, ARCH_SPELL_TORCH, &tmp[ntmp++]);
		} else if (parse_one(arena_strdup(a, word), sp, &tmp[0])) {
			ntmp = 1;
		} else {
			*err = bad_entry(a, word, sp);
			return false;
		}
		for (size_t k = 0; k < ntmp; k++) {
			bool dup = false;
			for (size_t j = 0; j < len; j++) {
				if (v[j].major == tmp[k].major && v[j].minor == tmp[k].minor &&
				    v[j].suffix == tmp[k].suffix) {
					v[j].ptx |= tmp[k].ptx;
					dup = true;
				}
			}
			if (dup)
				continue;
			if (len == cap) {
				v = arena_realloc(a, v, cap, cap * 2, sizeof(*v));
				cap *= 2;
			}
			v[len++] = tmp[k];
		}
	}
	if (len == 0) {
		*err = "the architecture list is empty";
		return false;
	}
	*out = v;
	*n = len;
	return true;
}

char *cuda_arch_name(struct arena *a, const struct arch *ar, bool ptx)
{
	return arena_printf(a, "%s_%d%d%s", ptx ? "compute" : "sm", ar->major, ar->minor,
	                    ar->suffix == 'a'   ? "a"
	                    : ar->suffix == 'f' ? "f"
	                                        : "");
}

char *cuda_arch_nvcc_flags(struct arena *a, const struct arch *v, size_t n, bool ptx)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++) {
		char *sm = cuda_arch_name(a, &v[i], false);
		char *cp = cuda_arch_name(a, &v[i], true);
		if (ptx && v[i].ptx)
			sb_printf(&sb, " --generate-code=arch=%s,code=[%s,%s]", cp, sm, cp);
		else
			sb_printf(&sb, " --generate-code=arch=%s,code=%s", cp, sm);
	}
	return sb_to_arena(&sb, a);
}

char *cuda_arch_list_compact(struct arena *a, const struct arch *v, size_t n)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++)
		sb_printf(&sb, "%s%d%d%s%s", i ? "," : "", v[i].major, v[i].minor,
		          v[i].suffix == 'a'   ? "a"
		          : v[i].suffix == 'f' ? "f"
		                               : "",
		          v[i].ptx ? "+PTX" : "");
	return sb_to_arena(&sb, a);
}
