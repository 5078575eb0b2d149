def value():
    return "other"
