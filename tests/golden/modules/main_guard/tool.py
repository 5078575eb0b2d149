ran_main = False
print("tool imported as", __name__)
if __name__ == "__main__":
    ran_main = True
    print("tool main block")
