/* module_init.h: whether an extension setup.py declares is a Python module (some source
 * defines its PyInit_<name>, as PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) and PyMODINIT_FUNC
 * do) or a shared library its package loads by path (the PyG family's ops, loaded with
 * torch.ops.load_library): asked of the preprocessor with the compile's flags and defines,
 * the answer cached in the build dir. Also the host compiler's command the scans share. */
#ifndef CUWHEEL_INIT_MODULE_INIT_H
#define CUWHEEL_INIT_MODULE_INIT_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/diag.h"
#include "init/init_config.h"

/* The host compiler's command for a preprocessor run over one C/C++ source of x (the
 * extension's include dirs, torch's, Python's and CUDA's, its defines and undefs, the -D, -U,
 * -I and -std of its C++ args), source paths relative to proj ("." : as given). */
void init_scan_argv(struct arena *a, const struct init_inputs *in, const struct cap_ext *x,
                    const char *proj, const char *src, struct strv *av);

/* Sets *defined to whether some source of x, preprocessed as its compile sees it (with
 * -DTORCH_EXTENSION_NAME=<last name> and, for torch's BuildExtension,
 * -DTORCH_API_INCLUDE_EXTENSION_H; a .cu through nvcc -E), holds PyInit_<last name> outside
 * Python's own headers. A source the preprocessor fails on counts as defining it (the
 * module stays a module); *why then names it. False + diagnostic only when the build dir
 * cannot be written. */
bool init_module_defined(struct arena *a, struct diag *d, const struct init_inputs *in,
                         const struct cap_ext *x, bool *defined, const char **why);

#endif
