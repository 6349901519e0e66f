"""Privacy certificates: a verdict written down so that a separate checker can re-derive it.

:func:`certificate_dict` turns a :class:`refdp.verify.check.MechanismCheck`
into a JSON-able record: the claim (epsilon and delta as exact rationals), the
neighbour relation, every dataset examined with the enclosure of the
probability of each output (exact rational end points), the pairs, the
verdict, the method (certified or estimated), the precision reached, and for
a failure a witness. :mod:`refdp.check_certificate` re-checks it with
:class:`fractions.Fraction` arithmetic only (``refdp check-certificate FILE``).
"""
from __future__ import annotations

import json
import os
from fractions import Fraction

from ..utils.precision import raw_to_fraction

__all__ = ["certificate_dict", "write_certificate", "FORMAT"]

FORMAT = "refdp-certificate/1"


def _frac(raw) -> str:
    return str(raw_to_fraction(raw))


def _end(x) -> str:
    raw = x._mpf_
    return "inf" if raw[1] == 0 and raw[2] != 0 else _frac(raw)


def _key(o) -> str:
    return repr(o)


def certificate_dict(result, name: str = "") -> dict:
    """The JSON-able certificate of a :class:`~refdp.verify.check.MechanismCheck`.

    Parameters
    ----------
    result : MechanismCheck
        A result of :func:`~refdp.verify.check.check_mechanism` or
        :func:`~refdp.verify.check.check_pairs` (it carries the enclosures it
        was decided on).
    name : str
        A label for the certificate (the check's name).

    Returns
    -------
    dict
    """
    ev = getattr(result, "evidence", None)
    if ev and "laws" in ev:
        return _all_epsilon(result, ev, name)
    if not ev or "rows" not in ev:
        from ..utils.validation import parameter_error
        raise parameter_error("result", "certificate_dict",
                              "a MechanismCheck from check_mechanism or check_pairs", result)
    index, laws = {}, {}
    levels = {}
    for row in ev["rows"]:
        if row["records"] is None:
            continue
        for d, rec in zip(row["pair"], row["records"]):
            if d not in index:
                index[d] = len(index)
            if rec.level >= levels.get(d, -1):
                levels[d] = rec.level
                laws[index[d]] = {
                    "dataset": repr(d),
                    "outputs": {_key(o): [_frac(lo), _frac(hi)] for o, (lo, hi) in rec.enc.items()},
                }
    pairs = [[index[d], index[e]] for d, e in ev["pairs"] if d in index and e in index]
    cert = {
        "format": FORMAT,
        "name": name,
        "claim": {"epsilon": str(Fraction(ev["epsilon"])), "delta": str(Fraction(ev["delta"])),
                  "kind": result.kind},
        "relation": result.relation,
        "verdict": result.verdict.value,
        "method": result.method,
        "max_dps": result.max_dps_used,
        "enclosure": [_end(result.enclosure[0]), _end(result.enclosure[1])],
        "datasets": {str(i): law for i, law in laws.items()},
        "pairs": pairs,
    }
    if result.verdict.value == "fails":
        d, e = result.worst_pair
        cert["witness"] = {"d": index[d], "e": index[e], "output": _key(result.worst_output)}
    if result.reason:
        cert["reason"] = result.reason
    return cert


def write_certificate(result, path, name: str = "") -> str:
    """Write :func:`certificate_dict` of ``result`` as JSON to ``path``; return the path."""
    path = os.fspath(path)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(certificate_dict(result, name), fh)
    return path


def bundle(results, name: str, verdict: str, method: str) -> dict:
    """One certificate holding the certificates of several checks (all must be confirmed)."""
    return {"format": FORMAT, "name": name, "verdict": verdict, "method": method,
            "checks": [certificate_dict(r, f"{name}[{i}]") for i, r in enumerate(results)]}


def _all_epsilon(proof, ev, name) -> dict:
    """Certificate of a :class:`refdp.verify.algebraic.AllEpsilonProof`: exact laws in ``t``."""
    index = {d: i for i, d in enumerate(ev["laws"])}
    return {
        "format": FORMAT,
        "name": name,
        "kind": "for-all-epsilon",
        "m": proof.m,
        "relation": proof.relation,
        "verdict": proof.verdict.value,
        "method": "algebraic",
        "datasets": {str(index[d]): {
            "dataset": repr(d),
            "outputs": {_key(o): [[[k, str(c)] for k, c in num], [[k, str(c)] for k, c in den]]
                        for o, (num, den) in law.items()}}
            for d, law in ev["laws"].items()},
        "pairs": [[index[d], index[e]] for d, e in ev["pairs"]],
    }
