alpha = 1
beta = 2
_private = 3
