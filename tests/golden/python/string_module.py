# string: the character-class constants and capwords.
import string

print(string.ascii_lowercase)
print(string.ascii_uppercase)
print(string.ascii_letters)
print(string.digits, string.hexdigits, string.octdigits)
print(repr(string.punctuation))
print(repr(string.whitespace))
print(len(string.printable))
print(string.capwords("the  quick brown   fox"), string.capwords("a-b-c", "-"))
print("".join(c for c in "Hello, World!" if c in string.ascii_letters))
