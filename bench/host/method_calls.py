# Method calls and attribute reads and writes on objects of a small class tree.
class Vector:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def add(self, other):
        return Vector(self.x + other.x, self.y + other.y)

    def dot(self, other):
        return self.x * other.x + self.y * other.y

    def scaled(self, factor):
        return Vector(self.x * factor, self.y * factor)


class Particle:
    def __init__(self, position, velocity):
        self.position = position
        self.velocity = velocity
        self.steps = 0

    def step(self, dt):
        self.position = self.position.add(self.velocity.scaled(dt))
        self.steps += 1
        return self.position.dot(self.velocity)


def run(n):
    particles = [Particle(Vector(float(i), 0.0), Vector(1.0, 0.5 * i)) for i in range(10)]
    energy = 0.0
    for _ in range(n):
        for p in particles:
            energy += p.step(0.01)
    return round(energy, 3), sum(p.steps for p in particles)


print(run(50000))
