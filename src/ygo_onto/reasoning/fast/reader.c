/* The native engine's change read back into Python objects (a CPython extension module).

   The same work as native.py's NativeEvaluator._read_out and infer.py's _read_change /
   _read_columns (and the rows of a new part, NativeEvaluator._bundle), done with the C-API: rows,
   columns, the Python copy of the model, the facts groups.  Generic: it knows no predicate, class, property or rule; the caller hands over the
   keys, arities, decoded symbols and read plans.  Any input it does not read as the Python code
   would (an odd row, a data value out of its range, a bad value) gives None, and the caller then
   takes the Python steps (which give the same answer or the same message). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define SYM_BASE ((int64_t)1 << 32)

/* A value of C's output: below SYM_BASE an int, else the symbol values[v - SYM_BASE] (as
   _dec.get(v, v): a code without a symbol stays the int). New reference. */
static PyObject *decode(int64_t v, PyObject *values) {
    if (v >= SYM_BASE) {
        int64_t k = v - SYM_BASE;
        if (k < PyList_GET_SIZE(values)) {
            PyObject *got = PyList_GET_ITEM(values, k);
            Py_INCREF(got);
            return got;
        }
    }
    return PyLong_FromLongLong(v);
}

/* The rows buf[i:i + nr*a] of arity a as a set of tuples (a == 0: {()}). */
static PyObject *cut_rows(const int64_t *buf, int64_t i, int64_t nr, int a, PyObject *values) {
    PyObject *out = PySet_New(NULL);
    if (!out) return NULL;
    if (a == 0) {
        PyObject *t = PyTuple_New(0);
        if (!t || PySet_Add(out, t) < 0) { Py_XDECREF(t); Py_DECREF(out); return NULL; }
        Py_DECREF(t);
        return out;
    }
    for (int64_t r = 0; r < nr; r++) {
        PyObject *t = PyTuple_New(a);
        if (!t) { Py_DECREF(out); return NULL; }
        for (int k = 0; k < a; k++) {
            PyObject *x = decode(buf[i + r * a + k], values);
            if (!x) { Py_DECREF(t); Py_DECREF(out); return NULL; }
            PyTuple_SET_ITEM(t, k, x);
        }
        int rc = PySet_Add(out, t);
        Py_DECREF(t);
        if (rc < 0) { Py_DECREF(out); return NULL; }
    }
    return out;
}

/* The rows as columns: a tuple of a lists, the values at each position. */
static PyObject *cut_columns(const int64_t *buf, int64_t i, int64_t nr, int a, PyObject *values) {
    PyObject *out = PyTuple_New(a);
    if (!out) return NULL;
    for (int k = 0; k < a; k++) {
        PyObject *col = PyList_New(nr);
        if (!col) { Py_DECREF(out); return NULL; }
        PyTuple_SET_ITEM(out, k, col);
        for (int64_t r = 0; r < nr; r++) {
            PyObject *x = decode(buf[i + r * a + k], values);
            if (!x) { Py_DECREF(out); return NULL; }
            PyList_SET_ITEM(col, r, x);
        }
    }
    return out;
}

/* The header of the next block of C's output, checked against the buffer and the keys. */
static int block(const int64_t *buf, int64_t n, int64_t i, PyObject *keys, PyObject *arity,
                 int64_t *p, int64_t *nr, int64_t *na, int *a) {
    if (n - i < 3) goto bad;
    *p = buf[i]; *nr = buf[i + 1]; *na = buf[i + 2];
    if (*p < 0 || *p >= PyList_GET_SIZE(keys) || *p >= PyTuple_GET_SIZE(arity) || *nr < 0 || *na < 0) goto bad;
    long ar = PyLong_AsLong(PyTuple_GET_ITEM(arity, *p));
    if (ar == -1 && PyErr_Occurred()) return -1;
    if (ar < 0 || ar > 64) goto bad;
    *a = (int)ar;
    int64_t room = n - i - 3;
    if (ar && (*nr > room / ar || *na > (room - *nr * ar) / ar)) goto bad;
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "reader: the native engine's output is not well formed");
    return -1;
}

static int buffer_arg(PyObject *addr, int64_t n, const int64_t **buf) {
    *buf = (const int64_t *)PyLong_AsVoidPtr(addr);
    if (PyErr_Occurred()) return -1;
    if (n < 0 || (n && !*buf)) {
        PyErr_SetString(PyExc_ValueError, "reader: no buffer");
        return -1;
    }
    return 0;
}

/* What one mode of _read_out does with a relation's cut rows, besides putting them in removed and
   added: the model copy and the queue of columns, and the counts. */
typedef struct {
    PyObject *model, *pending, *apply;
    long long cap;
    int64_t gone, came;
} Reading;

/* The walk read_rows and read_columns share: C's output block by block, each relation's removed and
   added rows cut (as rows, or as columns) into the dicts removed and added, then step(rd, key, less,
   more, nr, na) with the two cuts (borrowed; None where the block has no such rows). */
typedef int (*ReadStep)(Reading *rd, PyObject *key, PyObject *less, PyObject *more, int64_t nr, int64_t na);

