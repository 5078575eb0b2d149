# Python's pattern syntax on PCRE2: inline flags, lookarounds, back references,
# named references; Match.expand; the errors of templates and groups.
import re

print(re.findall(r"(?i)ab", "AB ab Ab"), re.findall(r"\bcat\b", "cat concat cat."))
print(re.findall(r"\w+(?=!)", "hi! there? yes!"), re.findall(r"(?<=\$)\d+", "$10 and 20 and $30"))
print(re.findall(r"(?<!x)y", "xy ay y"), re.findall(r"a(?!b)", "ab ac a"))
print(re.search(r"(\w)\1", "abccd").group(), re.search(r"(?P<c>\w)(?P=c)", "xyzzy").span())
m = re.match(r"((a)(b))(c)?", "ab")
print(m.lastindex, m.groups(), m.expand(r"\2-\3 [\g<1>]"))
print(re.match(r"(?P<x>a)|(?P<y>b)", "b").lastgroup, re.match(r"(a)|(b)", "b").lastindex)
print(re.sub("", "-", "abc"), re.split("", "ab"), re.findall("", "ab"))
print(re.sub(r"(\d+)", lambda m: m.group(1)[::-1], "12 345 6789", count=2))
print(re.split(r"(-)|(\+)", "1-2+3", maxsplit=1))
print([m.group() for m in re.finditer(r"[à-ÿ]+", "déjà vu, ça va")])
print(re.sub(r"\w+", r"\t[\g<0>]", "a b").split("\t"))
print(re.findall(r"[\d.]+|[a-z]+", "x1.5y22"), re.match(r"\s*(\S+)\s*$", "  word  ").group(1))
for template in [r"\g<nope>", r"\q", r"\g<7>"]:
    try:
        re.sub(r"(?P<w>\w)", template, "a")
    except (re.error, IndexError) as e:
        print(type(e).__name__)
try:
    re.match(r"(a)", "a").group("missing")
except IndexError as e:
    print("IndexError:", e)
m = re.search(r"b", "abc")
print(m.re.pattern, m.start(), m.end(), m.span(0))
try:
    re.search(r"(", "x")
except re.error as e:
    print(type(e).__module__, type(e).__name__, isinstance(e, Exception))
