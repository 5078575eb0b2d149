TOP = "TOP"
