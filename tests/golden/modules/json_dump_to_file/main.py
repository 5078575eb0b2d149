# json.dump to a file and json.load back; the file is removed afterwards.
import json
import os
settings = {"seed": 0, "mesh": [4, 2], "axes": ["data", "model"], "dtype": "bfloat16"}
with open("settings.tmp", "w") as f:
    json.dump(settings, f, indent=4, sort_keys=True)
with open("settings.tmp") as f:
    text = f.read()
print(text)
with open("settings.tmp") as f:
    print(json.load(f) == settings)
os.remove("settings.tmp")
print(os.path.exists("settings.tmp"))
# expect: {
# expect:     "axes": [
# expect:         "data",
# expect:         "model"
# expect:     ],
# expect:     "dtype": "bfloat16",
# expect:     "mesh": [
# expect:         4,
# expect:         2
# expect:     ],
# expect:     "seed": 0
# expect: }
# expect: True
# expect: False
