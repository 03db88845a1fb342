# The two ways in (see README.md):
#   make demo   — run the demos and print their tables against the known truth
#   make test   — run every test (Rust, no_std cross builds, C API, firmware under QEMU)
.PHONY: demo test
demo:
	./scripts/demo.sh
test:
	./scripts/test.sh
