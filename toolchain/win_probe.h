/* win_probe.h: the body of the probe script a Windows runner runs before ninja (it finds MSVC,
 * CUDA, Python and torch and writes paths.ninja); graph/buildgraph_win.c puts TOOLKITS and
 * PYTHONS above it. */
#ifndef CUWHEEL_TOOLCHAIN_WIN_PROBE_H
#define CUWHEEL_TOOLCHAIN_WIN_PROBE_H

#include <stddef.h>

/* toolchain/win_probe.py, embedded at build time (cmake/embed.cmake): the Python source from
 * "import json" to the end (NUL-terminated, win_probe_py_len bytes); needs TOOLKITS and PYTHONS
 * defined before main() runs. */
extern const unsigned char win_probe_py[];
extern const size_t win_probe_py_len;

#endif
