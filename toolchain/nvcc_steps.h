/* nvcc_steps.h: one nvcc compile as the steps `nvcc --dryrun` lists (the environment nvcc
 * sets, each tool's argv, the intermediates it removes), read as data, and a schedule that
 * runs them in chains side by side: the host's preprocessing and front end (cudafe++) beside
 * each architecture's preprocessing, front end (cicc) and assembler (ptxas), then the steps
 * that join them (fatbinary, the host compile) in nvcc's order. nvcc runs the two front ends
 * one after the other: cicc reads the module id cudafe++ writes. In a chain, each cicc
 * writes the id itself (the same text when both front ends name the unit alike); the runner
 * compares, and runs such a chain again with cudafe++'s id where they differ, so the object
 * is nvcc's own, byte for byte. */
#ifndef CUWHEEL_TOOLCHAIN_NVCC_STEPS_H
#define CUWHEEL_TOOLCHAIN_NVCC_STEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

/* The chain of a step that runs after every chain has ended. */
#define NVCC_JOIN ((size_t)-1)

struct nvcc_step {
	const char **argv;     /* NULL-terminated; redirections nvcc adds under --threads dropped */
	size_t chain;          /* its chain, or NVCC_JOIN */
	const char *own_id;    /* a front end rewritten to write its own module id: that file */
	const char *shared_id; /* ... and the one nvcc's first front end writes, to compare */
	size_t id_writer;      /* ... that front end's step */
	const char **original; /* ... and its argv as nvcc would run it (reads shared_id) */
};

struct nvcc_steps {
	struct strv env;         /* "NAME=value": what nvcc sets for its tools */
	struct nvcc_step *steps; /* in nvcc's order */
	size_t n, nchains;
	struct strv temps; /* the intermediates nvcc removes after */
	struct strv notes; /* the lines of the dry run that are nvcc's own (warnings) */
};

/* The compile to split: nvcc's argv without -MD, -MF FILE and --threads N (dry: its steps
 * run side by side here, every architecture's among them), the depfile -MF named
 * (NULL: none) and the object (-o). False, with *why, for a command not split here: one
 * without -c and -o, one that stops early or asks for other dependency output, or an
 * argument holding a character nvcc's dry run does not quote unambiguously (" \ $ ` ' or a
 * control character). */
bool nvcc_steps_args(struct arena *a, const char *const *argv, struct strv *dry,
                     const char **depfile, const char **object, const char **why);

/* Reads the text of `nvcc --dryrun` (its stderr) into steps. False, with *why naming the
 * line, for a line not read here: the runner then runs nvcc itself. */
bool nvcc_steps_parse(struct arena *a, const char *text, struct nvcc_steps *s, const char **why);

/* Gives each step its chain (struct nvcc_step) and rewrites each device front end that reads
 * the host front end's module id to write its own. object: the compile's -o (the last step
 * must write it). False, with *why, when the steps are not of that shape. */
bool nvcc_steps_schedule(struct arena *a, struct nvcc_steps *s, const char *object,
                         const char **why);

/* The argv of a preprocessing step (-E ... -o FILE) with -MD -MF DEP added (*dep: FILE.d), so
 * the runner can gather the headers nvcc's own depfile would name; argv itself otherwise
 * (*dep NULL). */
const char **nvcc_steps_with_depfile(struct arena *a, const char **argv, const char **dep);

#endif