static PyObject *read_blocks(PyObject *addr, long long nn, PyObject *values, PyObject *keys, PyObject *arity,
                             int columns, ReadStep step, Reading *rd) {
    const int64_t *buf;
    int64_t n = nn;
    if (buffer_arg(addr, n, &buf) < 0) return NULL;
    PyObject *removed = PyDict_New(), *added = PyDict_New();
    if (!removed || !added) goto fail;
    int64_t i = 0;
    while (i < n) {
        int64_t p, nr, na;
        int a;
        if (block(buf, n, i, keys, arity, &p, &nr, &na, &a) < 0) goto fail;
        i += 3;
        PyObject *key = PyList_GET_ITEM(keys, p);
        PyObject *cut[2] = {Py_None, Py_None};  /* borrowed from removed, added */
        int64_t count[2] = {nr, na};
        PyObject *into[2] = {removed, added};
        for (int s = 0; s < 2; s++) {
            if (!count[s]) continue;
            PyObject *got = columns ? cut_columns(buf, i, count[s], a, values) : cut_rows(buf, i, count[s], a, values);
            if (!got) goto fail;
            int rc = PyDict_SetItem(into[s], key, got);
            Py_DECREF(got);
            if (rc < 0) goto fail;
            cut[s] = got;
            i += count[s] * a;
        }
        if (step(rd, key, cut[0], cut[1], nr, na) < 0) goto fail;
    }
    return Py_BuildValue("(NNLL)", removed, added, (long long)rd->gone, (long long)rd->came);
fail:
    Py_XDECREF(removed);
    Py_XDECREF(added);
    return NULL;
}

/* apply(key): the queued changes of a relation put into the model copy. */
static int apply_key(Reading *rd, PyObject *key) {
    PyObject *r = PyObject_CallOneArg(rd->apply, key);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* op (PySet_Add or PySet_Discard) of each row of `rows` on the model relation `got`, a set. */
static int set_each(PyObject *got, PyObject *rows, int (*op)(PyObject *, PyObject *)) {
    if (!PySet_Check(got)) {
        PyErr_SetString(PyExc_TypeError, "reader: a model relation is not a set");
        return -1;
    }
    PyObject *it = PyObject_GetIter(rows), *row;
    if (!it) return -1;
    while ((row = PyIter_Next(it))) {
        int rc = op(got, row);
        Py_DECREF(row);
        if (rc < 0) break;
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? -1 : 0;
}

/* read_rows' step: the relation's queued columns applied first, then its rows taken out of and put
   into the model copy (a relation left empty leaves the model; `gone` counts only rows taken out of a
   relation the model has). */
static int rows_step(Reading *rd, PyObject *key, PyObject *less, PyObject *more, int64_t nr, int64_t na) {
    if (PyDict_GET_SIZE(rd->pending)) {
        int in = PyDict_Contains(rd->pending, key);
        if (in < 0) return -1;
        if (in && apply_key(rd, key) < 0) return -1;
    }
    if (less != Py_None) {
        PyObject *got = PyDict_GetItemWithError(rd->model, key);  /* borrowed */
        if (!got && PyErr_Occurred()) return -1;
        if (got) {
            rd->gone += nr;
            if (set_each(got, less, PySet_Discard) < 0) return -1;
            if (PySet_GET_SIZE(got) == 0 && PyDict_DelItem(rd->model, key) < 0) return -1;
        }
    }
    if (more != Py_None) {
        rd->came += na;
        PyObject *got = PyDict_GetItemWithError(rd->model, key);
        if (!got && PyErr_Occurred()) return -1;
        if (!got) {
            PyObject *copy = PySet_New(more);
            if (!copy || PyDict_SetItem(rd->model, key, copy) < 0) { Py_XDECREF(copy); return -1; }
            Py_DECREF(copy);
        } else if (set_each(got, more, PySet_Add) < 0) return -1;
    }
    return 0;
}

/* read_columns' step: (less, more) queued on pending[key], applied once more than cap are queued. */
static int columns_step(Reading *rd, PyObject *key, PyObject *less, PyObject *more, int64_t nr, int64_t na) {
    rd->gone += nr;
    rd->came += na;
    PyObject *pair = PyTuple_Pack(2, less, more);
    if (!pair) return -1;
    PyObject *queue = PyDict_GetItemWithError(rd->pending, key);
    if (!queue) {
        if (PyErr_Occurred()) { Py_DECREF(pair); return -1; }
        queue = PyList_New(1);
        if (!queue) { Py_DECREF(pair); return -1; }
        PyList_SET_ITEM(queue, 0, pair);
        int rc = PyDict_SetItem(rd->pending, key, queue);
        Py_DECREF(queue);
        return rc;
    }
    if (!PyList_Check(queue)) {
        Py_DECREF(pair);
        PyErr_SetString(PyExc_TypeError, "reader: a queue of changes is not a list");
        return -1;
    }
    int rc = PyList_Append(queue, pair);
    Py_DECREF(pair);
    if (rc < 0) return -1;
    return PyList_GET_SIZE(queue) > rd->cap ? apply_key(rd, key) : 0;
}

/* read_rows(addr, n, values, keys, arity, model, pending, apply) -> (removed, added, gone, came):
   _read_out of a small change, applied to the model copy at once (see native.py). */
static PyObject *read_rows(PyObject *self, PyObject *args) {
    PyObject *addr, *values, *keys, *arity;
    long long nn;
    Reading rd = {0};
    if (!PyArg_ParseTuple(args, "OLO!O!O!O!O!O", &addr, &nn, &PyList_Type, &values, &PyList_Type, &keys,
                          &PyTuple_Type, &arity, &PyDict_Type, &rd.model, &PyDict_Type, &rd.pending, &rd.apply))
        return NULL;
    return read_blocks(addr, nn, values, keys, arity, 0, rows_step, &rd);
}

/* read_columns(addr, n, values, keys, arity, pending, apply, cap) -> (removed, added, gone, came):
   _read_out of a large change: each relation's rows as columns, queued on pending. */
static PyObject *read_columns(PyObject *self, PyObject *args) {
    PyObject *addr, *values, *keys, *arity;
    long long nn;
    Reading rd = {0};
    if (!PyArg_ParseTuple(args, "OLO!O!O!O!OL", &addr, &nn, &PyList_Type, &values, &PyList_Type, &keys,
                          &PyTuple_Type, &arity, &PyDict_Type, &rd.pending, &rd.apply, &rd.cap))
        return NULL;
    return read_blocks(addr, nn, values, keys, arity, 1, columns_step, &rd);
}

/* -- the facts of a change (infer._read_change, _read_columns) */

#define K_CLASS 0
#define K_OBJECT 1
#define K_DATA 2

/* A relation's atoms, as a set of tuples (rows) or a tuple of equal lists (columns). */
typedef struct {
    PyObject *it;       /* rows: an iterator over the set */
    PyObject *cols;     /* columns */
    Py_ssize_t r, nrows;
    int a;
} Atoms;

/* 1 and the atom's values in v[0..a) (borrowed, valid until the next call), 0 at the end, -1 an
   error, -2 an atom it does not read (the caller gives None). */
static int next_atom(Atoms *at, PyObject **v, PyObject **hold) {
    if (at->cols) {
        if (at->r >= at->nrows) return 0;
        for (int k = 0; k < at->a; k++)
            v[k] = PyList_GET_ITEM(PyTuple_GET_ITEM(at->cols, k), at->r);
        at->r++;
        return 1;
    }
    Py_CLEAR(*hold);
    PyObject *row = PyIter_Next(at->it);
    if (!row) return PyErr_Occurred() ? -1 : 0;
    *hold = row;
    if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) != at->a) return -2;
    for (int k = 0; k < at->a; k++) v[k] = PyTuple_GET_ITEM(row, k);
    return 1;
}

