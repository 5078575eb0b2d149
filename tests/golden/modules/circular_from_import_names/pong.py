from ping import ping


def pong(n):
    return "pong " + str(n) + (" -> " + ping(n - 1) if n > 0 else "")
