present = "here"
