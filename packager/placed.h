/* placed.h: the record a build's finish step keeps of the wheel it placed in dist/ (its path,
 * size, sha256 and file identity), and the check the next build makes before it calls that
 * wheel up to date: a truncated wheel, or another project's wheel of the same name written over
 * it in a shared dist dir, is placed again. */
#ifndef CUWHEEL_PACKAGER_PLACED_H
#define CUWHEEL_PACKAGER_PLACED_H

#include "base/arena.h"
#include "base/diag.h"

enum placed_state {
	PLACED_OK,      /* the file is the wheel the record describes */
	PLACED_MISSING, /* no file at the recorded path */
	PLACED_CHANGED, /* a file whose size or sha256 is not the recorded one */
	PLACED_UNKNOWN, /* a record without a digest (an older cuwheel's) or unreadable */
};

/* Returns the record of the wheel at path ("PATH\nsha256=HEX size=N id=DEV:INO:MTIME:CTIME\n"),
 * or NULL + diagnostic when it cannot be read. */
char *placed_record(struct arena *a, struct diag *d, const char *path);
/* Checks a record against the file it names: *wheel gets the path (NULL when the record has
 * none). The file is hashed only when its identity (device, inode, mtime, ctime) is not the
 * recorded one; any write to it changes its ctime. */
enum placed_state placed_check(struct arena *a, const char *record, const char **wheel);

#endif