static int open_atoms(Atoms *at, PyObject *rel, int a, int columns) {
    at->it = at->cols = NULL;
    at->r = at->nrows = 0;
    at->a = a;
    if (columns) {
        if (!PyTuple_CheckExact(rel) || PyTuple_GET_SIZE(rel) != a) return -2;
        for (int k = 0; k < a; k++) {
            PyObject *col = PyTuple_GET_ITEM(rel, k);
            if (!PyList_CheckExact(col)) return -2;
            if (k == 0) at->nrows = PyList_GET_SIZE(col);
            else if (PyList_GET_SIZE(col) != at->nrows) return -2;
        }
        at->cols = rel;
        return 0;
    }
    at->it = PyObject_GetIter(rel);
    return at->it ? 0 : -1;
}

static PyObject *s_true, *s_false, *s_any, *s_int, *s_bool, *s_str;

/* _data of a function term: a new reference, or NULL without an exception where _data raises. */
static PyObject *data_value(PyObject *v) {
    Py_ssize_t n = PyTuple_GET_SIZE(v);
    if (n == 0) return NULL;
    PyObject *f = PyTuple_GET_ITEM(v, 0);
    if (PyUnicode_CheckExact(f)) {
        if (PyUnicode_Compare(f, s_true) == 0) Py_RETURN_TRUE;
        if (PyUnicode_Compare(f, s_false) == 0) Py_RETURN_FALSE;
    }
    if (n > 1 && PyUnicode_CheckExact(PyTuple_GET_ITEM(v, 1))) {
        PyObject *s = PyTuple_GET_ITEM(v, 1);
        Py_INCREF(s);
        return s;
    }
    return NULL;
}

/* The plan entry of a key read: kind, name, declared range. 0, 1 none, -1 error, -2 not read. */
static int entry_of(PyObject *plan, PyObject *key, PyObject **entry, int *kind, PyObject **name, PyObject **rt) {
    *entry = PyDict_GetItemWithError(plan, key);
    if (!*entry) return PyErr_Occurred() ? -1 : 1;
    if (!PyTuple_CheckExact(*entry) || PyTuple_GET_SIZE(*entry) != 5) return -2;
    long k = PyLong_AsLong(PyTuple_GET_ITEM(*entry, 0));
    if (k == -1 && PyErr_Occurred()) return -1;
    if (k != K_CLASS && k != K_OBJECT && k != K_DATA) return -2;
    *kind = (int)k;
    *name = PyTuple_GET_ITEM(*entry, 1);
    *rt = PyTuple_GET_ITEM(*entry, 3);
    if (!PyTuple_CheckExact(key) || PyTuple_GET_SIZE(key) != 2) return -2;
    long a = PyLong_AsLong(PyTuple_GET_ITEM(key, 1));
    if (a == -1 && PyErr_Occurred()) return -1;
    if (a != (*kind == K_CLASS ? 1 : 2)) return -2;
    return 0;
}

/* The fact of an atom (name, s[, value]); NULL with an exception, or NULL without one (*skip set:
   not read, the caller gives None; or 2: an unnamed subject, left out). check: _facts_added's type
   tests. */
