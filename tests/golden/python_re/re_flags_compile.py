# Flags (IGNORECASE, MULTILINE, DOTALL, VERBOSE), compiled patterns and re.error.
import re

print(re.findall(r"hello", "Hello HELLO hello", re.IGNORECASE))
print(re.findall(r"^\w+", "one\ntwo\nthree", re.MULTILINE), re.findall(r"^\w+", "one\ntwo"))
print(re.search(r"a.b", "a\nb"), re.search(r"a.b", "a\nb", re.DOTALL).span())
number = re.compile(r"""
    (?P<sign>[-+])?   # an optional sign
    (?P<int>\d+)      # the integer part
    (?:\.(?P<frac>\d+))?  # a fraction
""", re.VERBOSE)
for text in ["+12.5", "7", "-0.25"]:
    m = number.fullmatch(text)
    print(m.group("sign"), m.group("int"), m.group("frac"))
p = re.compile(r"(\w+)-(\d+)", re.I | re.M)
print(p.pattern, p.groups, p.groupindex, p.flags == re.I | re.M | re.U)
print(p)
print(re.compile(r"a+"), re.compile("x", re.S))
print(p.findall("ab-1 CD-22"), p.sub(r"\2", "ab-1 CD-22"), p.split("x ab-1 y"))
print(re.compile(p) is p, re.match(p, "zz-9").groups())
print(re.search(r"end\Z", "the end"), re.search(r"a{,2}", "aaa").group())
for bad in ["(unclosed", "a)", "[z-a]", "*x"]:
    try:
        re.compile(bad)
    except re.error:
        print("re.error for", repr(bad))
try:
    re.sub("a", r"\9", "a")
except re.error:
    print("re.error: invalid group reference")
print(isinstance(p, re.Pattern), isinstance(p.match("a-1"), re.Match))
