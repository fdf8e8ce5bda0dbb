/* os-file.h: files, directories and paths: reading, atomic writing, the output rule, stat,
 * copies, links, listing. POSIX in base/os-file-posix.c. */
#ifndef CUWHEEL_BASE_OS_FILE_H
#define CUWHEEL_BASE_OS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/strbuf.h"

/* Reads a whole file into the arena (NUL-terminated) and fills src; false + diagnostic on error. */
bool os_read_file(struct arena *a, struct diag *d, const char *path, struct source *src);
/* As os_read_file, but a file of more than max bytes is refused, by its size before reading
 * and again while reading (it may grow): false + "N bytes is over the max-byte limit for
 * what" naming path, as the sdist reader and os_read_beneath report their caps. */
bool os_read_file_max(struct arena *a, struct diag *d, const char *path, size_t max,
                      const char *what, struct source *src);
/* Reads all of a stream (stdin) into src; false + diagnostic on error. */
bool os_read_fd(struct arena *a, struct diag *d, int fd, const char *name, struct source *src);
/* The output rule, one for every path cuwheel writes (README, "The output rule"):
 *   OS_OUT_FILE  a file written as a whole (temp beside it, then rename): the path must be
 *                absent or a regular file; a symlink (even to a file), directory, FIFO,
 *                device or socket is refused, never replaced or written through;
 *   OS_OUT_TREE  a directory replaced as a whole (`index --out`): absent or a real directory,
 *                not a symlink;
 *   OS_OUT_DIR   a directory written into (-o of pack/retag, report --out, dist-dir,
 *                build-dir): absent or a directory (a symlink to one is followed).
 * os_tmp_beside applies OS_OUT_FILE to every atomic write, and os_commit_tmp again right
 * before its rename. Returns false + diagnostic naming path and what it is. */
enum os_output {
	OS_OUT_FILE,
	OS_OUT_TREE,
	OS_OUT_DIR,
};
bool os_output_check(struct diag *d, const char *path, enum os_output kind);
/* Returns true when path is inside dir or is dir: dir resolved (false when it does not
 * exist), path resolved as far as it exists (an output dir may not exist yet). */
bool os_path_inside(struct arena *a, const char *path, const char *dir);
/* Writes data to path atomically: a temp file beside it, fsync, rename. False + diagnostic. */
bool os_write_atomic(struct diag *d, const char *path, const void *data, size_t len, mode_t mode);
/* os_write_atomic unless path already holds exactly data (its mtime then stays, so ninja and
 * ccache see no change). A missing or unreadable old file is rewritten. */
bool os_write_if_changed(struct arena *a, struct diag *d, const char *path, const void *data,
                         size_t len, mode_t mode);
/* Copies one regular file to dest, created or truncated (mode 0755 when any x bit of src is
 * set, else 0644). False + diagnostic. */
bool os_copy_file(struct diag *d, const char *src, const char *dest);
/* os_copy_file atomically: into a temp file beside dest, fsynced and renamed over it
 * (os_commit_tmp), so dest is the old file or the whole copy. False + diagnostic. */
bool os_copy_file_atomic(struct arena *a, struct diag *d, const char *src, const char *dest);
/* Creates a directory and its parents (mode 0755); false + diagnostic on error. */
bool os_mkdir_p(struct diag *d, const char *path);
/* Removes a tree (like rm -rf); false + diagnostic on error. Refuses "" and "/". */
bool os_rm_rf(struct diag *d, const char *path);
/* Returns true when path exists (any type, not following a final symlink: false). */
bool os_exists(const char *path);
/* Returns true when path is a directory. */
bool os_is_dir(const char *path);
/* Returns true when path is an executable regular file. */
bool os_is_exec(const char *path);
/* Returns the mtime in nanoseconds, or -1 when path cannot be stat'ed. */
int64_t os_mtime_ns(const char *path);
/* What stat or lstat tells of a path: its kind, size, permission bits, identity and times. */
enum os_kind {
	OS_KIND_FILE,
	OS_KIND_DIR,
	OS_KIND_LINK,
	OS_KIND_FIFO,
	OS_KIND_OTHER, /* a device or socket */
};
struct os_stat {
	enum os_kind kind;
	uint64_t size;
	unsigned mode; /* the permission bits (07777) */
	uint64_t dev, ino;
	int64_t mtime_ns, ctime_ns;
};
/* stat(2), following a final symlink: false (errno set, no diagnostic) when path cannot be
 * stat'ed; the callers decide whether that is an error. */
bool os_stat(const char *path, struct os_stat *out);
/* lstat(2): as os_stat, but a final symlink is described itself (OS_KIND_LINK). */
bool os_lstat(const char *path, struct os_stat *out);
/* unlink(2), quietly: false (errno set) when path could not be removed. */
bool os_unlink(const char *path);
/* rename(2) of a file or directory, quietly: false (errno set). A file written as a whole goes
 * through os_tmp_beside + os_commit_tmp instead (fsync and cleanup). */
bool os_rename(const char *from, const char *to);
/* symlink(2), quietly: creates link pointing at target; false (errno set). */
bool os_symlink(const char *target, const char *link);
/* link(2), quietly: a hard link to from at to; false (errno set: EXDEV across file systems). */
bool os_link(const char *from, const char *to);
/* access(2) with R_OK or W_OK, quietly: false (errno set) when this process may not read (write)
 * path. */
bool os_can_read(const char *path);
bool os_can_write(const char *path);
/* Sets path's access and modification times to now, quietly: false (errno set). */
bool os_touch(const char *path);
/* chmod(2), quietly: false (errno set). */
bool os_chmod(const char *path, unsigned mode);
/* Appends text to path (created 0644), quietly: false when it cannot. For traces tests read. */
bool os_append(const char *path, const char *text);
/* fsyncs a directory, so that renames into it survive a crash; quiet, best effort. */
void os_fsync_dir(const char *dir);
/* Returns an absolute, symlink-resolved path in the arena, or NULL (errno set). */
char *os_realpath(struct arena *a, const char *path);
/* Returns an absolute path (cwd joined, not resolved) in the arena. */
char *os_abspath(struct arena *a, const char *path);
/* Joins two path parts with '/'. */
char *os_join(struct arena *a, const char *dir, const char *name);
/* Lists the entries of dir (without . and ..), sorted; false when it cannot be opened. */
bool os_list_dir(struct arena *a, const char *dir, struct strv *out);

#endif
