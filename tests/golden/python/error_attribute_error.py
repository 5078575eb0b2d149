x = [1, 2]
x.push(3)
