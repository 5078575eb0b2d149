def fine():
    return (1 +
