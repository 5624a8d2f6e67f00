/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * py_info.c - what the library knows: its version, the primitive it selects
 * for a length, the table of primitives, the host's facts and thresholds.
 */
#include "py_module.h"

#include <stdint.h>

static PyObject *py_version(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(pc_version());
}

static PyObject *py_selected(PyObject *self, PyObject *arg)
{
    (void)self;
    size_t n;
    if (pci_py_size(arg, "selected: n", &n) < 0)
        return NULL;
    return PyUnicode_FromString(pc_selected(n));
}

static PyObject *py_selected_cold(PyObject *self, PyObject *arg)
{
    (void)self;
    size_t n;
    if (pci_py_size(arg, "selected_cold: n", &n) < 0)
        return NULL;
    return PyUnicode_FromString(pc_selected_cold(n));
}

static PyObject *py_parse_size(PyObject *self, PyObject *arg)
{
    (void)self;
    const char *s = PyUnicode_AsUTF8(arg);
    if (s == NULL)
        return NULL;
    size_t v;
    if (pc_parse_size(s, &v) < 0)
        return PyErr_Format(PyExc_ValueError,
                            "%R is not a size (e.g. 4096, 64K, 256M, 1G)",
                            arg);
    return PyLong_FromSize_t(v);
}

static const char *cache_name(enum pc_cache c)
{
    switch (c) {
    case PC_CACHE_TEMPORAL: return "temporal";
    case PC_CACHE_NONTEMPORAL: return "non-temporal";
    case PC_CACHE_ADAPTIVE: return "adaptive";
    }
    return "unknown";
}

static PyObject *py_primitives(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    size_t n = pc_impl_count();
    PyObject *list = PyList_New(0);
    if (list == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        struct pc_impl_info info;
        int ret = pc_impl_get(i, &info);
        if (ret < 0) {
            Py_DECREF(list);
            return pci_py_error(ret, "pc_impl_get");
        }
        PyObject *d = Py_BuildValue(
            "{s:s,s:s,s:s,s:s,s:s,s:O}", "name", info.name, "arch",
            info.arch, "features", info.features, "description",
            info.description, "cache", cache_name(info.cache), "supported",
            info.supported ? Py_True : Py_False);
        if (d == NULL || PyList_Append(list, d) < 0) {
            Py_XDECREF(d);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(d);
    }
    return list;
}

/* A threshold as Python sees it: SIZE_MAX ("never") becomes None. */
static PyObject *threshold(size_t v)
{
    if (v == SIZE_MAX)
        Py_RETURN_NONE;
    return PyLong_FromSize_t(v);
}

/* Set d[key] = value and drop the reference to value; -1 on error. */
static int put(PyObject *d, const char *key, PyObject *value)
{
    if (value == NULL)
        return -1;
    int ret = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return ret;
}

/* The space-separated words of s as a list of str. */
static PyObject *word_list(const char *s)
{
    PyObject *str = PyUnicode_FromString(s);
    if (str == NULL)
        return NULL;
    PyObject *list = PyUnicode_Split(str, NULL, -1);
    Py_DECREF(str);
    return list;
}

/* s as a str, or None for NULL. */
static PyObject *optional_string(const char *s)
{
    if (s == NULL)
        Py_RETURN_NONE;
    return PyUnicode_FromString(s);
}

static PyObject *py_host(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    struct pc_host h;
    int ret = pc_host_get(&h);
    if (ret < 0)
        return pci_py_error(ret, "pc_host_get");
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    if (put(d, "vendor", PyUnicode_FromString(h.vendor)) < 0 ||
        put(d, "features", word_list(h.features)) < 0 ||
        put(d, "hypervisor", PyBool_FromLong(h.hypervisor)) < 0 ||
        put(d, "family", PyLong_FromUnsignedLong(h.family)) < 0 ||
        put(d, "model", PyLong_FromUnsignedLong(h.model)) < 0 ||
        put(d, "stepping", PyLong_FromUnsignedLong(h.stepping)) < 0 ||
        put(d, "llc_size", PyLong_FromSize_t(h.llc_size)) < 0 ||
        put(d, "zva_block", PyLong_FromSize_t(h.zva_block)) < 0 ||
        put(d, "numa_nodes", PyLong_FromLong(h.numa_nodes)) < 0 ||
        put(d, "vector_max", threshold(h.vector_max)) < 0 ||
        put(d, "nt_threshold", threshold(h.nt_threshold)) < 0 ||
        put(d, "cold_nt_threshold", threshold(h.cold_nt_threshold)) < 0 ||
        put(d, "parallel_nt_threshold",
            threshold(h.parallel_nt_threshold)) < 0 ||
        put(d, "unit", PyLong_FromSize_t(h.unit)) < 0 ||
        put(d, "forced", optional_string(h.forced)) < 0 ||
        put(d, "profile", PyUnicode_FromString(h.profile)) < 0 ||
        put(d, "profile_status", PyUnicode_FromString(h.profile_status)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

PyMethodDef pci_py_info_methods[] = {
    {"version", py_version, METH_NOARGS,
     "version() -> str: the C library's version (pc_version)."},
    {"selected", py_selected, METH_O,
     "selected(n) -> str: the primitive pc_clear uses for n bytes."},
    {"selected_cold", py_selected_cold, METH_O,
     "selected_cold(n) -> str: the primitive pc_clear_cold uses for n "
     "bytes."},
    {"parse_size", py_parse_size, METH_O,
     "parse_size(s) -> int: a size with an optional K/M/G/T suffix "
     "(powers of 1024), as the library and the pageclear command read it."},
    {"primitives", py_primitives, METH_NOARGS,
     "primitives() -> list[dict]: the library's table of primitives."},
    {"host", py_host, METH_NOARGS,
     "host() -> dict: the host facts and thresholds in force."},
    {NULL, NULL, 0, NULL},
};
