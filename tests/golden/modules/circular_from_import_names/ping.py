def ping(n):
    from pong import pong
    return "ping " + str(n) + (" -> " + pong(n - 1) if n > 0 else "")
