# An error raised by a comprehension's condition inside a function is
# reported at the condition's line.
def ratios(values):
    return [
        value
        for value in values
        if 10 % value
    ]


print(ratios([3, 4]))
print(ratios([3, 0]))