static PyObject *fact_of(int kind, PyObject *name, PyObject *rt, PyObject **v, PyObject *unnamed, int check, int *skip) {
    PyObject *s = v[0];
    *skip = 0;
    if (check && !PyUnicode_CheckExact(s)) { *skip = 1; return NULL; }
    PyObject *value = NULL;
    if (kind == K_OBJECT) {
        if (check && !PyUnicode_CheckExact(v[1])) { *skip = 1; return NULL; }
        value = v[1];
        Py_INCREF(value);
    } else if (kind == K_DATA) {
        value = v[1];
        if (PyTuple_CheckExact(value)) {
            value = data_value(value);
            if (!value) { *skip = 1; return NULL; }
        } else {
            Py_INCREF(value);
        }
        if (check && PyUnicode_Compare(rt, s_any) != 0) {
            PyObject *kind_of = PyLong_CheckExact(value) ? s_int : PyBool_Check(value) ? s_bool
                              : PyUnicode_CheckExact(value) ? s_str : NULL;
            if (!kind_of || PyUnicode_Compare(rt, kind_of) != 0) {
                Py_DECREF(value);
                if (PyErr_Occurred()) return NULL;
                *skip = 1;
                return NULL;
            }
        }
    }
    if (PySet_GET_SIZE(unnamed)) {
        int in = PySet_Contains(unnamed, s);
        if (in) {
            Py_XDECREF(value);
            if (in < 0) return NULL;
            *skip = 2;
            return NULL;
        }
    }
    if (!value) return PyTuple_Pack(2, name, s);
    PyObject *fact = PyTuple_Pack(3, name, s, value);
    Py_DECREF(value);
    return fact;
}

/* groups[name] as a set this call made (a copy of the shared one at first): NULL with an exception. */
static PyObject *own_group(PyObject *groups, PyObject *owned, PyObject *name, PyObject *got) {
    PyObject *mine = PyDict_GetItemWithError(owned, name);
    if (mine) return mine;
    if (PyErr_Occurred()) return NULL;
    mine = got ? PySet_New(got) : PySet_New(NULL);
    if (!mine) return NULL;
    if (PyDict_SetItem(owned, name, mine) < 0 || PyDict_SetItem(groups, name, mine) < 0) { Py_DECREF(mine); return NULL; }
    Py_DECREF(mine);
    return mine;  /* borrowed (owned holds it) */
}

/* Whether a relation has two atoms with the same value at `pos` (len(set(map(itemgetter(pos), atoms)))
   != len(atoms)): 1, 0, -1 an error, -2 an atom that is not a pair. */
static int repeats(PyObject *atoms, int pos) {
    PyObject *seen = PySet_New(NULL);
    if (!seen) return -1;
    PyObject *it = PyObject_GetIter(atoms), *row;
    if (!it) { Py_DECREF(seen); return -1; }
    int rc = 0;
    while ((row = PyIter_Next(it))) {
        if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) <= pos) rc = -2;
        else if (PySet_Add(seen, PyTuple_GET_ITEM(row, pos)) < 0) rc = -1;
        Py_DECREF(row);
        if (rc) break;
    }
    Py_DECREF(it);
    if (!rc && PyErr_Occurred()) rc = -1;
    if (!rc) {
        Py_ssize_t n = PyObject_Size(atoms);
        rc = n < 0 ? -1 : PySet_GET_SIZE(seen) != n;
    }
    Py_DECREF(seen);
    return rc;
}

/* infer._may_fail of the added atoms `rel` of `key` (`entry` its plan, a key of `related`): whether a
   check can fail on them and the model (atoms(key): the model's atoms of a key, or None).  1, 0, -1
   an error, -2 what it does not read. */
static int may_fail(PyObject *key, PyObject *rel, PyObject *entry, PyObject *related, PyObject *merging,
                    PyObject *atoms_of, int columns) {
    int disjoint = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 4));
    if (disjoint < 0) return -1;
    if (disjoint) {  /* an added member of one of the other classes of its disjointness axioms */
        PyObject *others = PyDict_GetItemWithError(related, key);
        if (!others) return PyErr_Occurred() ? -1 : -2;
        PyObject *found = PyList_New(0), *it = PyObject_GetIter(others), *other;
        if (!found || !it) { Py_XDECREF(found); Py_XDECREF(it); return -1; }
        int rc = 0;
        while (!rc && (other = PyIter_Next(it))) {
            int same = PyObject_RichCompareBool(other, key, Py_EQ);
            if (same < 0) rc = -1;
            else if (!same) {
                PyObject *atoms = PyObject_CallOneArg(atoms_of, other);
                if (!atoms) rc = -1;
                else {
                    int truth = PyObject_IsTrue(atoms);
                    if (truth < 0 || (truth && PyList_Append(found, atoms) < 0)) rc = -1;
                    Py_DECREF(atoms);
                }
            }
            Py_DECREF(other);
        }
        Py_DECREF(it);
        if (!rc && PyErr_Occurred()) rc = -1;
        if (!rc && PyList_GET_SIZE(found)) {
            Atoms at;
            PyObject *v[2], *hold = NULL;
            rc = open_atoms(&at, rel, 1, columns);
            while (!rc) {
                int got = next_atom(&at, v, &hold);
                if (got <= 0) { rc = got; break; }
                PyObject *row = PyTuple_Pack(1, v[0]);
                if (!row) { rc = -1; break; }
                for (Py_ssize_t j = 0; j < PyList_GET_SIZE(found); j++) {
                    int in = PySequence_Contains(PyList_GET_ITEM(found, j), row);
                    if (in) { rc = in < 0 ? -1 : 1; break; }
                }
                Py_DECREF(row);
            }
            Py_XDECREF(hold);
            Py_XDECREF(at.it);
        }
        Py_DECREF(found);
        return rc;
    }
    /* a functional data property (its subjects) or a merging object property (its positions): a value twice */
    PyObject *positions;
    int functional = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 2));
    if (functional < 0) return -1;
    if (functional) positions = NULL;
    else {
        positions = PyDict_GetItemWithError(merging, key);
        if (!positions) return PyErr_Occurred() ? -1 : 0;
        if (!PyTuple_CheckExact(positions)) return -2;
        if (!PyTuple_GET_SIZE(positions)) return 0;
    }
    PyObject *atoms = PyObject_CallOneArg(atoms_of, key);
    if (!atoms) return -1;
    int rc = atoms == Py_None ? 0 : PyObject_IsTrue(atoms);
    if (rc > 0) {
        rc = 0;
        Py_ssize_t n = positions ? PyTuple_GET_SIZE(positions) : 1;
        for (Py_ssize_t j = 0; j < n && !rc; j++) {
            long pos = positions ? PyLong_AsLong(PyTuple_GET_ITEM(positions, j)) : 0;
            if (pos == -1 && PyErr_Occurred()) rc = -1;
            else if (pos != 0 && pos != 1) rc = -2;
            else rc = repeats(atoms, (int)pos);
        }
    }
    Py_DECREF(atoms);
    return rc;
}

