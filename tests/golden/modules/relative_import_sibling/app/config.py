MODE = "debug"
