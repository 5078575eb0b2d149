NAME = "beta"
