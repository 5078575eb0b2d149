print("running", __name__)
loads = 1
