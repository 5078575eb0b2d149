import left
print(left.LATER)
