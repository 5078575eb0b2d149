print("start")
print(undefined_name)
