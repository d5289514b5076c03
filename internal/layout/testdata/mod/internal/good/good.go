package good

// F is documented, the package is not here.
func F() {}
