# ecnsharp: top-level entry points (see README.md).
#
#   make                 build sch_ecnsharp.ko against KDIR (default: the running kernel's build tree)
#   make demo            the main job: build kernel, module and tools, boot a VM, mark DCTCP traffic
#   make check           every test: host tests, then the VM selftests (what CI runs)
#   make soak            the reliability suites on the debug kernel for SOAK_MINUTES (default 60)
#   make deps            install the bench's dependencies (apt, rustup components, bindgen-cli)
#   make kernel          build (or reuse) the bench kernel; make kernel-debug for the debug flavour
#   make clean           remove in-tree build products
#   make install         install ecnsharp-tc, tc's q_ecnsharp.so and (if built) the module
#   make ns3             the ns-3 queue disc: agreement with the kernel harness, one leaf-spine point
#   make ns3-full        the paper's 5.3-5.4 simulation sweep into docs/results/ns3/ (hours)

KDIR ?= /lib/modules/$(shell uname -r)/build
LLVM ?= 1
RUST_TOOLCHAIN := $(shell sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
export RUSTUP_TOOLCHAIN := $(RUST_TOOLCHAIN)
# Where run-in-vm wants the module and tools for one bench kernel (set by tests/vm/run-in-vm).
BENCH_OUT ?=
# make install: tc's plugin directory (Debian's; tc also honours TC_LIB_DIR at run time), the
# prefix of ecnsharp-tc, and a staging root.
TC_LIB_DIR ?= /usr/lib/x86_64-linux-gnu/tc
PREFIX ?= /usr/local
DESTDIR ?=
# The userspace tools: ecnsharp-tc and tc's plugin (target/release/libq_ecnsharp.so).
CARGO ?= cargo
TOOLS_BUILD := $(CARGO) build --release --locked -p ecnsharp-tc -p q_ecnsharp
# The bench's own hostile-input tool (tests/nlfuzz), shipped into the guest only.
BENCH_TOOLS_BUILD := $(CARGO) build --release --locked -p ecnsharp-nlfuzz

MODULE_SOURCES := Kbuild $(wildcard kmod/module/*.c kmod/module/*.h kmod/module/*.rs \
	kmod/module/*/*.rs kmod/src/*.rs kmod/src/*/*.rs)

.PHONY: all module check soak demo deps kernel kernel-debug bench-artifacts module-clippy clean install \
	ns3 ns3-full

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
	@{ $(TOOLS_BUILD) && $(BENCH_TOOLS_BUILD); } > "$(BENCH_OUT)/tools-build.log" 2>&1 || { cat "$(BENCH_OUT)/tools-build.log"; exit 1; }
	@if grep -E '^warning' "$(BENCH_OUT)/tools-build.log"; then \
		echo "error: the tools build has warnings (see above)"; exit 1; fi
	@mkdir -p "$(BENCH_OUT)/tools"
	@cp target/release/ecnsharp-tc "$(BENCH_OUT)/tools/ecnsharp-tc"
	@cp target/release/libq_ecnsharp.so "$(BENCH_OUT)/tools/q_ecnsharp.so"
	@cp target/release/ecnsharp-nlfuzz "$(BENCH_OUT)/tools/ecnsharp-nlfuzz"

# The module through clippy with the kernel's own lint set and minimum rustc (CLIPPY=1), in a
# copy of the sources of its own (it rebuilds everything); any warning fails.
module-clippy:
	@test -n "$(BENCH_OUT)" || { echo "error: BENCH_OUT is not set"; exit 1; }
	@rm -rf "$(BENCH_OUT)/clippy-src" && mkdir -p "$(BENCH_OUT)/clippy-src"
	@cp -a --parents $(MODULE_SOURCES) "$(BENCH_OUT)/clippy-src/"
	@$(MAKE) -s -C "$(KDIR)" M="$(BENCH_OUT)/clippy-src" LLVM=$(LLVM) CLIPPY=1 modules \
		> "$(BENCH_OUT)/clippy.log" 2>&1 || { cat "$(BENCH_OUT)/clippy.log"; exit 1; }
	@if grep -E -A8 'warning[:\[]' "$(BENCH_OUT)/clippy.log"; then \
		echo "error: clippy (CLIPPY=1) warns about the module (see above)"; exit 1; fi

check:
	@tests/check.sh

SOAK_MINUTES ?= 60
soak:
	@tests/soak.sh $(SOAK_MINUTES)

install:
	$(TOOLS_BUILD)
	install -D -m 0755 target/release/ecnsharp-tc "$(DESTDIR)$(PREFIX)/bin/ecnsharp-tc"
	install -D -m 0644 target/release/libq_ecnsharp.so "$(DESTDIR)$(TC_LIB_DIR)/q_ecnsharp.so"
	@if [ -f sch_ecnsharp.ko ]; then \
		$(MAKE) -C "$(KDIR)" M="$(CURDIR)" LLVM=$(LLVM) INSTALL_MOD_PATH="$(DESTDIR)" modules_install; \
	else echo "make install: no sch_ecnsharp.ko built here ('make' builds it): module not installed"; fi

demo:
	@tests/demo.sh

deps:
	@tests/vm/deps.sh

ns3:
	@ns3/run.sh

ns3-full:
	@ns3/full.sh

kernel:
	@tests/vm/build-kernel.sh default

kernel-debug:
	@tests/vm/build-kernel.sh debug

clean:
	-@test ! -f "$(KDIR)/Makefile" || $(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean
	rm -f kmod/module/shim_bindings.rs
