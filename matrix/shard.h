/* shard.h: splits a plan's selected cells into N balanced shards for CI systems other than
 * GitHub Actions, keeping each (platform, toolkit) group's cells together where possible. */
#ifndef CUWHEEL_MATRIX_SHARD_H
#define CUWHEEL_MATRIX_SHARD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "matrix/matrix.h"

/* Parses "I/N" (1 <= I <= N). Returns false for anything else. */
bool matrix_shard_parse(const char *text, size_t *index, size_t *count);
/* Keeps selected only the cells of shard index (1-based) of count; the others become
 * unselected by "--shard I/N", and the plan's counts and toolkit use are recomputed. Every
 * selected cell lands in exactly one shard; shard sizes differ by at most a quarter of a shard
 * from an even split (a cut moves to a group boundary only within that). Returns false when
 * index or count is out of range. */
bool matrix_shard(struct arena *a, struct plan *p, size_t index, size_t count);

#endif
