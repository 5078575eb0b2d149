# throw() raises inside the generator at its paused yield.
def resilient():
    while True:
        try:
            yield "waiting"
        except ValueError as e:
            print("handled", e)


g = resilient()
print(next(g))
print(g.throw(ValueError("bad")))
try:
    g.throw(KeyError("fatal"))
except KeyError as e:
    print("escaped", e)
print(next(g, "finished"))
