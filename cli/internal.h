/* internal.h: the build steps build.ninja runs through `cuwheel internal ...`. */
#ifndef CUWHEEL_CLI_INTERNAL_H
#define CUWHEEL_CLI_INTERNAL_H

#include "cli/cli.h"

/* internal stage --out DIR --stamp FILE [--package REL]... [--file SRC=DEST]... */
int internal_stage(struct cli *c, int argc, char **argv);
/* internal finish WHEEL --dist DIR --stamp FILE [--require-arch L] [--min-manylinux T] */
int internal_finish(struct cli *c, int argc, char **argv);
/* internal test-cell FINAL_STAMP --python X|all --stamp FILE */
int internal_test_cell(struct cli *c, int argc, char **argv);

/* internal compat WHEEL --out FILE --context FILE: tries the wheel with each torch-compat torch */
int internal_compat(struct cli *c, int argc, char **argv);

/* internal canon --bwrap PATH --project DIR --build-dir DIR [--depfile FILE] -- CMD...: runs
 * CMD with the project and the build dir at fixed paths (a compile with device line info) */
int internal_canon(struct cli *c, int argc, char **argv);

/* internal nvcc-overlap -- NVCC ARGS...: runs the compile as nvcc's own steps, the host's
 * front end beside the device's (cli/cmd_internal_nvcc.c) */
int internal_nvcc_overlap(struct cli *c, int argc, char **argv);

/* The option tables of the steps above, parsed by them and listed by `cuwheel internal --help`. */
extern const struct cli_option internal_stage_options[];
extern const struct cli_option internal_finish_options[];
extern const struct cli_option internal_test_cell_options[];
extern const struct cli_option internal_compat_options[];
extern const struct cli_option internal_canon_options[];

#endif
