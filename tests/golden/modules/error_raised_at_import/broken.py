settings = {"mode": "bad"}
if settings["mode"] == "bad":
    raise ValueError("configuration is invalid")
