// The benchmark's floor: the cost of starting a Swift program that prints one line.
print("/tmp/floor")
