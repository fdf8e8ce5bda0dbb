/* audit.h: checks a built wheel before it ships: zip rules, RECORD, names, ELF dependencies,
 * symbol versions (the manylinux tag it honours, as auditwheel decides), CUDA policy, extension
 * modules and the CUDA architectures in their fatbins. */
#ifndef CUWHEEL_PACKAGER_AUDIT_H
#define CUWHEEL_PACKAGER_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/arena.h"
#include "base/diag.h"
#include "standards/cuda_arch.h"

enum audit_level {
	AUDIT_ERROR,
	AUDIT_WARNING,
	AUDIT_NOTE,
};

/* One problem found; member is the zip member it is about (NULL: the wheel as a whole). */
struct audit_finding {
	enum audit_level level;
	const char *code; /* stable identifier: "record-hash", "cuda-runtime-unprovided", ... */
	const char *member;
	const char *message;
	const char *hint; /* an obvious fix, or NULL */
};

/* An external shared library the wheel needs: not in the wheel, not a manylinux system lib. */
struct audit_lib {
	const char *soname;
	const char *needed_by; /* first member that needs it */
	const char *provider;  /* "driver", "torch", "nvidia-cuda-runtime-cu12"; NULL: nobody */
	bool excluded;         /* provided from outside the wheel; left out of the policy (like
	                          auditwheel repair --exclude) */
};

/* What one ELF or PE member looks like (for PE: needed lists the imported DLLs, delay-loaded
 * ones marked; rpath/runpath stay empty). */
struct audit_elf {
	const char *member;
	const char *arch;
	struct strv needed, rpath, runpath;
	const char *module; /* extension module name ("_C") or NULL when not an extension */
	struct strv cubins; /* "sm_75", "compute_90" */
};

struct audit_opts {
	const char *min_manylinux; /* "manylinux_2_28" (or _<arch>, or a legacy alias); NULL: any */
	const struct arch *archs;  /* architectures the config asked for; NULL: no check */
	size_t n_archs;
	size_t export_limit; /* non-PyInit exports tolerated before a warning; 0: default 16 */
	bool strict;         /* warnings count as errors */
	bool torch_stable;   /* the modules are built for torch's stable ABI: refuse torch C++
	                      * symbols (torch-abi = "stable") */
	/* What the project declares at the wheel's root (a cuwheel build: its packages' names and
	 * its top-level extension modules): anything else there, and any .data member, is an error.
	 * NULL: an arbitrary wheel (.data/scripts and names top_level.txt lacks are warnings). */
	const struct strv *declared;
	/* The extensions that are shared libraries their package loads by path (dotted module
	 * names, "pkg._ops": torch.ops.load_library, ctypes), not imported: no PyInit_ is asked
	 * of them, every other check stays. NULL or empty: none. */
	const struct strv *libraries;
	const char *trace; /* a file the audit appends the wheel's path to, one line
	                    * ($CUWHEEL_AUDIT_TRACE: tests count audits); NULL: none */
};

struct audit_result {
	const char *wheel; /* basename */
	bool ok;           /* no error (and no warning when strict) */
	bool opened;       /* the wheel could be read at all */
	int errors, warnings;
	bool pure;          /* no ELF file inside */
	const char *arch;   /* "x86_64"; NULL for a pure wheel */
	const char *policy; /* "manylinux_2_17" / "linux"; NULL for a pure wheel */
	/* best platform tag, with auditwheel's legacy aliases '.'-joined after the PEP 600 name:
	 * "manylinux_2_17_x86_64.manylinux2014_x86_64", "manylinux_2_34_x86_64", "linux_x86_64" */
	const char *platform_tag;
	const char *why_not_higher; /* what keeps the next more compatible policy away, or NULL */
	struct strv versioned;      /* "libc.so.6: GLIBC_2.14 GLIBC_2.2.5" per library, sorted */
	struct audit_lib *libs;
	size_t n_libs;
	struct audit_elf *elfs;
	size_t n_elfs;
	struct audit_finding *findings;
	size_t n_findings;
};

/* Audits one wheel. Returns true when it passes (no error, min_manylinux met; with strict, no
 * warning either). Everything found is in *out. Failures that stop the audit early (the file
 * cannot be opened) are findings too, and are also reported on d. */
bool audit_wheel(struct arena *a, struct diag *d, const char *wheel_path,
                 const struct audit_opts *opts, struct audit_result *out);
/* Returns one result as a JSON object (the keys audit_results_json writes); json_decref it. */
json_t *audit_result_to_json(const struct audit_result *r);
/* Reads back what audit_result_to_json wrote (strings copied into the arena). Returns false
 * when o is not such an object. */
bool audit_result_from_json(struct arena *a, const json_t *o, struct audit_result *out);
/* The libraries loaded by path that the gate of retag and index tells the audit of
 * (audit_opts.libraries): those named for every wheel (--library), and those of one project
 * (its config's loaded-by = "path"), which only that project's wheels get: a wheel of another
 * project is audited without them. */
struct audit_libraries {
	const struct strv *any; /* every wheel's (dotted modules); NULL: none */
	const char *project;    /* the project whose wheels get own (any spelling: compared
	                         * PEP 503-normalised with the wheel file name's); NULL: none */
	const struct strv *own; /* that project's; NULL: none */
};

/* The check retag and index run before they pass a wheel on: the audit with default options
 * (what `cuwheel audit WHEEL` refuses, they refuse) but for the libraries libs names for this
 * wheel (NULL: none), traced to trace (audit_opts; NULL: none). True when it passes; else
 * false + one diagnostic per error, "refused to <verb>: the audit fails: <member>: <message>
 * (<code>)", followed by the finding's hint when it has one. */
bool audit_gate(struct arena *a, struct diag *d, const char *wheel_path, const char *verb,
                const struct audit_libraries *libs, const char *trace);
/* Renders results as JSON text (an array of objects with stable keys); never NULL. */
char *audit_results_json(struct arena *a, const struct audit_result *r, size_t n);
/* Returns "error", "warning" or "note". */
const char *audit_level_name(enum audit_level l);

#endif
