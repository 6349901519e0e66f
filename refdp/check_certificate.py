"""Re-check a privacy certificate written by refdp, trusting nothing but the Python standard library.

``refdp check-certificate FILE`` (or :func:`check_certificate`) reads a JSON
certificate written by ``check_mechanism(..., certificate=path)`` or
``refdp verify --certificate DIR`` and re-derives its verdict from the
certificate alone, in exact rational arithmetic (:class:`fractions.Fraction`).
It shares no code with :mod:`refdp.verify`: a reviewer can read this one file
and trust a verdict without trusting the checker that produced it.

What is re-checked
------------------
A certificate lists, for every dataset examined, an enclosure ``[lo, hi]`` of
the probability of every output it can produce (exact rational end points),
the pairs of neighbouring datasets, and the claim: ``epsilon`` and ``delta``
as exact rationals. With ``E_lo <= e^epsilon <= E_hi`` (bounded below by a
partial sum of the exponential series and above by the partial sum plus a
geometric bound on the rest, both exact):

* **distribution** -- for each dataset, ``sum lo <= 1 <= sum hi`` (the
  listed outputs can carry the whole mass; a certificate whose ``sum hi < 1``
  can only certify a delta claim, the missing mass being charged to delta);
* **pure DP holds** (``delta = 0``) -- for every pair, both directions and
  every output ``o``: ``hi_d(o) <= E_lo * lo_e(o)`` (an output missing from
  a dataset's list has probability exactly 0);
* **(epsilon, delta)-DP holds** -- for every pair and both directions:
  ``sum_o max(0, hi_d(o) - E_lo * lo_e(o)) + max(0, 1 - sum_o lo_d(o)) <= delta``;
* **for every epsilon** (``kind = "for-all-epsilon"``) -- every law is a
  rational function of ``t = e^{epsilon/m}`` given by exact coefficients; the
  checker verifies that each denominator is positive and each numerator
  nonnegative on ``t > 1``, that each law sums to 1 identically, and that
  ``t^m P_d'(o) - P_d(o) >= 0`` on ``t > 1`` for every pair, direction and
  output -- each a sign condition decided exactly by the odd-multiplicity part
  of the polynomial (Yun's square-free decomposition) and Sturm's theorem;
* **fails** -- the certificate's witness pair (and output, for pure DP)
  satisfies ``lo_d(o) > E_hi * hi_e(o)``, or for delta > 0
  ``sum_o max(0, lo_d(o) - E_hi * hi_e(o)) - max(0, sum_o hi_d(o) - 1) > delta``.

The enclosures themselves are the producer's claim about the mechanism (for
``method = "certified"`` they come from outward-rounded interval arithmetic
on the mechanism's law; for ``"estimated"`` from a two-precision estimate,
which this checker cannot upgrade to a proof and says so).
"""
from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction

__all__ = ["check_certificate", "exp_bounds", "nonnegative_above_one", "main", "FORMAT"]

FORMAT = "refdp-certificate/1"
_BITS = 600  # end points of e^epsilon are rounded outward to multiples of 2**-_BITS


def _q(text) -> Fraction:
    return Fraction(text)


