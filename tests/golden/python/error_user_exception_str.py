class Custom(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code

    def __str__(self):
        return f"failed with code {self.code}"


raise Custom(7)
