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

__all__ = ["check_certificate", "exp_bounds", "main", "FORMAT"]

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
    """``refdp check-certificate FILE [FILE ...]``: exit 0 when every certificate is confirmed."""
    p = argparse.ArgumentParser(prog="refdp check-certificate",
                                description="re-check refdp privacy certificates with exact rationals")
    add_arguments(p)
    return run(p.parse_args(argv))


def add_arguments(p):
    p.add_argument("files", nargs="+", metavar="FILE", help="certificate JSON files")


def run(args) -> int:
    bad = 0
    for path in args.files:
        try:
            r = check_certificate(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"{path}: cannot be read as a certificate: {type(exc).__name__}: {exc}")
            bad += 1
            continue
        if r.get("recheckable") is False:
            print(f"{path}: {r['verdict']} ({r['method']}) not re-checkable: {r['reason']}")
            continue
        status = "confirmed" if r["confirmed"] else "NOT CONFIRMED"
        print(f"{path}: {r['verdict']} ({r['method']}) {status}: {r['reason']}")
        bad += not r["confirmed"]
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
