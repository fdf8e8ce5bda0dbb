/* win_probe.h: the body of the probe script a Windows runner runs before ninja (it finds MSVC,
 * CUDA, Python and torch and writes paths.ninja); graph/buildgraph_win.c puts TOOLKITS and
 * PYTHONS above it. */
#ifndef CUWHEEL_TOOLCHAIN_WIN_PROBE_H
#define CUWHEEL_TOOLCHAIN_WIN_PROBE_H

/* Python source, one line each (no newline), from "import json" to the end, NULL-terminated;
 * needs TOOLKITS and PYTHONS defined before main() runs. */
extern const char *const win_probe_lines[];

#endif