def exp_bounds(x: Fraction) -> tuple:
    """Exact rationals ``(lo, hi)`` with ``lo <= e^x <= hi`` for rational ``x >= 0``.

    ``lo`` is a partial sum of ``sum x^k / k!``; ``hi`` adds ``t (1 / (1 - x/(K+2)))``
    for the first omitted term ``t`` (the remaining terms shrink at least
    geometrically by ``x/(K+2) < 1``). Both are rounded outward to the grid
    ``2**-600``.
    """
    if x < 0:
        raise ValueError(f"exp_bounds needs x >= 0; got {x}")
    total, term, k = Fraction(0), Fraction(1), 0
    scale = Fraction(1, 2 ** _BITS)
    while True:
        total += term
        k += 1
        term = term * x / k
        if k + 1 > 2 * x and term < scale:
            break
    ratio = x / (k + 1)
    rest = term / (1 - ratio)
    lo = Fraction((total.numerator << _BITS) // total.denominator, 2 ** _BITS)
    hi_exact = total + rest
    hi = Fraction(-((-(hi_exact.numerator << _BITS)) // hi_exact.denominator), 2 ** _BITS)
    return lo, hi


# ---------------------------------------------------------------------------
# Polynomials with rational coefficients (dense, ascending powers): enough to
# decide the sign of a polynomial on t > 1 exactly (Yun's square-free
# decomposition and Sturm's theorem), for certificates of "for every epsilon"
# ---------------------------------------------------------------------------

def _trim(p):
    p = list(p)
    while p and p[-1] == 0:
        p.pop()
    return p


def _add(p, q):
    n = max(len(p), len(q))
    return _trim([(p[i] if i < len(p) else 0) + (q[i] if i < len(q) else 0) for i in range(n)])


def _neg(p):
    return [-c for c in p]


def _mul(p, q):
    if not p or not q:
        return []
    out = [Fraction(0)] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        if a:
            for j, b in enumerate(q):
                out[i + j] += a * b
    return _trim(out)


def _divmod(p, q):
    p, q = _trim(p), _trim(q)
    quo = [Fraction(0)] * max(len(p) - len(q) + 1, 0)
    rem = list(p)
    while len(rem) >= len(q) and rem:
        c = rem[-1] / q[-1]
        k = len(rem) - len(q)
        quo[k] = c
        for i, b in enumerate(q):
            rem[k + i] -= c * b
        rem = _trim(rem[:-1]) if rem[-1] == 0 else _trim(rem)
    return _trim(quo), rem


def _deriv(p):
    return _trim([i * c for i, c in enumerate(p)][1:])


def _gcd(p, q):
    p, q = _trim(p), _trim(q)
    while q:
        p, q = q, _divmod(p, q)[1]
    return [c / p[-1] for c in p] if p else []


def _at(p, x):
    v = Fraction(0)
    for c in reversed(p):
        v = v * x + c
    return v


def _odd_part(p):
    """Product of the square-free factors of odd multiplicity of ``p`` (Yun's algorithm)."""
    a = _gcd(p, _deriv(p))
    b, c = _divmod(p, a)[0], _divmod(_deriv(p), a)[0]
    d = _add(c, _neg(_deriv(b)))
    odd, i = [Fraction(1)], 1
    while len(b) > 1:
        a = _gcd(b, d)
        if i % 2 == 1:
            odd = _mul(odd, a)
        b = _divmod(b, a)[0]
        c = _divmod(d, a)[0]
        d = _add(c, _neg(_deriv(b)))
        i += 1
    return odd


def _roots_above_one(p) -> int:
    """Number of distinct roots of the square-free ``p`` in ``(1, inf)`` (Sturm's theorem)."""
    one = [Fraction(-1), Fraction(1)]
    while len(p) > 1 and _at(p, 1) == 0:
        p = _divmod(p, one)[0]
    if len(p) <= 1:
        return 0
    seq = [p, _deriv(p)]
    while len(seq[-1]) > 1:
        r = _divmod(seq[-2], seq[-1])[1]
        if not r:
            break
        seq.append(_neg(r))

    def changes(values):
        signs = [v > 0 for v in values if v != 0]
        return sum(1 for x, y in zip(signs, signs[1:]) if x != y)

    return changes([_at(s, Fraction(1)) for s in seq]) - changes([s[-1] for s in seq])


def nonnegative_above_one(p) -> bool:
    """Exactly: ``p(t) >= 0`` for every real ``t > 1``."""
    p = _trim(p)
    if not p:
        return True
    if _roots_above_one(_odd_part(p)):
        return False                      # p changes sign somewhere in (1, inf)
    t = Fraction(2)
    while _at(p, t) == 0:                 # at most deg(p) roots: a non-root is found
        t += 1
    return _at(p, t) > 0


def _poly(pairs, length=None):
    out = {}
    for k, c in pairs:
        out[int(k)] = Fraction(c)
    if not out:
        return []
    return _trim([out.get(i, Fraction(0)) for i in range(max(out) + 1)])


def _check_all_epsilon(cert):
    m = int(cert["m"])
    laws = {int(i): {o: (_poly(nd[0]), _poly(nd[1])) for o, nd in v["outputs"].items()}
            for i, v in cert["datasets"].items()}
    tm = [Fraction(0)] * m + [Fraction(1)]
    for i, law in laws.items():
        num_total, den_total = [], [Fraction(1)]
        for o, (num, den) in law.items():
            if _roots_above_one(_odd_part(den)) or not _trim(den) or not nonnegative_above_one(den):
                return _out(cert, False, f"dataset {i}, output {o}: the denominator is not positive on t > 1")
            if not nonnegative_above_one(num):
                return _out(cert, False, f"dataset {i}, output {o}: a probability is negative for some epsilon")
            num_total = _add(_mul(num_total, den), _mul(num, den_total))
            den_total = _mul(den_total, den)
        if _add(num_total, _neg(den_total)):
            return _out(cert, False, f"dataset {i}: the probabilities do not sum to 1 identically")
    decided = {}
    for i, j in cert["pairs"]:
        for a, b in ((i, j), (j, i)):
            la, lb = laws[a], laws[b]
            for o in set(la) | set(lb):
                na, da = la.get(o, ([], [Fraction(1)]))
                nb, db = lb.get(o, ([], [Fraction(1)]))
                q = _add(_mul(tm, _mul(nb, da)), _neg(_mul(na, db)))
                key = tuple(q)
                if key not in decided:
                    decided[key] = nonnegative_above_one(q)
                if not decided[key]:
                    return _out(cert, False, f"pair ({a}, {b}), output {o}: P > e^eps P' for some epsilon")
    return _out(cert, True, f"{len(cert['pairs'])} pairs, {len(decided)} polynomials: the claim holds "
                            f"for every epsilon > 0")


def _law(entry):
    return {o: (_q(a), _q(b)) for o, (a, b) in entry["outputs"].items()}


def _pure_holds(ld, le, e_lo):
    for o, (lo_d, hi_d) in ld.items():
        if hi_d == 0:
            continue
        lo_e = le.get(o, (Fraction(0), Fraction(0)))[0]
        if hi_d > e_lo * lo_e:
            return False, o
    return True, None


def _hockey_upper(ld, le, e_lo):
    total = Fraction(0)
    for o, (lo_d, hi_d) in ld.items():
        lo_e = le.get(o, (Fraction(0), Fraction(0)))[0]
        total += max(Fraction(0), hi_d - e_lo * lo_e)
    return total + max(Fraction(0), 1 - sum(lo for lo, _ in ld.values()))


def _hockey_lower(ld, le, e_hi):
    total = Fraction(0)
    for o, (lo_d, hi_d) in ld.items():
        hi_e = le.get(o, (Fraction(0), Fraction(0)))[1]
        total += max(Fraction(0), lo_d - e_hi * hi_e)
    return total - max(Fraction(0), sum(hi for _, hi in ld.values()) - 1)


def check_certificate(cert) -> dict:
    """Re-check one certificate (a dict as loaded from JSON, or a path to the file).

    Returns
    -------
    dict
        ``{"verdict": "holds" | "fails" | "undecided", "confirmed": bool,
        "method": ..., "reason": str}``: ``confirmed`` is True when the
        certificate proves the verdict it states (for ``"estimated"``
        certificates it proves it *given* the estimated enclosures, and says
        so in ``reason``).
    """
    if not isinstance(cert, dict):
        with open(cert, encoding="utf-8") as fh:
            cert = json.load(fh)
    if cert.get("format") != FORMAT:
        return {"verdict": cert.get("verdict"), "confirmed": False, "method": cert.get("method"),
                "reason": f"unknown format {cert.get('format')!r} (expected {FORMAT!r})"}
    if cert.get("recheckable") is False:
        return {"verdict": cert.get("verdict"), "confirmed": False, "method": cert.get("method"),
                "recheckable": False, "reason": cert.get("reason", "nothing to re-check")}
    if "checks" in cert:      # a bundle: every part must be confirmed
        parts = [check_certificate(c) for c in cert["checks"]]
        ok = all(p["confirmed"] for p in parts)
        return {"verdict": cert.get("verdict"), "confirmed": ok, "method": cert.get("method"),
                "reason": "; ".join(p["reason"] for p in parts if not p["confirmed"])[:2000]
                or f"{len(parts)} parts confirmed", "parts": parts}
    stated = cert["verdict"]
    if cert.get("kind") == "for-all-epsilon":
        if stated != "holds":
            return _out(cert, False, "only a proof that the claim holds for every epsilon is re-checked")
        return _check_all_epsilon(cert)
    eps, delta = _q(cert["claim"]["epsilon"]), _q(cert["claim"]["delta"])
    e_lo, e_hi = exp_bounds(eps)
    laws = {int(k): _law(v) for k, v in cert["datasets"].items()}
    note = "" if cert.get("method") == "certified" else \
        " (given the estimated enclosures: not a proof about the mechanism)"
    if stated == "holds":
        for i, law in laws.items():
            s_lo = sum(lo for lo, _ in law.values())
            s_hi = sum(hi for _, hi in law.values())
            if s_lo > 1:
                return _out(cert, False, f"dataset {i}: probabilities sum to more than 1")
            if delta == 0 and s_hi < 1:
                return _out(cert, False, f"dataset {i}: probability mass missing under a pure-DP claim")
        for i, j in cert["pairs"]:
            for a, b in ((i, j), (j, i)):
                if delta == 0:
                    ok, o = _pure_holds(laws[a], laws[b], e_lo)
                    if not ok:
                        return _out(cert, False, f"pair ({a}, {b}), output {o}: P > e^eps P' is not excluded")
                elif _hockey_upper(laws[a], laws[b], e_lo) > delta:
                    return _out(cert, False, f"pair ({a}, {b}): hockey-stick divergence not below delta")
        return _out(cert, True, f"{len(cert['pairs'])} pairs: the claim holds{note}")
    if stated == "fails":
        w = cert["witness"]
        a, b = int(w["d"]), int(w["e"])
        if delta == 0:
            o = w["output"]
            for x, y in ((a, b), (b, a)):
                lo_d = laws[x].get(o, (Fraction(0), Fraction(0)))[0]
                hi_e = laws[y].get(o, (Fraction(0), Fraction(0)))[1]
                if lo_d > e_hi * hi_e:
                    return _out(cert, True, f"witness pair ({x}, {y}), output {o}: P > e^eps P'{note}")
            return _out(cert, False, "the witness does not show P > e^eps P'")
        if _hockey_lower(laws[a], laws[b], e_hi) > delta:
            return _out(cert, True, f"witness pair ({a}, {b}): hockey-stick divergence above delta{note}")
        return _out(cert, False, "the witness does not show a hockey-stick divergence above delta")
    return _out(cert, False, "an undecided verdict certifies nothing")


def _out(cert, ok, reason):
    return {"verdict": cert["verdict"], "confirmed": ok, "method": cert.get("method"), "reason": reason}


def main(argv=None) -> int:
    """``refdp check-certificate FILE [FILE ...]``: exit 0 when every certificate is confirmed.

    Exit 1 when one is not confirmed (or cannot be read), else 2 when one is
    not re-checkable (a check that compares computed bounds, not output laws):
    a script can tell a confirmed set from one that was only read.
    """
    p = argparse.ArgumentParser(prog="refdp check-certificate",
                                description="re-check refdp privacy certificates with exact rationals")
    add_arguments(p)
    return run(p.parse_args(argv))


def add_arguments(p):
    p.add_argument("files", nargs="+", metavar="FILE", help="certificate JSON files")


def run(args) -> int:
    bad = unchecked = 0
    for path in args.files:
        try:
            r = check_certificate(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"{path}: cannot be read as a certificate: {type(exc).__name__}: {exc}")
            bad += 1
            continue
        if r.get("recheckable") is False:
            print(f"{path}: {r['verdict']} ({r['method']}) not re-checkable: {r['reason']}")
            unchecked += 1
            continue
        status = "confirmed" if r["confirmed"] else "NOT CONFIRMED"
        print(f"{path}: {r['verdict']} ({r['method']}) {status}: {r['reason']}")
        bad += not r["confirmed"]
    return 1 if bad else (2 if unchecked else 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
