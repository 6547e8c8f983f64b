from tinygrad import Tensor

def build():
    x = Tensor.empty(4, 8).realize()
    return [x.softmax(-1)]
