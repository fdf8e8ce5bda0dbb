/* audit_int.h: what the audit's files share (not part of the public API). */
#ifndef CUWHEEL_PACKAGER_AUDIT_INT_H
#define CUWHEEL_PACKAGER_AUDIT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "packager/audit.h"
#include "packager/elf.h"
#include "packager/pe.h"
#include "standards/tags.h"
#include "standards/wheel_read.h"

/* One member with what the audit learned about it. */
struct audit_member {
	const struct zip_member *zm;
	bool scanned; /* its bytes were looked at */
	bool is_elf;
	struct elf_info elf;
	bool is_pe;
	struct pe_info pe;
};

struct audit_ctx {
	struct arena *a;
	const struct audit_opts *opts;
	struct audit_result *r;
	size_t cap_findings;
	const char *path;     /* the wheel as given */
	struct wheel_name wn; /* parsed file name */
	bool name_ok;
	const char *distinfo; /* "name-1.0.dist-info" found in the archive, or NULL */
	bool purelib;         /* WHEEL's Root-Is-Purelib */
	struct strv requires; /* normalised names of unconditional Requires-Dist entries */
	struct zip_reader zr;
	struct audit_member *members; /* parallel to zr.members */
	size_t n_members;
};

/* Records a finding (message formatted into the arena). */
void audit_add(struct audit_ctx *c, enum audit_level lvl, const char *code, const char *member,
               const char *hint, const char *fmt, ...) CW_PRINTF(6, 7);
/* Whether member, the module file of module mod (pkg/_ops.cpython-...so, pkg/_ops.cp312-...pyd:
 * "_ops"), is one of opts->libraries: a shared library its package loads by path, named by its
 * dotted module ("pkg._ops"), of which no PyInit_ is asked. */
bool audit_is_library(struct audit_ctx *c, const char *member, const char *mod);
/* The hint of a pyinit-missing finding on that member: define, how to define PyInit_<mod>, or
 * else the option and the config key that name it a library. */
const char *audit_pyinit_hint(struct audit_ctx *c, const char *member, const char *mod,
                              const char *define);
/* Checks the archive's bytes as PyPI does: EOCD, comment, trailing data, methods, data
 * descriptors, local/central agreement, names, duplicates. False when it is not a zip at all,
 * with *why saying which: empty, truncated (a zip's start without its end), or not a zip. */
bool audit_zip_raw(struct audit_ctx *c, const char **why);
/* Checks the file name, the .dist-info, METADATA and WHEEL; reads Requires-Dist. */
void audit_names(struct audit_ctx *c);
/* Checks what the wheel installs beyond its packages (audit_declared.c): .data directories,
 * scripts, top-level names not declared (opts->declared) or not in top_level.txt. */
void audit_declared(struct audit_ctx *c);
/* Checks RECORD against every member's bytes. */
void audit_record(struct audit_ctx *c);
/* Looks at member i's bytes once (data must stay alive only during the call): reads it as
 * ELF when it is one. */
void audit_scan_member(struct audit_ctx *c, size_t i, void *data, size_t len);
/* Reads member i as a PE image (data holds its bytes) into c->members[i].pe. */
void audit_scan_pe(struct audit_ctx *c, size_t i, const void *data, size_t len);
/* PE checks (audit_pe.c): machine against the win_* tag, PyInit_ and python3X.dll of each .pyd,
 * where every imported DLL comes from; adds the PE members to r->elfs and their DLLs to r->libs. */
void audit_check_pes(struct audit_ctx *c);
/* Reads every ELF member (filling c->members[i].elf). */
void audit_read_elfs(struct audit_ctx *c);
/* ELF checks: RPATH, CUDA and torch libraries, libcuda bundling, extension modules, archs;
 * fills r->libs and r->elfs. */
void audit_check_elfs(struct audit_ctx *c);
/* Checks a stable-ABI module (.abi3.so; a .pyd in an abi3 wheel), or a library of the wheel
 * (module false) that one loads or that imports CPython's symbols: no torch_python, and every
 * CPython symbol it imports (for a PE image, from a python3*.dll) is in the limited API of the
 * wheel's baseline (its lowest cp3X tag). ELF and PE members alike. */
void audit_check_limited_api(struct audit_ctx *c, const struct audit_member *m, bool module);
/* Checks a module built for torch's stable ABI, or a library of its wheel (module false): no
 * torch_python, no torch/c10/ATen C++ symbol (Itanium- or MSVC-mangled; for a PE image, no C++
 * name from one of torch's DLLs), only the stable C shim's. ELF and PE members alike. */
void audit_check_torch_stable(struct audit_ctx *c, const struct audit_member *m, bool module);
/* True for CPython's DLLs: python3.dll, python312.dll, python313t.dll (any case). */
bool audit_is_python_dll(const char *dll);
/* True for the DLLs of a PyTorch install (torch/lib: c10.dll, torch_cpu.dll, ...). */
bool audit_is_torch_dll(const char *dll);
/* Decides the manylinux policy (auditwheel's rules) and r->platform_tag / why_not_higher. */
void audit_policy(struct audit_ctx *c);
/* Returns true when soname is provided by the wheel itself through one of elf's
 * $ORIGIN-relative RPATH/RUNPATH entries (member is where elf lives). */
bool audit_bundled(struct audit_ctx *c, const char *member, const struct elf_info *elf,
                   const char *soname);
/* Returns true for the ELF dynamic loader's names (ld-linux*, ld64.so.*). */
bool audit_is_loader(const char *soname);

#endif
