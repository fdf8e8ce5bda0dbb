/* module.c: the Python module torchstable._C, in CPython's limited API (cuwheel compiles it with
 * Py_LIMITED_API at the wheel's baseline). Importing it runs ops.cpp's registrations; the op is
 * then torch.ops.torchstable.saxpy. */
#include <Python.h>

static struct PyModuleDef torchstable_module = {
    PyModuleDef_HEAD_INIT, "_C", "torchstable's ops, registered with torch's dispatcher", -1, NULL,
};

PyMODINIT_FUNC PyInit__C(void)
{
	return PyModule_Create(&torchstable_module);
}
