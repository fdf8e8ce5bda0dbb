/* audit_codes.h: every finding code the audit reports, its severity and its one-line meaning:
 * the one source of truth that `cuwheel audit --codes` prints and the README's audit section is
 * checked against (tests/integration/test_audit_codes.py). A new check adds its row here. */
#ifndef CUWHEEL_PACKAGER_AUDIT_CODES_H
#define CUWHEEL_PACKAGER_AUDIT_CODES_H

#include <stddef.h>

/* X(code, severity (AUDIT_ERROR, AUDIT_WARNING or AUDIT_NOTE), meaning). Severity is the level the
 * check reports; "zip" and "zip-read" carry the reader's own level (a warning stays a warning). */
#define AUDIT_CODES(X)                                                                             \
	X("zip-open", AUDIT_ERROR,                                                                 \
	  "the file is missing, not a regular file, or not a zip archive")                         \
	X("zip", AUDIT_ERROR, "the hardened zip reader refuses the archive")                       \
	X("zip-read", AUDIT_ERROR, "a member cannot be read back from the archive")                \
	X("zip-structure", AUDIT_ERROR, "the central directory or end record is inconsistent")     \
	X("zip-name", AUDIT_ERROR, "a member name is unsafe (absolute, .., a backslash, a NUL)")   \
	X("zip-method", AUDIT_ERROR,                                                               \
	  "a member uses a compression method other than stored or deflated")                      \
	X("zip-encrypted", AUDIT_ERROR, "a member is encrypted")                                   \
	X("zip-local-header", AUDIT_ERROR,                                                         \
	  "a local header is missing or disagrees with the central one")                           \
	X("zip-data-descriptor", AUDIT_ERROR,                                                      \
	  "a member uses a data descriptor, which PyPI refuses")                                   \
	X("zip-duplicate", AUDIT_ERROR, "two members have the same name")                          \
	X("zip-comment", AUDIT_ERROR, "the archive has a comment, which PyPI refuses")             \
	X("zip-trailing-data", AUDIT_ERROR, "bytes follow the end of the archive")                 \
	X("file-name", AUDIT_ERROR, "the wheel's file name is not a valid PEP 427 name")           \
	X("dist-info-count", AUDIT_ERROR,                                                          \
	  "the wheel does not hold exactly one .dist-info directory")                              \
	X("dist-info-name", AUDIT_ERROR, "the .dist-info directory does not match the file name")  \
	X("dist-info-installer", AUDIT_WARNING,                                                    \
	  "the .dist-info holds a file only installers write")                                     \
	X("metadata-missing", AUDIT_ERROR, "METADATA is missing")                                  \
	X("metadata-fields", AUDIT_ERROR, "METADATA lacks its Name or Version header")             \
	X("metadata-name", AUDIT_ERROR, "METADATA's Name is not the file name's project")          \
	X("metadata-version", AUDIT_ERROR,                                                         \
	  "METADATA's Version is not PEP 440 or not the file name's")                              \
	X("wheel-missing", AUDIT_ERROR, "WHEEL is missing")                                        \
	X("wheel-version", AUDIT_ERROR, "WHEEL's Wheel-Version is missing or not 1.x")             \
	X("wheel-purelib", AUDIT_ERROR, "WHEEL's Root-Is-Purelib is missing or not true/false")    \
	X("wheel-tags", AUDIT_ERROR, "WHEEL's Tag lines are not the file name's tags")             \
	X("data-dir", AUDIT_ERROR, "a top-level *.data directory is not <name>-<version>.data")    \
	X("data-scripts", AUDIT_WARNING,                                                           \
	  "a .data member installs into the environment's bin/ (scripts, data/bin)")               \
	X("undeclared-data", AUDIT_ERROR,                                                          \
	  "a .data member in a wheel whose project declares none (a cuwheel build)")               \
	X("undeclared-top-level", AUDIT_ERROR,                                                     \
	  "a top-level module, package or file the project does not declare")                      \
	X("top-level-unlisted", AUDIT_WARNING,                                                     \
	  "a top-level module, package or file that top_level.txt does not list")                  \
	X("record-missing", AUDIT_ERROR, "RECORD is missing")                                      \
	X("record-format", AUDIT_ERROR, "a RECORD row cannot be parsed or lacks its hash or size") \
	X("record-duplicate", AUDIT_ERROR, "RECORD lists a file twice")                            \
	X("record-extra", AUDIT_ERROR, "RECORD lists a file that is not in the wheel")             \
	X("record-self", AUDIT_ERROR, "RECORD's own row carries a hash or size")                   \
	X("record-missing-file", AUDIT_ERROR, "a file in the wheel is not listed in RECORD")       \
	X("record-hash", AUDIT_ERROR, "a file's sha256 does not match its RECORD row")             \
	X("record-size", AUDIT_ERROR, "a file's size does not match its RECORD row")               \
	X("elf-unreadable", AUDIT_WARNING, "a member looks like ELF but cannot be read")           \
	X("elf-arch", AUDIT_ERROR, "an ELF file is for a machine no manylinux policy knows")       \
	X("purelib-elf", AUDIT_ERROR, "compiled code in a wheel that says Root-Is-Purelib: true")  \
	X("platform-arch", AUDIT_ERROR, "the platform tag's architecture is not the code's")       \
	X("manylinux", AUDIT_ERROR, "no manylinux policy fits (PyPI refuses linux_* wheels)")      \
	X("min-manylinux", AUDIT_ERROR, "the wheel misses the min-manylinux the config demands")   \
	X("external-lib", AUDIT_ERROR,                                                             \
	  "a needed library is neither in the wheel nor allowed by manylinux")                     \
	X("cuda-runtime-unprovided", AUDIT_ERROR,                                                  \
	  "libcudart is needed but nothing declared provides it")                                  \
	X("cuda-lib-unprovided", AUDIT_ERROR,                                                      \
	  "a CUDA library is needed but no declared package provides it")                          \
	X("torch-unprovided", AUDIT_ERROR,                                                         \
	  "torch's libraries are needed but torch is not a dependency")                            \
	X("cuda-driver-bundled", AUDIT_ERROR, "the wheel ships the driver library (libcuda)")      \
	X("cuda-rpath", AUDIT_ERROR,                                                               \
	  "no $ORIGIN RPATH reaches the nvidia/ package a library comes from")                     \
	X("rpath", AUDIT_ERROR, "an RPATH/RUNPATH entry is not relative to $ORIGIN")               \
	X("pyinit-missing", AUDIT_ERROR, "an extension module exports no PyInit_ function")        \
	X("pyinit-mismatch", AUDIT_ERROR, "PyInit_<name> does not match the module's file name")   \
	X("ext-python-abi", AUDIT_ERROR,                                                           \
	  "the module's suffix does not fit the wheel's Python/ABI tags")                          \
	X("ext-platform", AUDIT_ERROR, "the module's suffix names another platform than its code") \
	X("exports", AUDIT_WARNING, "an extension exports many symbols besides PyInit_")           \
	X("fatbin", AUDIT_WARNING, "the CUDA fatbin cannot be parsed")                             \
	X("arch-missing", AUDIT_ERROR,                                                             \
	  "a requested GPU architecture (or its +PTX) is not in the fatbin")                       \
	X("arch-no-fatbin", AUDIT_ERROR,                                                           \
	  "architectures were requested but no ELF carries device code")                           \
	X("entry-points", AUDIT_ERROR,                                                             \
	  "entry_points.txt is not valid under the entry-points specification")                    \
	X("pe-unreadable", AUDIT_ERROR, "a member looks like a PE image but cannot be read")       \
	X("pe-machine", AUDIT_ERROR, "a PE file is for another machine than the platform tag's")   \
	X("pe-python-dll", AUDIT_ERROR,                                                            \
	  "a .pyd imports another python3X.dll than its tag's (python3.dll for abi3)")             \
	X("pe-dll-missing", AUDIT_ERROR,                                                           \
	  "an imported DLL is not in the wheel, Windows, or a declared dependency")                \
	X("pe-delay-dll-missing", AUDIT_WARNING,                                                   \
	  "a delay-loaded DLL is not in the wheel, Windows, or a declared dependency")             \
	X("pe-dll-directory", AUDIT_NOTE,                                                          \
	  "a DLL comes from a dependency whose directory the package must add to the search path") \
	X("msvc-runtime", AUDIT_NOTE,                                                              \
	  "a .pyd needs the MSVC C++ runtime redistributable (not shipped with CPython)")          \
	X("limited-api", AUDIT_ERROR,                                                              \
	  "an abi3 module imports a CPython symbol outside the limited API of its baseline")       \
	X("abi3-torch-python", AUDIT_ERROR,                                                        \
	  "an abi3 module links libtorch_python, which is built for one Python")                   \
	X("torch-unstable-abi", AUDIT_ERROR,                                                       \
	  "a module built for torch's stable ABI references torch's C++ API")

struct audit_code {
	const char *code;
	int severity; /* enum audit_level */
	const char *meaning;
};

/* The table, in the order above; *n gets its length. */
const struct audit_code *audit_codes(size_t *n);

#endif