/* read_change(base, plan, removed, added, unnamed, related, merging, atoms, columns) -> groups or None:
   infer._read_change (columns=False: the relations as sets of rows) or _read_columns (True: as
   columns) of a change, with _may_fail's test of the keys of `related` (atoms: ev.atoms). */
static PyObject *read_change(PyObject *self, PyObject *args) {
    PyObject *base, *plan, *removed, *added, *unnamed, *related, *merging, *atoms_of;
    int columns;
    if (!PyArg_ParseTuple(args, "O!O!OO!OO!O!Op", &PyDict_Type, &base, &PyDict_Type, &plan, &removed,
                          &PyDict_Type, &added, &unnamed, &PyDict_Type, &related, &PyDict_Type, &merging,
                          &atoms_of, &columns))
        return NULL;
    if (!PyAnySet_Check(unnamed)) Py_RETURN_NONE;
    if (removed != Py_None && !PyDict_Check(removed) && !(PyTuple_Check(removed) && PyTuple_GET_SIZE(removed) == 0))
        Py_RETURN_NONE;
    PyObject *groups = PyDict_Copy(base), *owned = PyDict_New(), *hold = NULL;
    Atoms at = {0};
    PyObject *v[2];
    if (!groups || !owned) goto fail;
    int rc;
    /* the facts of the removed atoms taken out */
    if (removed != Py_None && PyDict_Check(removed)) {
        Py_ssize_t pos = 0;
        PyObject *key, *rel;
        while (PyDict_Next(removed, &pos, &key, &rel)) {
            PyObject *entry, *name, *rt;
            int kind;
            rc = entry_of(plan, key, &entry, &kind, &name, &rt);
            if (rc == 1) continue;
            if (rc < 0) goto out_rc;
            PyObject *got = PyDict_GetItemWithError(groups, name);
            if (!got) { if (PyErr_Occurred()) goto fail; continue; }
            int truth = PyObject_IsTrue(got);
            if (truth < 0) goto fail;
            if (!truth) continue;
            if (!PySet_CheckExact(got)) goto none;  /* (a frozenset: the steps keep its type) */
            PyObject *mine = own_group(groups, owned, name, got);
            if (!mine) goto fail;
            rc = open_atoms(&at, rel, kind == K_CLASS ? 1 : 2, columns);
            if (rc < 0) goto out_rc;
            while ((rc = next_atom(&at, v, &hold)) == 1) {
                int skip;
                PyObject *fact = fact_of(kind, name, rt, v, unnamed, 0, &skip);
                if (!fact) {
                    if (PyErr_Occurred()) goto fail;
                    if (skip == 2) continue;
                    goto none;
                }
                int d = PySet_Discard(mine, fact);
                Py_DECREF(fact);
                if (d < 0) goto fail;
            }
            Py_CLEAR(hold);
            Py_CLEAR(at.it);
            if (rc < 0) goto out_rc;
            if (PySet_GET_SIZE(mine) == 0) {
                if (PyDict_DelItem(groups, name) < 0 || PyDict_DelItem(owned, name) < 0) goto fail;
            }
        }
    }
    /* the facts of the added atoms put in */
    {
        Py_ssize_t pos = 0;
        PyObject *key, *rel;
        while (PyDict_Next(added, &pos, &key, &rel)) {
            PyObject *entry, *name, *rt;
            int kind;
            rc = entry_of(plan, key, &entry, &kind, &name, &rt);
            if (rc == 1) continue;
            if (rc < 0) goto out_rc;
            int in = PyDict_Contains(related, key);
            if (in < 0) goto fail;
            if (in) {
                rc = may_fail(key, rel, entry, related, merging, atoms_of, columns);
                if (rc == -1) goto fail;
                if (rc) goto none;
            }
            rc = open_atoms(&at, rel, kind == K_CLASS ? 1 : 2, columns);
            if (rc < 0) goto out_rc;
            PyObject *mine = NULL;
            while ((rc = next_atom(&at, v, &hold)) == 1) {
                int skip;
                PyObject *fact = fact_of(kind, name, rt, v, unnamed, 1, &skip);
                if (!fact) {
                    if (PyErr_Occurred()) goto fail;
                    if (skip == 2) continue;
                    goto none;
                }
                if (!mine) {  /* (a group changes only when a fact comes: as _put_in of a non-empty set) */
                    PyObject *got = PyDict_GetItemWithError(groups, name);
                    if (!got && PyErr_Occurred()) { Py_DECREF(fact); goto fail; }
                    if (got) {
                        int truth = PyObject_IsTrue(got);
                        if (truth < 0) { Py_DECREF(fact); goto fail; }
                        if (!truth) got = NULL;
                        else if (!PySet_CheckExact(got)) { Py_DECREF(fact); goto none; }
                    }
                    if (!got) {  /* (a fresh set: not one emptied here; looked up first, as a KeyError costs more) */
                        int in = PyDict_Contains(owned, name);
                        if (in < 0 || (in && PyDict_DelItem(owned, name) < 0)) { Py_DECREF(fact); goto fail; }
                    }
                    mine = own_group(groups, owned, name, got);
                    if (!mine) { Py_DECREF(fact); goto fail; }
                }
                int d = PySet_Add(mine, fact);
                Py_DECREF(fact);
                if (d < 0) goto fail;
            }
            Py_CLEAR(hold);
            Py_CLEAR(at.it);
            if (rc < 0) goto out_rc;
        }
    }
    Py_DECREF(owned);
    return groups;
out_rc:
    if (rc == -2 && !PyErr_Occurred()) goto none;
    goto fail;
none:
    Py_XDECREF(hold);
    Py_XDECREF(at.it);
    Py_XDECREF(groups);
    Py_XDECREF(owned);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(hold);
    Py_XDECREF(at.it);
    Py_XDECREF(groups);
    Py_XDECREF(owned);
    return NULL;
}

