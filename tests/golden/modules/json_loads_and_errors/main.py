# json.loads: every JSON value, escapes, and CPython's JSONDecodeError messages.
import json
text = '{"n": -12, "f": 2.5e3, "s": "a\\u00e9\\n\\ud83d\\ude00", "l": [true, false, null], "o": {}}'
value = json.loads(text)
print(value)
print(value["s"] == "a\u00e9\n\U0001F600", type(value["n"]).__name__, type(value["f"]).__name__)
print(json.loads("[NaN, Infinity, -Infinity, 1E2, 0]"))
print(json.loads(json.dumps({"round": [1, "two", 3.0]})))
for bad in ["", "[1, 2", '{"a" 1}', "{'a': 1}", "[1,]", '"tab\there"', "nul", "[1] x", '{"a": 1,}', '"\\q"']:
    try:
        json.loads(bad)
    except json.JSONDecodeError as e:
        print(type(e).__name__, isinstance(e, ValueError), e)
try:
    json.loads(3)
except TypeError as e:
    print(e)
# expect: {'n': -12, 'f': 2500.0, 's': 'aé\n😀', 'l': [True, False, None], 'o': {}}
# expect: True int float
# expect: [nan, inf, -inf, 100.0, 0]
# expect: {'round': [1, 'two', 3.0]}
# expect: JSONDecodeError True Expecting value: line 1 column 1 (char 0)
# expect: JSONDecodeError True Expecting ',' delimiter: line 1 column 6 (char 5)
# expect: JSONDecodeError True Expecting ':' delimiter: line 1 column 6 (char 5)
# expect: JSONDecodeError True Expecting property name enclosed in double quotes: line 1 column 2 (char 1)
# expect: JSONDecodeError True Expecting value: line 1 column 4 (char 3)
# expect: JSONDecodeError True Invalid control character at: line 1 column 5 (char 4)
# expect: JSONDecodeError True Expecting value: line 1 column 1 (char 0)
# expect: JSONDecodeError True Extra data: line 1 column 5 (char 4)
# expect: JSONDecodeError True Expecting property name enclosed in double quotes: line 1 column 9 (char 8)
# expect: JSONDecodeError True Invalid \escape: line 1 column 2 (char 1)
# expect: the JSON object must be str, bytes or bytearray, not int
