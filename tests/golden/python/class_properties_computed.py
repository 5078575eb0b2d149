# Properties computed from other attributes, in subclasses, and with property().
class Rect:
    def __init__(self, w, h):
        self.w, self.h = w, h

    @property
    def area(self):
        return self.w * self.h

    def _get_ratio(self):
        return self.w / self.h

    def _set_ratio(self, ratio):
        self.w = self.h * ratio

    ratio = property(_get_ratio, _set_ratio)


class Square(Rect):
    def __init__(self, side):
        super().__init__(side, side)

    @property
    def area(self):
        return "square " + str(super().area)


r = Rect(2, 3)
r.ratio = 2
print(r.area, r.ratio, r.w, Square(4).area)
