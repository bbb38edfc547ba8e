// SPDX-License-Identifier: GPL-2.0-only
/*
 * A host for q_ecnsharp.so that is not tc: it exports none of tc's functions. The plugin is linked
 * with immediate binding, so loading it must fail at dlopen, naming a tc function, instead of
 * succeeding and ending the process at the first call. Used by tests/tc-versions/check.sh.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *so;

	if (argc != 2)
		return 2;
	/* As tc opens its plugins. */
	so = dlopen(argv[1], RTLD_LAZY);
	if (so) {
		printf("loaded\n");
		return 0;
	}
	printf("refused: %s\n", dlerror());
	return 1;
}
