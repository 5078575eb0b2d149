# object(): a bare instance, equal and hashed by identity, with no
# attributes of its own; its repr names the class (the address differs by run).
o = object()
p = object()
print(type(o), isinstance(o, object), callable(object), o == o, o == p, o != p)
print(repr(o).startswith('<object object at 0x'), str(o) == repr(o))
print({o: 1, p: 2}[p], len({o, p, o}), [o, p].index(p), o in [p, o])
try:
  o.x = 1
except AttributeError as e:
  print('AttributeError', e)
try:
  o.missing
except AttributeError as e:
  print('AttributeError', e)
try:
  object(1)
except TypeError as e:
  print('TypeError', e)
sentinel = object()
def lookup(d, key, default=sentinel):
  value = d.get(key, sentinel)
  return 'absent' if value is sentinel else value
print(lookup({'a': None}, 'a'), lookup({}, 'a'))
