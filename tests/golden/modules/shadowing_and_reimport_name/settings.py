level = 1
