/* tags.h: project names (PEP 503/508), wheel file names (PEP 427) and platform tags (PEP 425/600).
 */
#ifndef CUWHEEL_STANDARDS_TAGS_H
#define CUWHEEL_STANDARDS_TAGS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

/* Normalises a project name per PEP 503 ("Foo_bar.Baz" -> "foo-bar-baz"). */
char *name_normalize(struct arena *a, const char *name);
/* Escapes a project name for a wheel file name / dist-info dir (PEP 427 +
 * binary-distribution-format: runs of -_. to '_', lower-cased). */
char *name_wheel_escape(struct arena *a, const char *name);
/* Returns true when name is a valid project name (PEP 508 identifier rules). */
bool name_is_valid(const char *name);

struct wheel_tag {
	const char *python, *abi, *platform;
};

struct wheel_name {
	const char *distribution;            /* escaped */
	const char *distribution_as_written; /* as in the file name (legacy "Foo.Bar") */
	const char *version;                 /* normalised, local included */
	const char *build;                   /* NULL or e.g. "1" / "1abc" */
	struct wheel_tag *tags;              /* expanded */
	size_t n_tags;
	const char *python, *abi, *platform; /* compressed, '.'-joined and sorted */
};

/* Builds the wheel file name "{dist}-{ver}(-{build})?-{py}-{abi}-{plat}.whl" from compressed
 * tag sets (each component may be '.'-joined; they are sorted and de-duplicated). The name is
 * escaped and the version normalised; returns NULL when the name, version, build tag or a tag
 * is invalid. */
char *wheel_filename(struct arena *a, const char *name, const char *version, const char *build,
                     const char *python, const char *abi, const char *platform);
/* Parses a wheel file name (basename), validating each part (version is PEP 440 and must
 * already be normalised; build tag starts with a digit). Returns false with *err. */
bool wheel_filename_parse(struct arena *a, const char *filename, struct wheel_name *out,
                          const char **err);
/* Expands compressed tag sets into every (python, abi, platform) combination, in sorted order;
 * returns their number (0 when a component is empty or malformed). */
size_t wheel_tags_expand(struct arena *a, const char *python, const char *abi, const char *platform,
                         struct wheel_tag **out);
/* Returns the manylinux tag for glibc major.minor and arch ("manylinux_2_28_x86_64"). */
char *tag_manylinux(struct arena *a, int glibc_major, int glibc_minor, const char *arch);
/* Parses a manylinux tag, legacy aliases included (2010->2_12, 2014->2_17, 1->2_5); *arch is
 * an arena copy. Returns false when tag is not a manylinux tag. */
bool tag_manylinux_parse(struct arena *a, const char *tag, int *glibc_major, int *glibc_minor,
                         const char **arch);
/* A Python tag (PEP 425) read: "cp312" -> kind 'c', 3, 12; "py3" -> 'p', 3, minor -1;
 * "py310" -> 'p', 3, 10. */
struct python_tag {
	char kind; /* 'c' (cp) or 'p' (py) */
	int major, minor;
};
/* Parses a Python tag into out; false when it is not cpX[Y], pyX[Y] (Y of 1-2 digits). */
bool tag_python_parse(const char *tag, struct python_tag *out);
/* Parses a CPython ABI tag: "cp312" -> 3, 12, *flags ""; "cp313t" -> *flags "t" (pointing into
 * abi). False when abi is not cp<digit><1-3 digits>... ("abi3", "none"). */
bool tag_abi_parse(const char *abi, int *major, int *minor, const char **flags);
/* The operating system a platform tag names. */
enum tag_os {
	TAG_OS_ANY,       /* "any" */
	TAG_OS_WINDOWS,   /* win32, win_<arch> */
	TAG_OS_MACOS,     /* macosx_<major>_<minor>_<arch> */
	TAG_OS_LINUX,     /* linux_<arch> */
	TAG_OS_MANYLINUX, /* manylinux_<glibc>_<arch>, legacy aliases (tag_manylinux_parse) */
	TAG_OS_MUSLLINUX, /* musllinux_<major>_<minor>_<arch> */
	TAG_OS_OTHER,
};
/* Returns the OS of platform tag plat and, when arch is not NULL, its machine in *arch
 * ("amd64" for win_amd64, "win32" for win32, "x86_64" for manylinux_2_28_x86_64; NULL for
 * any, other and a malformed macOS or musllinux tag). */
enum tag_os tag_platform_os(struct arena *a, const char *plat, const char **arch);
/* Parses an ELF extension module's SOABI suffix (PEP 3149): "cpython-312-x86_64-linux-gnu" ->
 * *abi "cp312" (arena), *triplet "x86_64-linux-gnu" (NULL without one). False when it does not
 * start with "cpython-". */
bool tag_soabi_parse(struct arena *a, const char *soabi, const char **abi, const char **triplet);
/* Splits a .pyd module's suffix tag "cp312-win_amd64" into *abi "cp312" (arena) and *platform
 * "win_amd64" (NULL without a '-'). */
void tag_pyd_suffix_split(struct arena *a, const char *suffix, const char **abi,
                          const char **platform);
/* Returns the musllinux tag for musl major.minor and arch ("musllinux_1_2_x86_64"). */
char *tag_musllinux(struct arena *a, int musl_major, int musl_minor, const char *arch);
/* Python tag for a CPython version: "cp312". */
char *tag_python(struct arena *a, int major, int minor);
/* ABI tag for a CPython version: "cp312", "cp313t" when free-threaded. */
char *tag_abi(struct arena *a, int major, int minor, bool freethreaded);
/* Turns sysconfig's platform ("linux-x86_64", "win-amd64", "macosx-11.0-arm64") into a wheel
 * platform tag ("linux_x86_64", "win_amd64", "macosx_11_0_arm64"). */
char *tag_platform_from_sysconfig(struct arena *a, const char *plat);

#endif
