/* version.h: PEP 440 versions: parsing every permitted spelling, normalising, ordering, specifiers.
 */
#ifndef CUWHEEL_STANDARDS_VERSION_H
#define CUWHEEL_STANDARDS_VERSION_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

struct pep440 {
	unsigned long epoch;
	unsigned long *release; /* arena-allocated, n_release >= 1 */
	size_t n_release;
	char pre_l[3]; /* "a", "b", "rc" */
	unsigned long pre_n;
	bool has_pre;
	bool has_post;
	unsigned long post_n;
	bool has_dev;
	unsigned long dev_n;
	const char *local; /* normalised local label ("cu130", "pt26.cu124"), NULL if none */
};

/* Parses a version string per PEP 440 (accepting all permitted spellings: case, v prefix,
 * separators, implicit numbers, whitespace). Returns false and an arena message in *err. */
bool pep440_parse(struct arena *a, const char *s, struct pep440 *out, const char **err);
/* Returns the canonical normalised text ("1.0rc1.post2.dev3+cu130"). */
char *pep440_str(struct arena *a, const struct pep440 *v);
/* Returns the normalised public version (no local label). */
char *pep440_public(struct arena *a, const struct pep440 *v);
/* Normalises a local label (case, '-' '_' -> '.'); returns NULL and *err when invalid. */
char *pep440_normalize_local(struct arena *a, const char *label, const char **err);
/* Compares two versions per PEP 440 ordering incl. local labels: <0, 0, >0. */
int pep440_cmp(const struct pep440 *x, const struct pep440 *y);
/* Returns true when version v satisfies a specifier set string such as ">=3.10,<3.14"
 * (operators ~= == != <= >= < > === and ==X.*). Returns false with *err on a malformed
 * specifier (set *err NULL on a plain non-match). An empty set matches everything; v is a
 * concrete version, so pre-releases are not excluded (packaging's prereleases=True). */
bool pep440_satisfies(struct arena *a, const struct pep440 *v, const char *specifiers,
                      const char **err);
/* Returns true when s is a PEP 440 version already in canonical normalised form. */
bool pep440_is_canonical(struct arena *a, const char *s);

/* Dotted numeric versions as toolkits and Pythons write them ("13.0.88", "3.12"): not PEP 440. */
/* Splits "13.0.88" into parts; returns their count, or 0 when v is not only digits and dots or
 * has more than max parts. */
int version_dotted_parts(const char *v, long parts[], int max);
/* Orders dotted versions numerically, part by part, a missing part counting as 0 ("13.0.88" >
 * "12.9.1" > "12.9" == "12.9.0"); the comparison stops at the first part that is not a number.
 * Returns <0, 0 or >0. */
int version_dotted_cmp(const char *x, const char *y);

#endif
