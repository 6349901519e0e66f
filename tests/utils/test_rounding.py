"""Rounding of mpmath values to doubles: the integer fast path equals the exact rational one."""
import math
import random
from fractions import Fraction

from mpmath import libmp

from refdp.utils import rounding
from refdp.utils.rounding import ceil_fraction, shared_interval_context


def _reference(raw):
    sign, man, exp, _ = raw
    q = Fraction(man) * Fraction(2) ** exp
    return ceil_fraction(-q if sign else q)


def test_ceil_raw_fast_path_equals_the_rational_ceiling():
    rnd = random.Random(11)
    raws = []
    for _ in range(4000):
        bits = rnd.choice([1, 2, 52, 53, 54, 60, 106, 160, 400])
        man = rnd.getrandbits(bits) | 1
        top = rnd.randint(-1010, 1010)
        raws.append(libmp.normalize(rnd.randint(0, 1), man, top - man.bit_length(), man.bit_length(),
                                    10**6, libmp.round_nearest))
    # values just above and below doubles, and at the fast path's limits
    for f in (1.0, 0.1, 2.0**-999, 2.0**999 * 1.5, 3.0):
        n, d = f.as_integer_ratio()
        e = d.bit_length() - 1
        for delta in (-1, 1):
            man = (n << 200) + delta
            raws.append(libmp.normalize(0, man, -e - 200, man.bit_length(), 10**6, libmp.round_nearest))
            raws.append(libmp.normalize(1, man, -e - 200, man.bit_length(), 10**6, libmp.round_nearest))
    fast = 0
    for raw in raws:
        assert rounding._ceil_raw(raw) == _reference(raw), raw
        top = raw[2] + raw[3]
        fast += rounding._FAST_LOW <= top <= rounding._FAST_HIGH
    assert fast > 3000


def test_shared_interval_context_is_per_thread_and_keeps_its_precision():
    import threading
    iv = shared_interval_context()
    assert iv is shared_interval_context() and iv.prec == rounding.IV_PREC
    other = []
    t = threading.Thread(target=lambda: other.append(shared_interval_context()))
    t.start()
    t.join()
    assert other[0] is not iv and other[0].prec == rounding.IV_PREC
    assert math.isclose(float(iv.ln(iv.mpf(2)).a), math.log(2.0))
