# math: constants, float functions, rounding to ints, integer functions.
import math

print(math.pi, math.e, math.tau, math.inf, -math.inf)
print(math.sqrt(16), math.sqrt(2), math.exp(1), math.log(math.e), math.log(8, 2), math.log2(1024), math.log10(0.001))
print(math.sin(0), math.cos(0), round(math.tan(math.pi / 4), 12), math.atan2(1, 1), math.hypot(3, 4))
print(math.floor(2.7), math.floor(-2.5), math.ceil(2.1), math.trunc(-3.9), math.floor(5), type(math.floor(2.5)).__name__)
print(math.fabs(-2), math.copysign(3, -0.0), math.fmod(7, 3), math.modf(2.5), math.frexp(8.0), math.ldexp(0.5, 4))
print(math.factorial(0), math.factorial(20), math.gcd(12, 18, 30), math.lcm(4, 6), math.isqrt(99))
print(math.comb(10, 3), math.perm(5, 2), math.perm(4), math.prod([1, 2, 3, 4]), math.prod([]), math.prod([0.5, 4]))
print(math.fsum([0.1] * 10), sum([0.1] * 10))
print(math.isclose(0.1 + 0.2, 0.3), math.isclose(1.0, 1.1), math.isclose(0.0, 1e-12, abs_tol=1e-9))
print(math.isnan(math.nan), math.isinf(-math.inf), math.isfinite(1e308), math.degrees(math.pi), math.radians(180))
print(math.erf(0), math.gamma(5), math.lgamma(1), math.expm1(0), math.log1p(0), math.dist((0, 0), (3, 4)))
print(math.tanh(0), math.asin(1), math.acos(1), math.cosh(0), math.sinh(0))
