VALUE = "from vendor"
