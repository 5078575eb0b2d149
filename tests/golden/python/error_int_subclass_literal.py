# An int subclass is made by int's own conversion, with its errors.
class Port(int):
    pass


print(Port("80"), Port(" 81 "), Port("0x50", 0))
Port("eighty")
