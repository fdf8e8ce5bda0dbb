NAME = "torch helpers"
