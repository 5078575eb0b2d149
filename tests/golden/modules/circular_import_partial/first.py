print("first: start")
early = "early"
import second
late = "late"
ready = True
print("first: end")
