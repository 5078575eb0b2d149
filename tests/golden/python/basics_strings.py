# String methods, slicing and formatting.
s = "Hello, World"
print(s.lower(), s.upper(), s[::-1], s[1:5], s[-5:])
print(s.split(", "), "-".join(["a", "b", "c"]), s.replace("l", "L"))
print(s.startswith("Hell"), s.endswith("x"), s.find("World"), s.count("l"))
print("  pad  ".strip() + "|", "x".center(5, "*"), "7".zfill(3), "ab" * 3)
print(repr("quote's"), repr('say "hi"'), str(3.0), len("héllo"))
print("%d items at %.2f" % (3, 1.5), "%s and %r" % ("a", "b"))
print("{} {:>5} {:<5}| {:^7} {:08.3f}".format(1, "r", "l", "c", 3.14159))
name, n = "x", 12
print(f"{name!r} {n:4d} {n:x} {n / 7:.3f} {n:,}")
