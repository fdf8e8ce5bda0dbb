#include <Python.h>

static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, NULL};

PyMODINIT_FUNC PyInit__C(void)
{
	return PyModule_Create(&def);
}
