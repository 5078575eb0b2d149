# Integer and float arithmetic, floor division and modulo signs, powers.
print(7 // 2, -7 // 2, 7 % 3, -7 % 3, 7 % -3)
print(7 / 2, 2 ** 10, 2 ** -1, 10.0 // 3, -10.5 % 3)
print(divmod(17, 5), divmod(-17, 5), abs(-3), abs(-2.5))
print(round(2.5), round(3.5), round(2.675, 2), round(-0.5))
print(1e16, 1e-5, 0.1 + 0.2, 1 / 3, float('inf'), -float('inf'))
print(int('42'), int(3.9), int(-3.9), float('1.5'), bool(0), bool(''), bool([0]))
print(3 == 3.0, 1 < 2 < 3, 3 > 2 > 2, 0.5 <= 0.5)
print(True + True, True * 3, 5 & 3, 5 | 3, 5 ^ 3, ~5, 1 << 10, 1024 >> 3)
