print("not a page")