/* dict[id(obj)] into *got (borrowed), or *got NULL with i appended to the list *missing (made on the first one):
   part_ids' and bundle_rows' lookup of an object by its id.  -1 with an exception set on error. */
static int lookup_by_id(PyObject *dict, PyObject *obj, Py_ssize_t i, PyObject **missing, PyObject **got) {
    PyObject *key = PyLong_FromVoidPtr(obj);
    if (!key) return -1;
    *got = PyDict_GetItemWithError(dict, key);
    Py_DECREF(key);
    if (*got || PyErr_Occurred()) return *got ? 0 : -1;
    if (!*missing && !(*missing = PyList_New(0))) return -1;
    PyObject *at = PyLong_FromSsize_t(i);
    if (!at) return -1;
    int rc = PyList_Append(*missing, at);
    Py_DECREF(at);
    return rc;
}

/* part_ids(values, last_values, last_ids, known) -> the bundle id of each part of a state, as native int32
   bytes (native.c's ng_state_buf): values[i]'s is last_ids[i] where values[i] is the object last_values[i]
   (the previous run's parts and their ids, as this returned them), else known[id(values[i])]; or a list of
   the indexes of the parts without one (the caller registers them and asks again).  native.py's
   run_bundles, whose Python steps give the same ids. */
static PyObject *part_ids(PyObject *self, PyObject *args) {
    PyObject *values, *last_values, *last_ids, *known;
    if (!PyArg_ParseTuple(args, "O!OOO!", &PyList_Type, &values, &last_values, &last_ids, &PyDict_Type, &known))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(values), n_last = 0;
    if (PyList_CheckExact(last_values) && PyBytes_CheckExact(last_ids)) {
        n_last = PyList_GET_SIZE(last_values);
        if (PyBytes_GET_SIZE(last_ids) / 4 < n_last) n_last = PyBytes_GET_SIZE(last_ids) / 4;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, 4 * n), *missing = NULL;
    if (!out) return NULL;
    char *ids = PyBytes_AS_STRING(out);
    const char *last = n_last ? PyBytes_AS_STRING(last_ids) : NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *part = PyList_GET_ITEM(values, i);
        if (i < n_last && part == PyList_GET_ITEM(last_values, i)) {
            memcpy(ids + 4 * i, last + 4 * i, 4);
            continue;
        }
        PyObject *got;
        if (lookup_by_id(known, part, i, &missing, &got) < 0) goto fail;
        if (!got) continue;
        long b = PyLong_AsLong(got);
        if (b == -1 && PyErr_Occurred()) goto fail;
        if (b < 0 || b > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "reader: a bundle id out of range");
            goto fail;
        }
        int32_t b32 = (int32_t)b;
        memcpy(ids + 4 * i, &b32, 4);
    }
    if (missing) {
        Py_DECREF(out);
        return missing;
    }
    return out;
fail:
    Py_DECREF(out);
    Py_XDECREF(missing);
    return NULL;
}

/* A new code tuple (type of the fact's value, p, row bytes, fact, p as int32 bytes) of a fact read as
   (key, value) of predicate p: native.py's _code, its values encoded by enc (all of them by intern where
   one is not in enc, as there). NULL with an exception, or *odd set (the caller's _Unread). */
