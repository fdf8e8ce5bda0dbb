/* sdist.h: reading a source distribution (.tar.gz) safely: a tar reader over zlib's gzip
 * stream that refuses what could write outside the tree, and an unpacker built on it. */
#ifndef CUWHEEL_PACKAGER_SDIST_H
#define CUWHEEL_PACKAGER_SDIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"

struct sdist_limits {
	uint64_t max_total;  /* uncompressed bytes of all members together */
	uint64_t max_member; /* bytes of one member */
	size_t max_members;  /* members (files, directories, links) */
	size_t max_path;     /* bytes of one member path */
};

enum sdist_kind { SDIST_FILE, SDIST_DIR, SDIST_SYMLINK };

/* One member, after every check passed. path is normalised ("top/a/b", no "./", no trailing
 * '/'); data holds size bytes for a file, NULL otherwise; link is a symlink's target. */
struct sdist_entry {
	const char *path;
	enum sdist_kind kind;
	const char *link;
	const unsigned char *data;
	uint64_t size;
	bool exec;
};

/* Called for each member in archive order; returns false to stop (after its own diagnostic). */
typedef bool sdist_entry_fn(void *user, const struct sdist_entry *e);

/* Fills l with the limits cuwheel applies (1 GiB in all, 256 MiB a member, 200,000 members,
 * 4,096-byte paths). */
void sdist_default_limits(struct sdist_limits *l);
/* Reads the gzip-compressed tar data[0..len) (ustar, GNU and pax headers), checking every
 * member before fn sees it: one top-level directory, no absolute path, no '..', no control
 * characters, no hard link, device or FIFO, symlinks only to targets inside the tree, the
 * header checksums, and the limits. Returns false after one diagnostic naming `name` and the
 * member. *top gets the top-level directory name. */
bool sdist_read(struct arena *a, struct diag *d, const char *name, const void *data, size_t len,
                const struct sdist_limits *lim, sdist_entry_fn *fn, void *user, const char **top);
/* Unpacks the sdist file `path` into dest_parent/<sha256 of the archive>/<top>: a temporary
 * sibling is filled, every symlink in it is followed one component at a time and must stay
 * inside the top directory, then it is renamed into place. The same archive is unpacked once
 * (its sources keep their mtimes between builds); two archives never share a tree, whatever
 * their top directories are called. *dir gets the absolute tree. Returns false after a
 * diagnostic naming the sdist and the member (never the temporary path); dest_parent then
 * holds no new tree. */
bool sdist_unpack(struct arena *a, struct diag *d, const char *path, const char *dest_parent,
                  const struct sdist_limits *lim, const char **dir);

#endif
