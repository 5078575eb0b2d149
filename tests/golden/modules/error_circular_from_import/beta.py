from alpha import VALUE
