# SPDX-License-Identifier: GPL-2.0-only
# ecnsharp: top-level entry points (see README.md).
#
#   make                 the tools (ecnsharp-tc, tc's q_ecnsharp.so, shell completions) and, if KDIR
#                        (default: the running kernel's build tree) is a kernel built with
#                        CONFIG_RUST=y, sch_ecnsharp.ko; otherwise it says how to build the module
#   make tools           only the tools (no kernel needed)
#   make module          only sch_ecnsharp.ko, for KDIR=/path/to/kernel/build, with the rustc that
#                        built that kernel (pkg/module-toolchain.sh picks it, or says what to install;
#                        RUSTC=... or RUSTUP_TOOLCHAIN=... choose, from the environment or here)
#   make help            this text
#   make demo            the main job: build kernel, module and tools, boot a VM, mark DCTCP traffic
#   make experiments     the ECN# paper's testbed on the real Linux stack in virtual time (User-Mode
#                        Linux, 10 Gbit/s, microsecond RTTs; 253 runs, about 40 min on 2 cores):
#                        docs/results/uml/quick/; not part of make check
#   make experiments-full  every workload, load, fanout and seed: docs/results/uml/full/ (hours)
#   make experiments-qemu  the same scenarios scaled down in the qemu guest (~32 min): docs/results/
#   make bench           CPU cost: pktgen through prio, fq_codel, red and ecnsharp in a VM, as packet
#                        rate ratios, beside the host per-packet benchmark (docs/results/bench.md)
#   make bench-ablation  where ecnsharp's per-packet cost goes: the module without its clock, DS
#                        field read, engine, histogram or marker, against prio (~5 min)
#   make bench-profile   where each packet's CPU time goes with the kernel running natively (UML),
#                        sampled by the host's perf: clock reads, the module's functions (~5 min)
#   make check           every test: host tests, then the VM selftests (what CI runs)
#   make soak            the reliability suites on the debug kernel for SOAK_MINUTES (default 60)
#   make deps            install the bench's dependencies (apt, rustup components, bindgen-cli)
#   make deb             Debian packages ecnsharp-tools, ecnsharp-dev and ecnsharp-dkms into
#                        target/deb/ (dpkg-buildpackage over debian/; docs/packaging.md)
#   make kernel          build (or reuse) the bench kernel; make kernel-debug for the debug flavour,
#                        make kernel-uml for the User-Mode Linux one (docs/uml-bench.md)
#   make clean           remove in-tree build products
#   sudo make install    copy what `make` built (no build as root); INSTALL_MODULE=0 leaves the
#                        module out (tools only, or a module from DKMS)
#   sudo make uninstall  remove exactly what make install copied (its manifest lists it; the
#                        same PREFIX as the install, or it names the PREFIX to give)
#   sudo make dkms-add   copy the module sources to /usr/src/ecnsharp-VERSION and `dkms add` them
#   sudo make dkms-remove  `dkms remove` every build of this version, and its sources
#   make ns3             the ns-3 queue disc: agreement with the kernel harness, its checks, the quick point (3 seeds, 95% CIs)
#   make ns3-full        the runs of docs/results/ns3/rule.md (5.3-5.4, resumable) into docs/results/ns3/ (days)

KDIR ?= /lib/modules/$(shell uname -r)/build
# The tools' toolchain (rust-toolchain.toml; absent from DKMS's copy of the sources). The
# module's is the kernel's own, picked per KDIR by pkg/module-toolchain.sh, which honours RUSTC,
# RUSTUP_TOOLCHAIN and BINDGEN when they come from the environment or the command line.
RUST_TOOLCHAIN := $(shell sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml 2>/dev/null)
given = $(if $(filter environment% command% override,$(origin $(1))),$($(1)))
TOOLCHAIN_FOR = RUSTC='$(call given,RUSTC)' RUSTUP_TOOLCHAIN='$(call given,RUSTUP_TOOLCHAIN)' \
	BINDGEN='$(call given,BINDGEN)' LLVM='$(call given,LLVM)' pkg/module-toolchain.sh
