# ecnsharp: top-level entry points (see README.md).
#
#   make                 build sch_ecnsharp.ko against KDIR (default: the running kernel's build tree)
#   make demo            the main job: build kernel, module and tools, boot a VM, mark DCTCP traffic
#   make check           every test: host tests, then the VM selftests (what CI runs)
#   make deps            install the bench's dependencies (apt, rustup components, bindgen-cli)
#   make kernel          build (or reuse) the bench kernel; make kernel-debug for the debug flavour
#   make clean           remove in-tree build products

KDIR ?= /lib/modules/$(shell uname -r)/build
LLVM ?= 1
RUST_TOOLCHAIN := $(shell sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
export RUSTUP_TOOLCHAIN := $(RUST_TOOLCHAIN)
# Where run-in-vm wants the module and tools for one bench kernel (set by tests/vm/run-in-vm).
BENCH_OUT ?=

MODULE_SOURCES := Kbuild $(wildcard kmod/module/*.c kmod/module/*.h kmod/module/*.rs \
	kmod/module/*/*.rs kmod/src/*.rs kmod/src/*/*.rs)

.PHONY: all module check demo deps kernel kernel-debug bench-artifacts clean

all: module

module:
	@test -f "$(KDIR)/.config" || { echo "error: no kernel build tree at KDIR=$(KDIR)." \
		"ecnsharp needs a kernel built with CONFIG_RUST=y; 'make kernel' builds one (see README)"; exit 1; }
	@grep -q '^CONFIG_RUST=y' "$(KDIR)/.config" || { echo "error: $(KDIR) was built without" \
		"CONFIG_RUST=y, so it cannot load Rust modules (Debian's stock kernel is such a kernel);" \
		"'make kernel' builds one (see README)"; exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" LLVM=$(LLVM) modules

# The bench builds in a copy of the sources per kernel, so that one clone can hold modules for
# several kernels (6.12's Kbuild cannot put an external module's objects elsewhere), and fails
# on any compiler warning.
bench-artifacts:
	@test -n "$(BENCH_OUT)" || { echo "error: BENCH_OUT is not set"; exit 1; }
	@mkdir -p "$(BENCH_OUT)/module-src"
	@cp -a --parents $(MODULE_SOURCES) "$(BENCH_OUT)/module-src/"
	@$(MAKE) -s -C "$(KDIR)" M="$(BENCH_OUT)/module-src" LLVM=$(LLVM) modules \
		> "$(BENCH_OUT)/module-build.log" 2>&1 || { cat "$(BENCH_OUT)/module-build.log"; exit 1; }
	@if grep -E 'warning[:\[]' "$(BENCH_OUT)/module-build.log"; then \
		echo "error: the module build has warnings (see above)"; exit 1; fi
	@cp "$(BENCH_OUT)/module-src/sch_ecnsharp.ko" "$(BENCH_OUT)/sch_ecnsharp.ko"

check:
	@tests/check.sh

demo:
	@tests/demo.sh

deps:
	@tests/vm/deps.sh

kernel:
	@tests/vm/build-kernel.sh default

kernel-debug:
	@tests/vm/build-kernel.sh debug

clean:
	-@test ! -f "$(KDIR)/Makefile" || $(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean
	rm -f kmod/module/shim_bindings.rs
