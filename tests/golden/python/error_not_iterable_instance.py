class Opaque:
    pass


for item in Opaque():
    print(item)