# KBUILD DIR ARGS...: kbuild for the external module in DIR, with the kernel's own toolchain.
KBUILD = tc=$$($(TOOLCHAIN_FOR) "$(KDIR)") || exit 1; eval "$$tc"; \
	env $${ECNSHARP_RUSTUP_TOOLCHAIN:+RUSTUP_TOOLCHAIN="$$ECNSHARP_RUSTUP_TOOLCHAIN"} \
	$(MAKE) -C "$(KDIR)" M="$(1)" LLVM="$$ECNSHARP_LLVM" \
	RUSTC="$$ECNSHARP_RUSTC" BINDGEN="$$ECNSHARP_BINDGEN"
# Where run-in-vm wants the module and tools for one bench kernel (set by tests/vm/run-in-vm).
BENCH_OUT ?=
VERSION := $(shell sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
# make install: a staging root, the prefix, tc's plugin directory (asked of tc, see
# pkg/tc-lib-dir.sh; TC_LIB_DIR=... overrides), the module's kernel release (from the module
# built here) and where the module goes (kbuild's modules_install puts external modules there).
DESTDIR ?=
PREFIX ?= /usr/local
TC_LIB_DIR ?= $(shell pkg/tc-lib-dir.sh)
MANDIR ?= $(PREFIX)/share/man
# The uapi header where linux-libc-dev keeps the kernel's (<linux/pkt_sched_ecnsharp.h>), and the
# documents the man pages point to.
INCLUDEDIR ?= $(PREFIX)/include
DOCDIR ?= $(PREFIX)/share/doc/ecnsharp-tools
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
# tc's own completion (iproute2's) is taught the ecnsharp options by a file bash-completion
# sources at start-up.
BASH_COMPLETION_COMPAT_DIR ?= /etc/bash_completion.d
ZSH_COMPLETION_DIR ?= $(PREFIX)/share/zsh/site-functions
FISH_COMPLETION_DIR ?= $(PREFIX)/share/fish/vendor_completions.d
MODULE ?= sch_ecnsharp.ko
# modinfo is in /sbin, which a user's PATH (or root's after su without -) may lack.
KVER ?= $(shell { modinfo -F vermagic $(MODULE) || /sbin/modinfo -F vermagic $(MODULE); } 2>/dev/null | \
	cut -d' ' -f1)
MODULE_DIR ?= /lib/modules/$(KVER)/updates
INSTALL_MODULE ?= 1
MANIFEST := $(PREFIX)/share/ecnsharp/manifest
TOOLS_DIR ?= $(or $(CARGO_TARGET_DIR),target)/release
# The userspace tools: ecnsharp-tc and tc's plugin (target/release/libq_ecnsharp.so).
CARGO ?= cargo
TOOLS_ENV := $(if $(RUST_TOOLCHAIN),RUSTUP_TOOLCHAIN=$(RUST_TOOLCHAIN))
TOOLS_BUILD := $(TOOLS_ENV) $(CARGO) build --release --locked -p ecnsharp-tc -p q_ecnsharp
# The bench's own tools, shipped into the guest only: hostile inputs (tests/nlfuzz) and the
# experiments' flow generator (tests/flowgen).
BENCH_TOOLS_BUILD := $(TOOLS_ENV) $(CARGO) build --release --locked -p ecnsharp-nlfuzz -p ecnsharp-flowgen

MODULE_SOURCES := Kbuild $(wildcard kmod/module/*.c kmod/module/*.h kmod/module/*.rs \
	kmod/module/*/*.rs kmod/src/*.rs kmod/src/*/*.rs)

.PHONY: all help module tools completions deb check soak demo bench bench-ablation bench-profile experiments \
	experiments-full experiments-qemu deps kernel kernel-debug kernel-uml \
	bench-artifacts module-clippy clean install uninstall dkms-add dkms-remove ns3 ns3-full

# The tools always; the module when KDIR is a Rust-enabled kernel's tree, else a note saying how.
all: tools
	@if [ -f "$(KDIR)/.config" ] && grep -q '^CONFIG_RUST=y' "$(KDIR)/.config"; then \
		$(MAKE) --no-print-directory module; \
	else \
		echo "note: built the tools only: $(KDIR) is $$([ -f "$(KDIR)/.config" ] && echo "a kernel" \
			"built without CONFIG_RUST" || echo "no kernel build tree"). The module needs a kernel" \
			"built with CONFIG_RUST=y: make module KDIR=/path/to/its/build (README, 'On a real host');" \
			"or let DKMS build it (make dkms-add, or the ecnsharp-dkms package)."; \
	fi

help:
	@sed -n '/^# ecnsharp: /,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

# A Rust module must be built by the very rustc that built the kernel (its rust/ metadata is
# rustc's own format): pkg/module-toolchain.sh finds it or stops with the command to install it,
# before the kernel's build fails obscurely.
module:
	+@$(call KBUILD,$(CURDIR)) modules

# The tools, and the shell completions ecnsharp-tc writes for itself (clap_complete).
tools:
	$(TOOLS_BUILD)
	@$(MAKE) -s completions

# Each written beside its place and renamed: two builds at once (make check's guests and its
# background UML steps) never read a half-written file.
completions:
	@mkdir -p $(TOOLS_DIR)/completions
	@for s in bash:ecnsharp-tc.bash zsh:_ecnsharp-tc fish:ecnsharp-tc.fish; do \
		f=$(TOOLS_DIR)/completions/$${s#*:}; \
		$(TOOLS_DIR)/ecnsharp-tc completion $${s%%:*} > $$f.tmp.$$$$ && mv -f $$f.tmp.$$$$ $$f || exit 1; \
	done

# The bench builds in a copy of the sources per kernel, so that one clone can hold modules for
# several kernels (6.12's Kbuild cannot put an external module's objects elsewhere), and fails
# on any compiler warning.
bench-artifacts:
	@test -n "$(BENCH_OUT)" || { echo "error: BENCH_OUT is not set"; exit 1; }
	@mkdir -p "$(BENCH_OUT)/module-src"
	@cp -a --parents $(MODULE_SOURCES) "$(BENCH_OUT)/module-src/"
	+@{ $(call KBUILD,$(BENCH_OUT)/module-src) -s modules; } \
		> "$(BENCH_OUT)/module-build.log" 2>&1 || { cat "$(BENCH_OUT)/module-build.log"; exit 1; }
	@if grep -E 'warning[:\[]' "$(BENCH_OUT)/module-build.log"; then \
		echo "error: the module build has warnings (see above)"; exit 1; fi
	@cp "$(BENCH_OUT)/module-src/sch_ecnsharp.ko" "$(BENCH_OUT)/sch_ecnsharp.ko"
	@{ $(TOOLS_BUILD) && $(BENCH_TOOLS_BUILD); } > "$(BENCH_OUT)/tools-build.log" 2>&1 || { cat "$(BENCH_OUT)/tools-build.log"; exit 1; }
	@if grep -E '^warning' "$(BENCH_OUT)/tools-build.log"; then \
		echo "error: the tools build has warnings (see above)"; exit 1; fi
	@mkdir -p "$(BENCH_OUT)/tools"
	@cp $(TOOLS_DIR)/ecnsharp-tc "$(BENCH_OUT)/tools/ecnsharp-tc"
	@cp $(TOOLS_DIR)/libq_ecnsharp.so "$(BENCH_OUT)/tools/q_ecnsharp.so"
	@cp $(TOOLS_DIR)/ecnsharp-nlfuzz "$(BENCH_OUT)/tools/ecnsharp-nlfuzz"
	@cp $(TOOLS_DIR)/ecnsharp-flowgen "$(BENCH_OUT)/tools/ecnsharp-flowgen"
	@# What make install would install, staged (DESTDIR) for the guest's install suite.
	@$(MAKE) -s completions >/dev/null
	@rm -rf "$(BENCH_OUT)/stage"
	@$(MAKE) -s install DESTDIR="$(BENCH_OUT)/stage" MODULE="$(BENCH_OUT)/sch_ecnsharp.ko" \
		KVER="$$(cat "$(KDIR)/include/config/kernel.release")" PREFIX=/usr/local >/dev/null
	@# Reproducible: the same files give the same bytes (experiments key their runs by them).
	@tar -C "$(BENCH_OUT)/stage" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
		-cf "$(BENCH_OUT)/tools/ecnsharp-stage.tar" .

# The module through clippy with the kernel's own lint set and minimum rustc (CLIPPY=1), in a
# copy of the sources of its own (it rebuilds everything); any warning fails.
module-clippy:
	@test -n "$(BENCH_OUT)" || { echo "error: BENCH_OUT is not set"; exit 1; }
	@rm -rf "$(BENCH_OUT)/clippy-src" && mkdir -p "$(BENCH_OUT)/clippy-src"
	@cp -a --parents $(MODULE_SOURCES) "$(BENCH_OUT)/clippy-src/"
	+@{ $(call KBUILD,$(BENCH_OUT)/clippy-src) -s CLIPPY=1 modules; } \
		> "$(BENCH_OUT)/clippy.log" 2>&1 || { cat "$(BENCH_OUT)/clippy.log"; exit 1; }
	@if grep -E -A8 'warning[:\[]' "$(BENCH_OUT)/clippy.log"; then \
		echo "error: clippy (CLIPPY=1) warns about the module (see above)"; exit 1; fi

check:
	@tests/check.sh

SOAK_MINUTES ?= 60
soak:
	@tests/soak.sh $(SOAK_MINUTES)
# Only copies: every file must have been built by `make` first (pkg/install.sh says so
# otherwise), so nothing is compiled as root. MODE:SOURCE:TARGET, TARGET without DESTDIR.
INSTALL_FILES = \
	0755:$(TOOLS_DIR)/ecnsharp-tc:$(PREFIX)/bin/ecnsharp-tc \
	0644:$(TOOLS_DIR)/libq_ecnsharp.so:$(TC_LIB_DIR)/q_ecnsharp.so \
	0644:man/tc-ecnsharp.8:$(MANDIR)/man8/tc-ecnsharp.8 \
	0644:man/ecnsharp-tc.8:$(MANDIR)/man8/ecnsharp-tc.8 \
	0644:$(TOOLS_DIR)/completions/ecnsharp-tc.bash:$(BASH_COMPLETION_DIR)/ecnsharp-tc \
	0644:completions/tc-ecnsharp.bash:$(BASH_COMPLETION_COMPAT_DIR)/tc-ecnsharp \
	0644:$(TOOLS_DIR)/completions/_ecnsharp-tc:$(ZSH_COMPLETION_DIR)/_ecnsharp-tc \
	0644:$(TOOLS_DIR)/completions/ecnsharp-tc.fish:$(FISH_COMPLETION_DIR)/ecnsharp-tc.fish \
	0644:include/uapi/linux/pkt_sched_ecnsharp.h:$(INCLUDEDIR)/linux/pkt_sched_ecnsharp.h \
	0644:docs/configuration.md:$(DOCDIR)/configuration.md \
	0644:docs/tuning.md:$(DOCDIR)/tuning.md \
	0644:docs/tc.md:$(DOCDIR)/tc.md \
	0644:LICENSE:$(DOCDIR)/LICENSE \
	0644:pkg/THIRD-PARTY-LICENSES:$(DOCDIR)/THIRD-PARTY-LICENSES \
	0755:pkg/install.sh:$(PREFIX)/share/ecnsharp/install.sh \
	$(if $(filter 1,$(INSTALL_MODULE)),0644:$(MODULE):$(MODULE_DIR)/sch_ecnsharp.ko)

install:
	@if [ "$(INSTALL_MODULE)" = 1 ] && [ ! -f "$(MODULE)" ]; then echo "error: $(MODULE) is" \
		"not built: run 'make' first, as your user (make install only copies), or install" \
		"without the module: make install INSTALL_MODULE=0"; exit 1; fi
	@if [ "$(INSTALL_MODULE)" = 1 ] && [ -z "$(KVER)" ]; then echo "error: cannot tell the kernel" \
		"release $(MODULE) was built for (modinfo, of the kmod package, not found?): give" \
		"KVER=RELEASE, or install without the module: make install INSTALL_MODULE=0"; exit 1; fi
	@DESTDIR="$(DESTDIR)" KVER="$(KVER)" pkg/install.sh install "$(MANIFEST)" $(INSTALL_FILES)

uninstall:
	@DESTDIR="$(DESTDIR)" pkg/install.sh uninstall "$(MANIFEST)"

# DKMS builds the module again for every new kernel (dkms.conf); it needs the module's sources
# only, under /usr/src/PACKAGE-VERSION.
DKMS_SRC = $(DESTDIR)/usr/src/ecnsharp-$(VERSION)
# What `make module` needs, and the licence; not rust-toolchain.toml, which pins the tools'
# toolchain, not the module's (that is the kernel's, picked by pkg/module-toolchain.sh).
DKMS_FILES = Makefile dkms.conf Cargo.toml LICENSE COPYING pkg/module-toolchain.sh $(MODULE_SOURCES)
dkms-add:
	$(dkms_not_packaged)
	@grep -q '^PACKAGE_VERSION="$(VERSION)"' dkms.conf || { echo "error: dkms.conf is not" \
		"for version $(VERSION)"; exit 1; }
	@! grep -qsE '^file [0-7]+ [^ ]*/sch_ecnsharp\.ko( |$$)' "$(DESTDIR)$(MANIFEST)" || { echo "error:" \
		"make install put sch_ecnsharp.ko in /lib/modules/*/updates, where DKMS would leave it" \
		"(unversioned, it counts as new as DKMS's): run 'sudo make uninstall' first, then" \
		"'sudo make install INSTALL_MODULE=0'"; exit 1; }
	rm -rf "$(DKMS_SRC)" && mkdir -p "$(DKMS_SRC)"
	cp -a --parents $(DKMS_FILES) "$(DKMS_SRC)/"
	@if [ -z "$(DESTDIR)" ] && [ -z "$$(dkms status -m ecnsharp -v $(VERSION) 2>/dev/null)" ]; then \
		dkms add -m ecnsharp -v $(VERSION); fi

# Sources a Debian package (ecnsharp-dkms) installed are apt's to replace or remove.
define dkms_not_packaged
	@if [ -z "$(DESTDIR)" ] && command -v dpkg-query >/dev/null && \
		owner=$$(dpkg-query -S "$(DKMS_SRC)" 2>/dev/null); then echo "error: $(DKMS_SRC) belongs to" \
		"the package $${owner%%:*}: use apt (apt remove $${owner%%:*})"; exit 1; fi
endef
dkms-remove:
	$(dkms_not_packaged)
	-dkms remove -m ecnsharp -v $(VERSION) --all
	rm -rf "$(DKMS_SRC)"

# Debian packages (debian/, docs/packaging.md), built in a copy of the tree's files under DEB_OUT
# (dpkg-buildpackage writes next to the tree it builds); cargo's output is kept between builds.
DEB_OUT ?= target/deb
DEB_SRC = $(DEB_OUT)/ecnsharp-$(VERSION)
deb:
	@for t in dpkg-buildpackage dh dh_dkms; do command -v $$t >/dev/null || { echo "error: $$t" \
		"is missing: apt install dpkg-dev debhelper dh-dkms (or make deps)"; exit 1; }; done
	@rm -rf "$(DEB_SRC)" && mkdir -p "$(DEB_SRC)"
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
			tar --null -T - -cf - | tar -C "$(DEB_SRC)" -xf -; \
	else tar --exclude=./target --exclude=./.git -cf - . | tar -C "$(DEB_SRC)" -xf -; fi
	cd "$(DEB_SRC)" && CARGO_TARGET_DIR="$(abspath $(DEB_OUT))/cargo-target" dpkg-buildpackage -us -uc -b
	@ls -1 $(DEB_OUT)/*.deb

demo:
	@tests/demo.sh

experiments:
	@tests/uml/experiments.sh --quick

experiments-full:
	@tests/uml/experiments.sh --full

experiments-qemu:
	@tests/experiments.sh

BENCH_ROUNDS ?= 15
BENCH_COUNT ?= 200000
bench:
	@tests/bench.sh $(BENCH_ROUNDS) $(BENCH_COUNT)

bench-ablation:
	@tests/bench-ablation.sh

bench-profile:
	@tests/uml/bench/profile.sh $(PROFILE_ROUNDS) $(PROFILE_COUNT)

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

kernel-uml:
	@tests/vm/build-kernel.sh uml

clean:
	-@test ! -f "$(KDIR)/Makefile" || $(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean
	rm -f kmod/module/shim_bindings.rs
	rm -rf $(TOOLS_DIR)/completions
