import right
LATER = 1
