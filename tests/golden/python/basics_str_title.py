# str.title: each word's first letter upper case and the rest lower, where a
# word starts after any character that is not a letter.
names = ["hello wORLD", "3rd-party o'neil", "x_y  z", "", "ABC def", "a1b2 c", "already Title"]
for name in names:
    print(repr(name.title()), name.title() == name.title().title())
print(" ".join(w.title() for w in "data model pipeline".split()), "mesh_axis".title())
