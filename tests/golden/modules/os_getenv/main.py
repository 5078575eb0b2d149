# os.getenv reads the host's environment (behind the embedder's file-access
# switch, as files are); a missing variable gives the default.
import os
print(os.getenv("SHARDLANG_TEST_SURELY_UNSET_VARIABLE"))
print(os.getenv("SHARDLANG_TEST_SURELY_UNSET_VARIABLE", "small"))
print(isinstance(os.getenv("PATH"), str))
try:
    os.getenv(3)
except TypeError as error:
    print("TypeError:", error)
# expect: None
# expect: small
# expect: True
# expect: TypeError: str expected, not int
