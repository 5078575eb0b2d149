# json.dumps as CPython writes it: separators, indent, sort_keys, ensure_ascii, floats.
import json
data = {"b": [1, 2.5, None, True], "a": {"x": "caf\u00e9 \"q\"\n", "y": []}, "c": {}, 3: 1e-07}
print(json.dumps(data))
print(json.dumps(data, sort_keys=False, ensure_ascii=False))
print(json.dumps(data, indent=2))
print(json.dumps({"z": 1, "a": [1, {"k": (2, 3)}]}, sort_keys=True, indent="\t"))
print(json.dumps([1, 2], separators=(",", ":")), json.dumps("\U0001F600"))
print(json.dumps(float("inf")), json.dumps(-0.0), json.dumps(10**15), json.dumps(1.5e300))
try:
    json.dumps({"s": {1, 2}})
except TypeError as e:
    print(e)
try:
    json.dumps({(1, 2): 3})
except TypeError as e:
    print(e)
class Custom:
    pass
print(json.dumps({"p": Custom()}, default=lambda o: type(o).__name__))
loop = []
loop.append(loop)
try:
    json.dumps(loop)
except ValueError as e:
    print(e)
# expect: {"b": [1, 2.5, null, true], "a": {"x": "caf\u00e9 \"q\"\n", "y": []}, "c": {}, "3": 1e-07}
# expect: {"b": [1, 2.5, null, true], "a": {"x": "café \"q\"\n", "y": []}, "c": {}, "3": 1e-07}
# expect: {
# expect:   "b": [
# expect:     1,
# expect:     2.5,
# expect:     null,
# expect:     true
# expect:   ],
# expect:   "a": {
# expect:     "x": "caf\u00e9 \"q\"\n",
# expect:     "y": []
# expect:   },
# expect:   "c": {},
# expect:   "3": 1e-07
# expect: }
# expect: {
# expect: 	"a": [
# expect: 		1,
# expect: 		{
# expect: 			"k": [
# expect: 				2,
# expect: 				3
# expect: 			]
# expect: 		}
# expect: 	],
# expect: 	"z": 1
# expect: }
# expect: [1,2] "\ud83d\ude00"
# expect: Infinity -0.0 1000000000000000 1.5e+300
# expect: Object of type set is not JSON serializable
# expect: keys must be str, int, float, bool or None, not tuple
# expect: {"p": "Custom"}
# expect: Circular reference detected
