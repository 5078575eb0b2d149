import beta
VALUE = 1
