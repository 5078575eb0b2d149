print("loading lazy")
VALUE = 2
