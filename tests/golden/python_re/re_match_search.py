# re.match, fullmatch and search, with Match objects' groups and spans.
import re

m = re.match(r"(\w+) (\w+)", "Isaac Newton, physicist")
print(m.group(0), m.group(1), m.group(2), m.group(1, 2))
print(m.groups(), m.span(), m.span(2), m.start(2), m.end(2))
print(m[0], m[1], m.string, m.pos, m.endpos, m.lastindex)
print(re.match(r"\d+", "abc 123"), re.search(r"\d+", "abc 123").group())
print(re.fullmatch(r"\d+", "123"), re.fullmatch(r"\d+", "123a"))
print(repr(re.search(r"b+", "aabbbcc")))
m = re.search(r"(?P<first>\w+)\s+(?P<last>\w+)", "  Ada Lovelace ")
print(m.groupdict(), m.group("first"), m["last"], m.span("last"), m.lastgroup)
m = re.match(r"(a)(b)?(c)?", "ac")
print(m.groups(), m.groups("-"), m.span(2), m.start(3), m.group(2))
print(m.groupdict())
try:
    m.group(5)
except IndexError as e:
    print("IndexError", e)
print(bool(re.search("x", "y")), bool(re.search("y", "y")))
# Positions count code points.
m = re.search(r"é+", "café éé!")
print(m.span(), m.group())
p = re.compile(r"\d")
print(p.match("a1b2", 1), p.search("a1b2", 2).span(), p.match("a1b2", 0, 1))
print(p.fullmatch("12", 1), p.search("123", 0, 0))
