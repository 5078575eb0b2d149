table = {"present": 1}
value = table["missing"]
