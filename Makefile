# The ways in (see README.md):
#   make demo                      — run the demos and print their tables against the known truth
#   make test                      — run every test (Rust, no_std cross builds, C API, firmware under QEMU)
#   make install PREFIX=/usr/local — build and install the C library, headers, pkg-config file and
#                                    CMake package (also DESTDIR=, LIBDIR=lib, INCLUDEDIR=include)
.PHONY: demo test install
demo:
	./scripts/demo.sh
test:
	./scripts/test.sh
install:
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" LIBDIR="$(or $(LIBDIR),lib)" \
	  INCLUDEDIR="$(or $(INCLUDEDIR),include)" ./scripts/install.sh
