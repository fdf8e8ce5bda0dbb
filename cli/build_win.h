/* build_win.h: the Linux ends of a Windows build (`cuwheel build --stage win-graph|win-pack`). */
#ifndef CUWHEEL_CLI_BUILD_WIN_H
#define CUWHEEL_CLI_BUILD_WIN_H

#include "cli/cli.h"
#include "matrix/matrix.h"

/* --stage win-graph --export DIR: writes the Windows graph of the selected win_amd64 cells to
 * DIR (see graph/buildgraph_win.h). Returns CLI_OK, CLI_FAIL or CLI_NOTHING (no such cell). */
int build_win_graph(struct cli *c, const struct plan *p, const char *dir);
/* --stage win-pack --import DIR: packs DIR/stage/<cell> of each selected win_amd64 cell, audits
 * it (PE rules) and places the win_amd64 wheel in dist/. A cell whose .pyd is missing or that
 * fails the audit fails, the others still finish. Returns CLI_OK, CLI_FAIL or CLI_NOTHING. */
int build_win_pack(struct cli *c, const struct plan *p, const char *dir);

#endif
