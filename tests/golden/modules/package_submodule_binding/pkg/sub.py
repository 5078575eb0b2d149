def value():
    return "sub"
