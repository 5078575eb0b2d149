import pkg
