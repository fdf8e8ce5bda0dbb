/* loader.c: loads one DLL the way CPython 3.8+ loads an extension module, for the PE audit's
 * wine test. Built with mingw, run under wine64:
 *   loader.exe MODULE.pyd INIT|- [DLLDIR...]
 * DLLDIR: a directory a declared dependency adds with os.add_dll_directory() (torch does that
 * for torch/lib on import). Python's own dir (python3X.dll) is this program's dir. Prints
 * "loaded", "load-failed <GetLastError>" or "no-init <INIT>"; exits 0 only when the module
 * loads and, with INIT, exports it. */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

static wchar_t *wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
	wchar_t *w = calloc((size_t)n, sizeof *w);
	MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
	return w;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: loader.exe MODULE INIT|- [DLLDIR...]\n");
		return 2;
	}
	SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
	SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
	for (int i = 3; i < argc; i++)
		if (!AddDllDirectory(wide(argv[i]))) {
			fprintf(stderr, "AddDllDirectory(%s) failed: %lu\n", argv[i],
			        GetLastError());
			return 2;
		}
	/* CPython's _PyImport_FindSharedFuncptrWindows: these flags, then GetProcAddress. */
	HMODULE h =
	    LoadLibraryExW(wide(argv[1]), NULL,
	                   LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR);
	if (!h) {
		printf("load-failed %lu\n", GetLastError());
		return 1;
	}
	if (argv[2][0] != '-' && !GetProcAddress(h, argv[2])) {
		printf("no-init %s\n", argv[2]);
		return 1;
	}
	printf("loaded\n");
	return 0;
}
