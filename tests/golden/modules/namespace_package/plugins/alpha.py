NAME = "alpha"
