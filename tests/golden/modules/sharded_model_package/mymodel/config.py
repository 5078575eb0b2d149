class Config:
    def __init__(self, batch=8, features=16, hidden=4):
        self.batch = batch
        self.features = features
        self.hidden = hidden