static PyObject *new_code(PyObject *fact, PyObject *key, PyObject *value, PyObject *p, PyObject *enc,
                          PyObject *intern, int *odd) {
    Py_ssize_t n = PyTuple_GET_SIZE(value);
    long arity = PyLong_AsLong(PyTuple_GET_ITEM(key, 1));
    if (arity == -1 && PyErr_Occurred()) return NULL;
    long pn = PyLong_AsLong(p);
    if (pn == -1 && PyErr_Occurred()) return NULL;
    if (arity != n || n > 64 || pn < INT32_MIN || pn > INT32_MAX) { *odd = 1; return NULL; }
    PyObject *got[64];
    int missing = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        got[k] = PyDict_GetItemWithError(enc, PyTuple_GET_ITEM(value, k));   /* (borrowed) */
        if (!got[k]) {
            if (PyErr_Occurred()) return NULL;
            missing = 1;
        }
    }
    PyObject *row = PyBytes_FromStringAndSize(NULL, 8 * n);
    if (!row) return NULL;
    int64_t *vals = (int64_t *)PyBytes_AS_STRING(row);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *c = missing ? PyObject_CallOneArg(intern, PyTuple_GET_ITEM(value, k)) : got[k];
        if (!c) { Py_DECREF(row); return NULL; }
        long long v = PyLong_Check(c) ? PyLong_AsLongLong(c) : (PyErr_SetString(PyExc_TypeError, "reader: a code is not an int"), -1);
        if (missing) Py_DECREF(c);
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(row); return NULL; }
        int64_t w = v;
        memcpy(vals + k, &w, 8);
    }
    int32_t p32 = (int32_t)pn;
    PyObject *pb = PyBytes_FromStringAndSize((const char *)&p32, 4);
    if (!pb) { Py_DECREF(row); return NULL; }
    PyObject *tp = (PyObject *)Py_TYPE(PyTuple_GET_ITEM(fact, PyTuple_GET_SIZE(fact) - 1));
    PyObject *code = PyTuple_Pack(5, tp, p, row, fact, pb);
    Py_DECREF(row);
    Py_DECREF(pb);
    return code;
}

/* fill_codes(facts, indexes, by_id, codes, read, preds, enc, intern) -> True, or False for facts the
   caller does not read (its _Unread): native.py's _fill and _code with the same codes.  Each facts[i]
   gets by_id[id(facts[i])]: an equal fact's code from `codes` (with this fact in it), else a new one
   from `read` (the facts without a code in one call: [(key, value)] or None), remembered in `codes`.
   An exception of read or intern is the caller's. */
static PyObject *fill_codes(PyObject *self, PyObject *args) {
    PyObject *facts, *indexes, *by_id, *codes, *read, *preds, *enc, *intern;
    if (!PyArg_ParseTuple(args, "O!O!O!O!OO!O!O", &PyTuple_Type, &facts, &PyList_Type, &indexes, &PyDict_Type,
                          &by_id, &PyDict_Type, &codes, &read, &PyDict_Type, &preds, &PyDict_Type, &enc, &intern))
        return NULL;
    PyObject *fresh = PyList_New(0), *readings = NULL, *out = NULL;
    if (!fresh) return NULL;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(indexes); j++) {
        Py_ssize_t i = PyLong_AsSsize_t(PyList_GET_ITEM(indexes, j));
        if (i == -1 && PyErr_Occurred()) goto done;
        if (i < 0 || i >= PyTuple_GET_SIZE(facts)) { PyErr_SetString(PyExc_IndexError, "reader: no such fact"); goto done; }
        PyObject *f = PyTuple_GET_ITEM(facts, i);
        if (!PyTuple_CheckExact(f)) goto odd;   /* (not a fact of state_facts: the Python steps decide) */
        PyObject *code = PyDict_GetItemWithError(codes, f);
        if (!code) {
            if (PyErr_Occurred()) {
                if (!PyErr_ExceptionMatches(PyExc_TypeError)) goto done;
                PyErr_Clear();   /* (an unhashable fact: not a fact) */
                goto odd;
            }
            if (PyList_Append(fresh, f) < 0) goto done;
            continue;
        }
        if (!PyTuple_CheckExact(code) || PyTuple_GET_SIZE(code) != 5 || !PyTuple_GET_SIZE(f) ||
            PyTuple_GET_ITEM(code, 0) != (PyObject *)Py_TYPE(PyTuple_GET_ITEM(f, PyTuple_GET_SIZE(f) - 1))) {
            if (PyList_Append(fresh, f) < 0) goto done;
            continue;
        }
        PyObject *key = PyLong_FromVoidPtr(f);
        if (!key) goto done;
        int rc;
        if (PyTuple_GET_ITEM(code, 3) != f) {   /* (the code holds its fact: no other object takes its id) */
            PyObject *own = PyTuple_Pack(5, PyTuple_GET_ITEM(code, 0), PyTuple_GET_ITEM(code, 1),
                                         PyTuple_GET_ITEM(code, 2), f, PyTuple_GET_ITEM(code, 4));
            rc = own ? PyDict_SetItem(by_id, key, own) : -1;
            Py_XDECREF(own);
        } else {
            rc = PyDict_SetItem(by_id, key, code);
        }
        Py_DECREF(key);
        if (rc < 0) goto done;
    }
    Py_ssize_t n = PyList_GET_SIZE(fresh);
    if (n) {
        readings = PyObject_CallOneArg(read, fresh);
        if (!readings) goto done;
        if (!PyList_CheckExact(readings) || PyList_GET_SIZE(readings) != n) goto odd;
        for (Py_ssize_t j = 0; j < n; j++) {
            PyObject *fact = PyList_GET_ITEM(fresh, j), *r = PyList_GET_ITEM(readings, j);
            if (!PyTuple_CheckExact(r) || PyTuple_GET_SIZE(r) != 2) goto odd;
            PyObject *key = PyTuple_GET_ITEM(r, 0), *value = PyTuple_GET_ITEM(r, 1);
            if (!PyTuple_CheckExact(key) || PyTuple_GET_SIZE(key) != 2 || !PyTuple_CheckExact(value) ||
                !PyTuple_GET_SIZE(fact))
                goto odd;
            PyObject *p = PyDict_GetItemWithError(preds, key), *code;
            if (!p) {
                if (PyErr_Occurred()) goto done;
                PyObject *tp = (PyObject *)Py_TYPE(PyTuple_GET_ITEM(fact, PyTuple_GET_SIZE(fact) - 1));
                PyObject *none = PyBytes_FromStringAndSize(NULL, 0);
                code = none ? PyTuple_Pack(5, tp, Py_None, r, fact, none) : NULL;
                Py_XDECREF(none);
            } else {
                int bad = 0;
                Py_INCREF(p);   /* (intern runs Python code) */
                code = new_code(fact, key, value, p, enc, intern, &bad);
                Py_DECREF(p);
                if (bad) goto odd;
            }
            if (!code) goto done;
            PyObject *id = PyLong_FromVoidPtr(fact);
            int rc = id && PyDict_SetItem(codes, fact, code) == 0 ? PyDict_SetItem(by_id, id, code) : -1;
            Py_XDECREF(id);
            Py_DECREF(code);
            if (rc < 0) goto done;
        }
    }
    out = Py_True;
    Py_INCREF(out);
    goto done;
