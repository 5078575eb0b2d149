OK = True
