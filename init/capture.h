/* capture.h: what a project's setup.py says, read by running it (init/capture_setup.py, the
 * embedded recorder) in a throwaway copy of the project, inside the bubblewrap sandbox
 * (base/sandbox.h: the copy the only place it writes, no network, every process it starts
 * gone when it ends), with a time limit, its output capped and only the environment switches
 * given. The copy is removed whatever happens. */
#ifndef CUWHEEL_INIT_CAPTURE_H
#define CUWHEEL_INIT_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/sandbox.h"
#include "standards/project.h"

/* One Extension/CUDAExtension/CppExtension as setup.py built it. Paths are project-relative
 * (or absolute when outside the project); torch's, Python's and CUDA's own dirs and torch's
 * libraries are already dropped (listed in dropped). Lines are setup.py's, 0 when unknown. */
struct cap_ext {
	const char *name;
	struct strv sources, include_dirs, library_dirs, runtime_library_dirs;
	struct strv defines; /* NAME or NAME=VALUE */
	struct strv undefs;
	bool args_per_compiler; /* extra_compile_args was a dict */
	struct strv cxx_args;   /* ["cxx"], or the list when not a dict */
	struct strv nvcc_args;  /* ["nvcc"] */
	struct strv link_args;  /* extra_link_args */
	struct strv libraries;  /* less torch's own */
	struct strv extra_objects;
	bool py_limited_api;
	struct strv dropped; /* "include dir /…/torch/include", for the config's comments */
	int line;            /* the Extension(...) call */
	int line_name, line_sources, line_include_dirs, line_library_dirs, line_defines,
	    line_undefs, line_args, line_link_args, line_libraries;
	int col, col_args, col_link_args; /* 1-based columns of those, 0 when unknown */
	struct str_pairs string_pos;      /* a string written in extra_*_args -> "LINE:COL" */
};

/* What one recorded setup() call said, and what the run was. */
struct capture {
	const char *python;     /* "3.12": the interpreter that ran it */
	const char *torch;      /* "2.11.0+cu130", or NULL without torch */
	const char *torch_cuda; /* "13.0", or NULL */
	const char *setup_py;   /* the setup.py shown in messages ("setup.py") */
	int setup_line;         /* the setup() call */
	int setup_col;          /* its 1-based column, 0 when unknown */
	struct cap_ext *exts;
	size_t n_exts;
	const char *build_ext; /* the build_ext class ("…BuildExtension…"), or NULL */
	bool build_ext_torch;  /* a torch BuildExtension (or a subclass) */
	bool no_abi_suffix;    /* BuildExtension.with_options(no_python_abi_suffix=True) */
	int use_ninja;         /* -1: not given */
	/* -1: from setuptools' configuration (setup.cfg, pyproject.toml), not a keyword */
	int line_cmdclass, line_packages, line_package_dir, line_package_data, line_py_modules,
	    line_entry_points, line_scripts;
	struct strv packages; /* dotted */
	struct str_pairs package_dir;
	bool package_data; /* package_data or include_package_data given */
	struct strv py_modules;
	struct entry_group *entry_groups;
	size_t n_entry_groups;
	struct strv scripts;
	/* The metadata keywords (for a project without PKG-INFO or [project]). */
	struct str_pairs meta;       /* name, version, description, url, python_requires, license,
	                              * author, author_email: key -> value */
	struct str_pairs meta_lines; /* key -> "LINE" */
	struct strv install_requires;
	struct extra *extras;
	size_t n_extras;
	struct strv other_keywords; /* setup() keywords cuwheel does not read */
	/* setuptools' own answer: the Distribution after it read setup.cfg, pyproject.toml and
	 * ran its auto-discovery (what the keywords above left out is filled from it, with line
	 * -1), and the files its build_py lays out. */
	bool st_answered;
	const char *st_error;      /* why setuptools could not answer, or NULL */
	struct str_pairs st_files; /* wheel path -> project-relative source, sorted */
	struct strv data_files;    /* "DIR/FILE": pip puts them in .data/data, cuwheel does not */
	/* What says setup.py may build CUDA: the CUDA switches it names ("FORCE_CUDA", from its
	 * string constants) and the project's .cu files (the first few). */
	struct strv cuda_switches;
	struct strv cu_files;
};

struct capture_opts {
	const char *python;        /* the interpreter (with torch, usually) */
	const char *project_dir;   /* the tree to copy; the copy is where setup.py runs */
	const char *tmp_parent;    /* where the throwaway copy is made (a fresh dir under it) */
	const char *const *setenv; /* "K=V" switches for setup.py (--setup-env) */
	const char *const *env;    /* cuwheel's environment: PATH, HOME… are taken from it */
	const char *skip_dir; /* a dir inside project_dir not to copy (the build dir), or NULL */
	const struct sandbox *sandbox; /* a probed bwrap that works; NULL: run it unsandboxed
	                                * (the user opted in) */
	const char *const *readable;   /* NULL-terminated: what setup.py needs to read where the
	                                * sandbox hides it (the interpreter, toolkits, cache) */
	int timeout_s;                 /* 0: 600 */
	size_t max_output;             /* bytes of stdout+stderr before it is stopped; 0: 16 MiB */
	const char *cache_dir; /* where answers are kept by their inputs (capture_run), or NULL */
	const char *cache_key; /* what else the answer depends on (the Python's torch...) */
	const char *key_skip;  /* a dir inside project_dir the cache key leaves out (dist/) */
};

/* Copies the project, runs setup.py there under the recorder and reads what it recorded into
 * out. With o->cache_dir, a record is kept there under the digest of its inputs (the recorder,
 * the Python and o->cache_key, the environment setup.py gets, and every file of the tree by
 * name, kind, size and mtime, less .git and skip_dir), and a later capture of the same inputs
 * reads it instead of running setup.py again. False + a diagnostic naming the cause (setup() never
 * called, a missing module, an exception at setup.py:LINE, a time-out, too much output, a network
 * attempt, no extension, an extension without sources) otherwise. The copy is gone either way. */
bool capture_run(struct arena *a, struct diag *d, const struct capture_opts *o,
                 struct capture *out);
/* Reads the recorder's JSON document (format 1) into out; false + diagnostic at path. */
bool capture_parse(struct arena *a, struct diag *d, const char *path, const char *text, size_t len,
                   struct capture *out);

/* given ("K=V" switches, NULL-terminated, or NULL) plus the switches release builds set
 * (FORCE_CUDA=1) whose names given does not set; NULL-terminated. */
const char *const *capture_switches(struct arena *a, const char *const *given);

/* The recorder, embedded at build time (cmake/embed.cmake). */
extern const unsigned char capture_setup_py[];
extern const size_t capture_setup_py_len;

#endif
