/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * py_module.h - shared declarations of the _pageclear extension module.
 *
 * The module is a thin layer over include/pageclear.h: it converts Python
 * arguments, holds buffers while the GIL is released, and maps the
 * library's negative errno results to Python exceptions. It decides no
 * policy (no threshold, selection or pool decision) of its own.
 */
#ifndef PCI_PY_MODULE_H
#define PCI_PY_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pageclear.h>

/* Set a Python exception for ret, a negative errno returned by the library
 * call named what, and return NULL: EINVAL -> ValueError, EOVERFLOW ->
 * OverflowError, anything else -> OSError with that errno. */
PyObject *pci_py_error(int ret, const char *what);

/* Convert a thread count: an int >= 0 (0: one per CPU) that fits an int.
 * Returns 0, or -1 with ValueError/TypeError set. */
int pci_py_threads(PyObject *obj, const char *what, int *out);

/* Convert a non-negative size (a byte count or offset) to size_t.
 * Returns 0, or -1 with ValueError/TypeError set. */
int pci_py_size(PyObject *obj, const char *what, size_t *out);

/* Take obj's buffer for writing (BufferError, naming what, if it is
 * read-only); with contiguous set, refuse a view with gaps (ValueError)
 * and release it again. Returns 0 or -1. */
int pci_py_get_buffer(PyObject *obj, Py_buffer *v, const char *what, int contiguous);

/* Method tables of the module's parts, each ending with a {NULL} entry. */
extern PyMethodDef pci_py_info_methods[];
extern PyMethodDef pci_py_serve_methods[]; /* py_serve.c */
extern PyMethodDef pci_py_clear_methods[];
extern PyMethodDef pci_py_present_methods[]; /* py_present.c */

/* Add the pool types (_Pool, _Block) to the module. Returns 0 or -1. */
int pci_py_pool_add_types(PyObject *module);

/* Methods taking keywords are PyCFunctionWithKeywords; the table stores a
 * PyCFunction. Going through void (*)(void) says the cast is deliberate
 * (gcc's -Wcast-function-type accepts it). */
#define PCI_PY_KW(fn) ((PyCFunction)(void (*)(void))(fn))

#endif /* PCI_PY_MODULE_H */
