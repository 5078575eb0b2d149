# `if __name__ == "__main__":` runs in the script and not in an imported module.
import tool
print("script", __name__)
if __name__ == "__main__":
    print("main block of the script")
print(tool.ran_main)
# expect: tool imported as tool
# expect: script __main__
# expect: main block of the script
# expect: False
