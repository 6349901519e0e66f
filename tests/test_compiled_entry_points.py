"""Every ``def`` function of the compiled modules survives bad arguments.

The functions are discovered with ``dir()`` on ``refdp._core``, ``refdp._lnmax``,
``refdp._fft`` and ``refdp._erm``; each must have a specification below (a valid call, the
contract its arguments must meet, and its twin as the reference), so a new
entry point without one fails the test. Each valid call is then perturbed one
argument at a time -- arrays longer, shorter, empty, of another dtype or byte
order, strided, of another dimension, a list, read-only, out-of-range indices;
scalars zero, negative, NaN, infinite, beyond 64 or 128 bits, of a wrong type
-- and every call must either raise a Python exception (the standard
ValueError naming the parameter when an array breaks the contract) or return
the twin's result. The calls run in a child process per compiled module, so a
segmentation fault, an abort or a hang (timeout) is reported with the case
that caused it instead of ending the test run.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent(r'''
    import importlib, json, math, re, sys
    import numpy as np
    from refdp.twins import core as tc, erm as te, fft as tf, lnmax as tl

    MODULE = sys.argv[1]
    ONLY = int(sys.argv[2]) if len(sys.argv) > 2 else None
    SHAPE = re.compile(r"^The '\w+' parameter of refdp\._\w+\.\w+ must be .+\. Got .+ instead\.$", re.S)

    def out(**kw):
        print(json.dumps(kw), flush=True)

    def arr_ok(a, dtype, ndim, writeable=False):
        return (isinstance(a, np.ndarray) and a.ndim == ndim and a.dtype == np.dtype(dtype)
                and a.flags.c_contiguous and (a.flags.writeable or not writeable))

    def int_ok(v, low, high=None):
        return (isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                and low <= int(v) and (high is None or int(v) < high))

    def pos_ok(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < math.inf

    def bg_ok(bg):
        return isinstance(bg, np.random.BitGenerator)

    SEED = 7

    def words(bg):
        """The twin's words of a fresh bit generator of the kind and seed of ``bg``."""
        return tc.word_source(type(bg)(SEED))

    INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")

    def gl(m):
        x, w = tl.gl_rule(m)
        return np.array(x), np.array(w)

    def bitrev(n):
        L = n.bit_length() - 1
        return np.array([int(format(i, f"0{L}b")[::-1], 2) if L else 0 for i in range(n)], dtype=np.int64)

    N_FFT = 8
    J = np.arange(N_FFT // 2)
    WR, WI = np.cos(2 * np.pi * J / N_FFT), -np.sin(2 * np.pi * J / N_FFT)

    def fft_ref(a):
        re, im = a[0].copy(), a[1].copy()
        tf.fft_inplace(re, im, a[2], a[3], a[4])
        return re, im

    def written(args, got):
        """An in-place kernel's result: the arrays it wrote."""
        return args[0], args[1]

    def fft_contract(a):
        re, im, wr, wi, perm = a
        if not (arr_ok(re, "f8", 1, True) and arr_ok(im, "f8", 1, True) and arr_ok(wr, "f8", 1)
                and arr_ok(wi, "f8", 1) and arr_ok(perm, "i8", 1)):
            return False
        n = re.shape[0]
        return (n >= 1 and n & (n - 1) == 0 and im.shape[0] == n and perm.shape[0] == n
                and wr.shape[0] >= n // 2 and wi.shape[0] >= n // 2
                and bool(np.all((perm >= 0) & (perm < n))))

    def pair_contract(a):
        if not (all(arr_ok(x, "f8", 1) for x in a[:4]) and arr_ok(a[4], "f8", 1, True)
                and arr_ok(a[5], "f8", 1, True)):
            return False
        return a[0].shape[0] >= 1 and all(x.shape[0] == a[0].shape[0] for x in a)

    def pair_ref(a):
        qr, qi = a[4].copy(), a[5].copy()
        tf.pair_products(a[0], a[1], a[2], a[3], qr, qi)
        return qr, qi

    def written_q(args, got):
        """pair_products' result: the two arrays it wrote."""
        return args[4], args[5]

    def power_contract(a):
        z1r, z1i, z2r, z2i, m, qr, qi = a
        if not (all(arr_ok(x, "f8", 1) for x in (z1r, z1i, z2r, z2i)) and arr_ok(qr, "f8", 1, True)
                and arr_ok(qi, "f8", 1, True)):
            return False
        n = z1r.shape[0]
        return (n >= 1 and z1i.shape[0] == n and qr.shape[0] == n and qi.shape[0] == n
                and (z2r.shape[0], z2i.shape[0]) in ((n, n), (0, 0))
                and isinstance(m, int) and 1 <= m <= 2**30)

    def power_ref(a):
        qr, qi = a[5].copy(), a[6].copy()
        tf.power_products(a[0], a[1], a[2], a[3], a[4], qr, qi)
        return qr, qi

    def written_p(args, got):
        """power_products' result: the two arrays it wrote."""
        return args[5], args[6]

    def lnmax_tables_ok(C, gx, gw, rx, rw):
        return (all(arr_ok(t, "f8", 1) for t in (gx, gw, rx, rw)) and gx.shape[0] >= 1
                and gw.shape[0] == gx.shape[0] and rx.shape[0] >= max(1, (C + 1) // 2)
                and rw.shape[0] == rx.shape[0])

    def law_ref(a):
        counts, gamma, gx, gw = a[0], a[1], a[2], a[3]
        return np.array([tl.lnmax_log_law(r, gamma, (list(gx), list(gw))) for r in counts.tolist()],
                        dtype=float).reshape(counts.shape)

    def chain_ok(orders, sidx, steps, sfrom):
        if not (all(arr_ok(v, "f8", 1) for v in (orders, steps)) and arr_ok(sidx, "i8", 1)
                and arr_ok(sfrom, "i8", 1)):
            return False
        if sfrom.shape[0] != steps.shape[0] or any(
                f != -1 and not (0 <= f < i and steps[i] == 2 * steps[f] and abs(steps[f]) >= 0.125)
                for i, f in enumerate(sfrom.tolist())):
            return False
        if sidx.shape[0] != orders.shape[0] or (sidx.shape[0] and (sidx.min() < -1 or sidx[0] != -1
                                                                  or sidx.max() >= steps.shape[0])):
            return False
        return not any(sidx[i] >= 0 and orders[i - 1] + steps[sidx[i]] != orders[i]
                       for i in range(1, sidx.shape[0]))

    def exact_ref(a):
        counts, gamma, orders, gx, gw = a[:5]
        rows = [tl.lnmax_exact_query(r, gamma, orders.tolist(), (list(gx), list(gw)), tuple(a[7:10]))
                for r in counts.tolist()]
        n, K = counts.shape[0], orders.shape[0]
        return tuple(np.array([r[i] for r in rows], dtype=float).reshape(s)
                     for i, s in ((0, (n,)), (1, (n,)), (2, (n, K)), (3, (n, K)), (4, (n,))))

    def discrete_ok(a):
        counts, tab, mlo, k, consts, margins, orders, sidx, steps, sfrom = a[:10]
        if not (arr_ok(counts, "i8", 2) and all(arr_ok(v, "f8", 1) for v in (tab, consts, margins, orders, steps))
                and arr_ok(sidx, "i8", 1) and arr_ok(sfrom, "i8", 1) and int_ok(k, 0, 2**40)
                and int_ok(mlo, -2**40, 1)):
            return False
        if not chain_ok(orders, sidx, steps, sfrom):
            return False
        n, C = counts.shape
        if consts.shape[0] != 5 or margins.shape[0] != n or tab.shape[0] % 8 or C > 128 or (n and C < 1):
            return False
        if n == 0:
            return True
        spread, tlen = int((counts.max(axis=1) - counts.min(axis=1)).max()), tab.shape[0] // 8
        return (int(counts.min()) >= 0 and tlen >= 1 and mlo <= -(spread + k + 2)
                and mlo + tlen - 1 >= spread + k + 1)

    def discrete_ref(a):
        counts, tab, mlo, k, consts, margins, orders, sidx, steps, sfrom, prune = a
        rows = [tl.discrete_exact_query(r, k, tab, mlo, consts, float(m), orders.tolist(), (sidx, steps, sfrom),
                                        prune=bool(prune))
                for r, m in zip(counts.tolist(), margins.tolist())]
        n, K = counts.shape[0], orders.shape[0]
        return tuple(np.array([r[i] for r in rows], dtype=float).reshape(s)
                     for i, s in ((0, (n,)), (1, (n,)), (2, (n, K)), (3, (n, K))))

    DTAB, DMLO, DCONSTS = tl.discrete_tables(0.5, 8, 25)

    X = np.array([-1.0, 0.0, 0.0, 0.5, 2.0])
    ROWS = np.array([[0.5, -0.25, 0.125], [0.0, 1.0, 0.0], [-0.6, 0.0, 0.8], [0.1, 0.2, 0.3], [1.0, 0.0, 0.0]])
    SIGNS = np.array([1.0, -1.0, 1.0, 1.0, -1.0])
    THETA = np.array([0.5, -2.0, 1.5])

    def pass_contract(a):
        X_, y_, t_, kind, h, block = a
        return (arr_ok(X_, "f8", 2) and arr_ok(y_, "f8", 1) and arr_ok(t_, "f8", 1)
                and y_.shape[0] == X_.shape[0] and t_.shape[0] == X_.shape[1]
                and int_ok(kind, 0, 2) and pos_ok(h) and int_ok(block, 1))
    VOTES = np.array([[0, 1, 2, 1], [2, 2, 0, 1], [1, 1, 1, 0]], dtype=np.int32)
    COUNTS = np.array([[5, 1, 0, 2], [3, 3, 1, 1]], dtype=np.int64)
    GX, GW = gl(12)
    RX, RW = gl(2)

    # name -> (valid args, argument kinds, contract, reference, comparison)
    SPECS = {
        "refdp._core": {
            "_py_projected_walk_log_odds": (
                [X, np.array([0.5, -1.0, 2.0, 0.25, 1.0]), np.array([-2.0, 0.0, 0.7, 3.0]), 0.0, -2.0, 2.0],
                ["f8", "f8", "f8", "float", "float", "float"],
                lambda a: (all(arr_ok(v, "f8", 1) for v in a[:3]) and a[1].shape[0] == a[0].shape[0]
                           and isinstance(a[3], float) and a[4] <= a[3] <= a[5]),
                lambda a: tc.projected_walk_log_odds(*a), "exact"),
            "_py_count_votes": (
                [VOTES, 3], ["votes", "int"],
                lambda a: (isinstance(a[0], np.ndarray) and a[0].ndim == 2 and a[0].flags.c_contiguous
                           and a[0].dtype.isnative and a[0].dtype.name in INTS and int_ok(a[1], 0)),
                lambda a: tc.count_votes(a[0], a[1]), "exact"),
            "_py_laplace_difference_log_tail": (
                [np.array([0.0, 1.0, 7.5]), 0.3], ["f8", "gamma"],
                lambda a: arr_ok(a[0], "f8", 1) and pos_ok(a[1]),
                lambda a: tc.laplace_difference_log_tail(a[0], a[1]), "close"),
            "_py_lemma4_log_q": (
                [COUNTS, 0.1], ["i8_2d", "gamma"],
                lambda a: (arr_ok(a[0], "i8", 2) and (a[0].shape[0] == 0 or a[0].shape[1] >= 1)
                           and pos_ok(a[1])),
                lambda a: tc.lemma4_log_q(a[0], a[1]), "close"),
            "_py_lemma4_log_q_pair": (
                [COUNTS, 0.1], ["i8_2d", "gamma"],
                lambda a: (arr_ok(a[0], "i8", 2) and (a[0].shape[0] == 0 or a[0].shape[1] >= 1)
                           and pos_ok(a[1])),
                lambda a: tc.lemma4_log_q_pair(a[0], a[1]), "close"),
            "_py_accountant_log_moments": (
                [np.array([-3.0, -3.0, -0.5, -np.inf]), np.array([0.5, 2.0, 16.0]), 0.1],
                ["f8", "f8", "gamma"],
                lambda a: arr_ok(a[0], "f8", 1) and arr_ok(a[1], "f8", 1) and pos_ok(a[2]),
                lambda a: tc.accountant_log_moments(a[0], a[1], a[2]), "close"),
            "_py_logsumexp": (
                [np.array([0.5, -1.0, 3.0])], ["f8"],
                lambda a: arr_ok(a[0], "f8", 1),
                lambda a: tc.logsumexp(a[0]), "close"),
            "_py_uniform_below": (
                ["bg", 10, 5], ["bg", "int", "size"],
                lambda a: bg_ok(a[0]) and int_ok(a[1], 1, 2**128) and int_ok(a[2], 0),
                lambda a: [tc.uniform_below(w, a[1]) for w in [words(a[0])] for _ in range(a[2])], "exact"),
            "_py_bernoulli": (
                ["bg", 3, 7, 5, True], ["bg", "int0", "int", "size", "bool"],
                lambda a: (bg_ok(a[0]) and int_ok(a[1], 0, 2**64) and int_ok(a[2], 1, 2**64)
                           and int_ok(a[3], 0)),
                lambda a: [(tc.bernoulli_exp if a[4] else tc.bernoulli)(w, a[1], a[2])
                           for w in [words(a[0])] for _ in range(a[3])], "exact"),
            "_py_geometric_exp": (
                ["bg", 3, 7, 5], ["bg", "int", "int", "size"],
                lambda a: bg_ok(a[0]) and int_ok(a[1], 1, 2**64) and int_ok(a[2], 1, 2**64) and int_ok(a[3], 0),
                lambda a: [tc.geometric_exp(w, a[1], a[2]) for w in [words(a[0])] for _ in range(a[3])], "exact"),
            "_py_discrete_laplace": (
                ["bg", 3, 7, 5], ["bg", "int", "int", "size"],
                lambda a: bg_ok(a[0]) and int_ok(a[1], 1, 2**64) and int_ok(a[2], 1, 2**64) and int_ok(a[3], 0),
                lambda a: [tc.discrete_laplace(w, a[1], a[2]) for w in [words(a[0])] for _ in range(a[3])], "exact"),
            "_py_discrete_gaussian": (
                ["bg", 9, 2, 3, 5], ["bg", "int", "int", "int", "size"],
                lambda a: (bg_ok(a[0]) and int_ok(a[1], 1, 2**128) and int_ok(a[2], 1, 2**64)
                           and int_ok(a[3], 1, 2**64) and int_ok(a[4], 0)
                           and a[3] == math.isqrt(a[1] // a[2]) + 1 and a[2] * a[3] < 2**64
                           and 2 * a[1] * a[2] * a[3] ** 2 < 2**128),
                lambda a: [tc.discrete_gaussian(w, a[1], a[2]) for w in [words(a[0])] for _ in range(a[4])], "exact"),
        },
        "refdp._lnmax": {
            "_py_lnmax_log_law": (
                [COUNTS, 0.3, GX, GW, RX, RW], ["i8_2d", "gamma", "f8", "f8", "f8", "f8"],
                lambda a: (arr_ok(a[0], "i8", 2) and (a[0].shape[0] == 0 or a[0].shape[1] >= 1)
                           and pos_ok(a[1]) and lnmax_tables_ok(a[0].shape[1], *a[2:])),
                law_ref, "close"),
            "_py_lnmax_exact": (
                [COUNTS[:, :3].copy(), 0.3, np.array([1.0, 1.5, 2.0, 4.0]), GX, GW, RX, RW,
                 np.array([-1, 0, 0, 1]), np.array([0.5, 2.0]), np.array([-1, -1])],
                ["i8_2d", "gamma", "f8", "f8", "f8", "f8", "f8", "i8", "f8", "i8"],
                lambda a: (arr_ok(a[0], "i8", 2) and (a[0].shape[0] == 0 or a[0].shape[1] >= 1)
                           and pos_ok(a[1]) and arr_ok(a[2], "f8", 1)
                           and lnmax_tables_ok(a[0].shape[1], *a[3:7]) and chain_ok(a[2], *a[7:10])),
                exact_ref, "close"),
            "_py_discrete_exact": (
                [COUNTS[:, :3].copy(), DTAB, DMLO, 25, DCONSTS, np.array([1e-9, 2e-9]),
                 np.array([0.5, 1.0, 2.0, 3.0, 4.0]), np.array([-1, 0, 1, 1, 1]), np.array([0.5, 1.0]),
                 np.array([-1, 0]), True],
                ["i8_2d", "f8", "int0", "int0", "f8", "f8", "f8", "i8", "f8", "i8", "bool"],
                discrete_ok, discrete_ref, "exact"),
        },
        "refdp._erm": {
            "_py_margin_pass": (
                [ROWS, SIGNS, THETA, 1, 0.5, 2], ["f8_2d", "f8", "f8", "int", "gamma", "size"],
                pass_contract, lambda a: te.margin_pass(*a), "exact"),
            "_py_row_norm_sign": (
                [ROWS, 1.0], ["f8_2d", "gamma"],
                lambda a: arr_ok(a[0], "f8", 2) and pos_ok(a[1]) and 2.0**-480 <= a[1] <= 2.0**500,
                lambda a: te.row_norm_sign(a[0], a[1]), "exact"),
            "_py_lazy_normals": (
                ["bg", 4, 12345, 7, 64], ["bg", "size", "int0", "int0", "int"],
                lambda a: (isinstance(a[0], te.RAW_IS_UINT64) and int_ok(a[1], 0, 2**31)
                           and int_ok(a[2], 0, 2**64) and int_ok(a[3], 0, 65) and int_ok(a[4], 1, 65)),
                lambda a: te.lazy_normals(type(a[0])(SEED), *a[1:]), "exact"),
            "_py_column_abs_sums": (
                [ROWS], ["f8_2d"],
                lambda a: arr_ok(a[0], "f8", 2),
                lambda a: te.column_abs_sums(a[0]), "exact"),
        },
        "refdp._fft": {
            "fft_inplace": (
                [np.arange(N_FFT, dtype=float), np.zeros(N_FFT), WR, WI, bitrev(N_FFT)],
                ["f8w", "f8w", "f8", "f8", "perm"],
                fft_contract, fft_ref, "exact", written),
            "pair_products": (
                [np.arange(N_FFT, dtype=float), np.linspace(-1.0, 1.0, N_FFT), np.cos(np.arange(N_FFT)),
                 np.sin(np.arange(N_FFT)), np.zeros(N_FFT), np.zeros(N_FFT)],
                ["f8", "f8", "f8", "f8", "f8w", "f8w"],
                pair_contract, pair_ref, "exact", written_q),
            "power_products": (
                [np.arange(N_FFT, dtype=float) / N_FFT, np.linspace(-1.0, 1.0, N_FFT), np.cos(np.arange(N_FFT)),
                 np.sin(np.arange(N_FFT)), 3, np.zeros(N_FFT), np.zeros(N_FFT)],
                ["f8", "f8", "f8", "f8", "int", "f8w", "f8w"],
                power_contract, power_ref, "exact", written_p),
        },
    }

    def array_variants(a, kind):
        yield "longer", np.concatenate([a, a[-1:]])
        if a.shape[0] > 1:
            yield "shorter", a[:-1].copy()
        yield "empty", a[:0].copy()
        if a.ndim == 2:
            yield "more columns", np.concatenate([a, a[:, :1]], axis=1)
            yield "fewer columns", a[:, :-1].copy()
            yield "no columns", a[:, :0].copy()
            yield "1-D", a.ravel().copy()
        else:
            yield "2-D", a.reshape(1, -1).copy()
            yield "0-D", np.array(a[0])
        other = {"f": np.float32, "i": np.int32, "u": np.int32}[a.dtype.kind]
        yield "dtype", a.astype(other)
        yield "float64" if a.dtype.kind != "f" else "int64", a.astype(np.float64 if a.dtype.kind != "f" else np.int64)
        yield "byte-swapped", a.astype(a.dtype.newbyteorder())
        yield "strided", np.repeat(a, 2, axis=0)[::2]
        yield "list", a.tolist()
        ro = a.copy()
        ro.flags.writeable = False
        yield "read-only", ro
        if kind == "perm":
            bad = a.copy(); bad[3] = a.shape[0]
            yield "index = n", bad
            bad = a.copy(); bad[0] = -1
            yield "index = -1", bad

    SCALARS = {
        "float": [math.nan, math.inf, -math.inf, 0.0, -1.0, 1e308, 5e-324, None, "x"],
        "gamma": [math.nan, math.inf, 0.0, -1.0, 5e-324, None, "x"],
        "int": [0, -1, 2**63, 2**64, 2**128, 2**200, 1.5, True, None],
        "int0": [-1, 2**64, 2**128, 1.5, None],
        "size": [0, -1, 1.5, None],
        "bool": [0, None],
        "bg": [None, "rng", "mt", 5],  # "mt": an MT19937, valid (the twin reads its words too)
    }

    def materialise(v):
        if isinstance(v, str) and v == "bg":
            return np.random.PCG64(SEED)
        if isinstance(v, str) and v == "rng":
            return np.random.default_rng(SEED)
        if isinstance(v, str) and v == "mt":
            return np.random.MT19937(SEED)
        return v

    def cases(spec):
        kinds = spec[1]
        valid = [v.copy() if isinstance(v, np.ndarray) else v for v in spec[0]]
        yield "valid", None, list(valid)
        for i, kind in enumerate(kinds):
            if isinstance(valid[i], np.ndarray):
                for what, v in array_variants(valid[i], kind):
                    a = list(valid); a[i] = v
                    yield f"arg {i}: {what}", "array", a
            else:
                for v in SCALARS[kind]:
                    a = list(valid); a[i] = v
                    yield f"arg {i} = {v!r}", "scalar", a
        if MODULE == "refdp._core" and kinds[0] == "votes":
            for dt in INTS:
                a = list(valid); a[0] = valid[0].astype(dt)
                yield f"votes {dt}", None, a
            a = list(valid); a[0] = valid[0] + 5
            yield "votes out of range", None, a

    def same(x, y, how):
        if isinstance(x, tuple):
            return len(x) == len(y) and all(same(u, v, how) for u, v in zip(x, y))
        if isinstance(x, list) or isinstance(y, list):
            return [int(v) for v in x] == [int(v) for v in y]
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape:
            return False
        if how == "exact":
            return bool(np.array_equal(x, y, equal_nan=x.dtype.kind == "f"))
        return bool(np.allclose(x, y, rtol=1e-12, atol=1e-12, equal_nan=True))

    mod = importlib.import_module(MODULE)
    found = sorted(n for n in dir(mod) if callable(getattr(mod, n)) and not isinstance(getattr(mod, n), type)
                   and getattr(getattr(mod, n), "__module__", None) == MODULE)
    out(found=found, specified=sorted(SPECS[MODULE]))
    k = -1
    for name in found:
        if name not in SPECS[MODULE]:
            continue
        spec = SPECS[MODULE][name]
        fn, contract, reference, how = getattr(mod, name), spec[2], spec[3], spec[4]
        for what, perturbed, args in cases(spec):
            k += 1
            if ONLY is not None and k != ONLY:
                continue
            fresh = [materialise(v) for v in args]
            try:
                held = bool(contract(fresh))
            except Exception:  # a contract cannot even be evaluated on, e.g., a string
                held = False
            case = f"{name}: {what}"
            out(start=k, case=case)
            before = [v.copy() if isinstance(v, np.ndarray) else v for v in fresh]
            try:
                got = fn(*fresh)
            except Exception as exc:
                msg = str(exc)
                if perturbed == "array" and not held and not (type(exc) is ValueError and SHAPE.match(msg)):
                    out(fail=case, why=f"not the standard ValueError: {type(exc).__name__}: {msg}")
                elif perturbed is None and held:
                    out(fail=case, why=f"valid call raised {type(exc).__name__}: {msg}")
                else:
                    out(ok=case, raised=type(exc).__name__, message=msg[:200])
                continue
            if not held:
                out(fail=case, why="returned although the arguments break the contract")
                continue
            if len(spec) > 5:
                got = spec[5](fresh, got)
            want = reference(before)
            if not same(got, want, how):
                out(fail=case, why=f"result differs from the twin: {got!r} != {want!r}")
            else:
                out(ok=case, returned=True)
    out(done=k + 1)
''')

MODULES = ("refdp._core", "refdp._lnmax", "refdp._fft", "refdp._erm")


def run_child(module, only=None, timeout=240):
    cmd = [sys.executable, "-c", CHILD, module] + ([] if only is None else [str(only)])
    env = dict(os.environ, OMP_NUM_THREADS="1")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as exc:
        return None, (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
    return proc, proc.stdout


@pytest.mark.parametrize("module", MODULES)
def test_every_compiled_entry_point_survives_bad_arguments(module):
    pytest.importorskip(module)
    proc, stdout = run_child(module)
    lines = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    started = [r["case"] for r in lines if "start" in r]
    last = started[-1] if started else "(none)"
    assert proc is not None, f"{module}: hung (timeout) in case {last!r}"
    assert proc.returncode == 0, (f"{module}: the child died with code {proc.returncode} in case "
                                  f"{last!r}\n{proc.stderr[-2000:]}")
    found = lines[0]
    assert found["found"], f"{module}: no def function found"
    missing = sorted(set(found["found"]) - set(found["specified"]))
    assert not missing, f"{module}: entry points without a specification here: {missing}"
    stale = sorted(set(found["specified"]) - set(found["found"]))
    assert not stale, f"{module}: specified but not found: {stale}"
    failures = [f"{r['fail']}: {r['why']}" for r in lines if "fail" in r]
    assert not failures, "\n".join(failures)
    done = [r["done"] for r in lines if "done" in r]
    assert done and done[0] == len(started) > 10 * len(found["found"])
    # every array perturbation that breaks a contract met the standard error
    assert any(r.get("raised") == "ValueError" for r in lines)
