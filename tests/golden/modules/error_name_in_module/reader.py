def read():
    return x_in_main
