import first
seen_early = first.early
print("second: first.early =", seen_early)


def use_later():
    return first.late
