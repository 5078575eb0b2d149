print("running flaky")
raise RuntimeError("flaky failed")
