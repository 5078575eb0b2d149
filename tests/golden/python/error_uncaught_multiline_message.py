# An uncaught exception whose message has several lines: the traceback ends
# with all of them, the first after "ValueError: ", as CPython prints it.
def check(name, problems):
    if problems:
        raise ValueError(f"{name} is invalid:\n" + "\n".join(f"    - {p}" for p in problems) + "\nfix these first")


print("before")
check("config", [])
check("config", ["lr must be positive", "steps must be an int"])
