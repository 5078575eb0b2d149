class Base:
    pass


class Child(Base):
    def __init__(self, value):
        super().__init__(value)


Child(1)
