/* wheel_read.h: a zip/wheel reader hardened against hostile archives, and safe extraction. */
#ifndef CUWHEEL_STANDARDS_WHEEL_READ_H
#define CUWHEEL_STANDARDS_WHEEL_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"

/* What an archive may declare before it is refused. A zero field takes its default. */
struct extract_limits {
	uint64_t max_members;     /* default 200000 */
	uint64_t max_member_size; /* uncompressed bytes of one member; default 16 GiB */
	uint64_t max_total_size;  /* uncompressed bytes of all members; default 64 GiB */
	uint64_t max_ratio;       /* uncompressed/compressed of a member over 1 MiB; default 500 */
	bool fold_case;           /* also refuse names that differ only in ASCII case */
};

/* General-purpose flag bits reported per member. */
enum zip_member_flag {
	ZIP_MEMBER_ENCRYPTED = 1u << 0,
	ZIP_MEMBER_DATA_DESCRIPTOR = 1u << 3,
	ZIP_MEMBER_UTF8 = 1u << 11,
};

struct zip_member {
	const char *name;   /* as stored (validated: relative, '/'-separated, no '..') */
	uint64_t index;     /* libzip index */
	uint64_t size;      /* declared uncompressed size */
	uint64_t comp_size; /* declared compressed size */
	uint32_t crc;
	uint16_t method; /* 0 stored, 8 deflate */
	uint16_t flags;  /* general-purpose bit flags (enum zip_member_flag) */
	uint32_t mode;   /* Unix mode from the external attributes; 0 when not Unix-made */
	bool is_dir;     /* name ends with '/' */
	int64_t mtime;   /* as libzip decodes the DOS time (local time) */
};

struct zip;
struct zip_reader {
	const char *path;           /* the archive, for messages */
	struct zip *za;             /* libzip handle, read-only */
	struct zip_member *members; /* in central-directory order */
	size_t n_members;
	const struct zip_member **sorted; /* the members by name, for zip_reader_find */
	uint64_t file_size;               /* bytes of the archive file */
	bool has_data_descriptors;        /* some member sets flag bit 3 (reported, not fatal) */
	bool has_comment;                 /* the archive has a comment (reported, not fatal) */
	struct extract_limits limits;     /* defaults filled in */
};

/* Fills l with the default limits. */
void extract_limits_default(struct extract_limits *l);
/* Returns NULL when name is a safe relative member name, else why it is not (static text). */
const char *zip_name_problem(const char *name);
/* Opens path with libzip (consistency checks on) and validates every member: names (traversal,
 * absolute, backslash, control chars), symlinks and other non-regular types in the external
 * attributes, duplicates, encryption, methods other than stored/deflate, declared sizes against
 * the archive and the limits. limits may be NULL. False + diagnostic naming archive and member. */
bool zip_reader_open(struct arena *a, struct diag *d, const char *path,
                     const struct extract_limits *limits, struct zip_reader *r);
/* Returns the member called name, or NULL (a binary search: O(log n)). */
const struct zip_member *zip_reader_find(const struct zip_reader *r, const char *name);
/* Reads a member fully into the arena (NUL-terminated; *len excludes it), refusing more than
 * max_size bytes, checking the CRC and the declared size. False + diagnostic. */
bool zip_reader_read(struct arena *a, struct diag *d, struct zip_reader *r,
                     const struct zip_member *m, uint64_t max_size, char **data, size_t *len);
/* Streams a member through fn (chunks of at most 1 MiB), checking CRC and size as above; fn
 * returns false to stop (then this returns false without a diagnostic of its own). */
bool zip_reader_stream(struct diag *d, struct zip_reader *r, const struct zip_member *m,
                       bool (*fn)(void *user, const void *buf, size_t n), void *user);
/* Checks a wheel's RECORD (the member record_name) against the archive: it parses, every
 * member but RECORD itself and directories is listed with a sha256 hash, every row names a
 * member, and every member decompresses (CRC and size checked) to the listed hash and size.
 * False + diagnostic naming the archive and the member. */
bool wheel_verify_record(struct arena *a, struct diag *d, struct zip_reader *r,
                         const char *record_name);
/* Closes the archive (safe on a zeroed or already closed reader). */
void zip_reader_close(struct zip_reader *r);
/* Extracts every member of zip_path under dest_dir (created if needed), never outside it: the
 * names are validated, no symlink is created or followed (files are created with O_NOFOLLOW
 * and O_EXCL below directories cuwheel made), modes are 0644/0755 from the x bits. On failure
 * whatever was extracted stays in dest_dir; false + diagnostic naming archive and member. */
bool wheel_extract(struct arena *a, struct diag *d, const char *zip_path, const char *dest_dir,
                   const struct extract_limits *limits);

#endif