odd:
    out = Py_False;
    Py_INCREF(out);
done:
    Py_DECREF(fresh);
    Py_XDECREF(readings);
    return out;
}

/* bundle_rows(facts, types, by_id) -> a new part's rows as native.c's ng_bundle_buf takes them: one bytes
   object, the n facts' predicate numbers (int32, padded to 8 bytes) then their rows' values (int64).  The
   code of each fact is by_id[id(fact)] (native.py's _code: (type of its value, predicate number, row
   bytes, the fact, predicate bytes)); a list of the indexes of the facts without one (the caller codes
   them and asks again); None where a code is not for the rows here (a predicate the program does not
   mention, a value of another type than `types` gives, an odd code): the caller's Python steps then
   decide, as without this module. */
static PyObject *bundle_rows(PyObject *self, PyObject *args) {
    PyObject *facts, *types, *by_id;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyTuple_Type, &facts, &PyTuple_Type, &types, &PyDict_Type, &by_id))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(facts);
    if (PyTuple_GET_SIZE(types) != n) Py_RETURN_NONE;
    PyObject *local[64], **codes = local;   /* (borrowed from by_id, which nothing changes meanwhile) */
    if (n > 64 && !(codes = PyMem_Malloc(sizeof(PyObject *) * n))) return PyErr_NoMemory();
    PyObject *out = NULL, *missing = NULL;
    Py_ssize_t size = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *code;
        if (lookup_by_id(by_id, PyTuple_GET_ITEM(facts, i), i, &missing, &code) < 0) goto done;
        if (!code) continue;
        if (!PyTuple_CheckExact(code) || PyTuple_GET_SIZE(code) != 5 || PyTuple_GET_ITEM(code, 0) != PyTuple_GET_ITEM(types, i))
            goto none;
        PyObject *row = PyTuple_GET_ITEM(code, 2), *pred = PyTuple_GET_ITEM(code, 4);
        if (PyTuple_GET_ITEM(code, 1) == Py_None || !PyBytes_CheckExact(row) || PyBytes_GET_SIZE(row) % 8 ||
            !PyBytes_CheckExact(pred) || PyBytes_GET_SIZE(pred) != 4)
            goto none;
        codes[i] = code;
        size += PyBytes_GET_SIZE(row);
    }
    if (missing) { out = missing; missing = NULL; goto done; }
    Py_ssize_t head = (4 * n + 7) & ~(Py_ssize_t)7;
    out = PyBytes_FromStringAndSize(NULL, head + size);
    if (!out) goto done;
    char *buf = PyBytes_AS_STRING(out), *at = buf + head;
    memset(buf + 4 * n, 0, head - 4 * n);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = PyTuple_GET_ITEM(codes[i], 2);
        memcpy(buf + 4 * i, PyBytes_AS_STRING(PyTuple_GET_ITEM(codes[i], 4)), 4);
        memcpy(at, PyBytes_AS_STRING(row), PyBytes_GET_SIZE(row));
        at += PyBytes_GET_SIZE(row);
    }
    goto done;
none:
    out = Py_None;
    Py_INCREF(out);
done:
    Py_XDECREF(missing);
    if (codes != local) PyMem_Free(codes);
    return out;
}

static PyMethodDef methods[] = {
    {"read_rows", read_rows, METH_VARARGS, "_read_out of a small change (rows, applied to the model copy)."},
    {"read_columns", read_columns, METH_VARARGS, "_read_out of a large change (columns, queued)."},
    {"read_change", read_change, METH_VARARGS, "infer._read_change / _read_columns of a change, or None."},
    {"part_ids", part_ids, METH_VARARGS, "run_bundles: a state's bundle ids as int32 bytes, or the parts without one."},
    {"fill_codes", fill_codes, METH_VARARGS, "_fill and _code of a new part's facts without a code."},
    {"bundle_rows", bundle_rows, METH_VARARGS, "A new part's rows for ng_bundle_buf, the facts without a code, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_reader", NULL, -1, methods};

/* The SHA-256 of this source, given at build time by setup.py (the module's `source`: native.py checks
   it against the source it can see, so a module built from an older source is not used). */
#ifndef YGO_SOURCE
#define YGO_SOURCE ""
#endif

PyMODINIT_FUNC PyInit__reader(void) {
    s_true = PyUnicode_InternFromString("true");
    s_false = PyUnicode_InternFromString("false");
    s_any = PyUnicode_InternFromString("any");
    s_int = PyUnicode_InternFromString("int");
    s_bool = PyUnicode_InternFromString("bool");
    s_str = PyUnicode_InternFromString("str");
    if (!s_true || !s_false || !s_any || !s_int || !s_bool || !s_str) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddStringConstant(m, "source", YGO_SOURCE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
