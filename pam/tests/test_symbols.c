/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_symbols MODULE.so: the module loads with RTLD_NOW (every symbol
 * resolves) and its dynamic symbol table defines exactly pam_sm_authenticate,
 * pam_sm_setcred and pam_sm_acct_mgmt.  Reads .dynsym itself so it needs no binutils.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const wanted[] = { "pam_sm_authenticate", "pam_sm_setcred", "pam_sm_acct_mgmt" };
#define NWANTED (sizeof(wanted) / sizeof(wanted[0]))

static int passed, failed;

static void expect(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	if (ok)
		passed++;
	else
		failed++;
}

/* Count defined global/weak dynamic symbols; flag any not in `wanted`. */
static int check_dynsym(const char *path)
{
	struct stat st;
	const unsigned char *map;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	int fd = open(path, O_RDONLY | O_CLOEXEC), found[NWANTED] = { 0 }, ok = 1;

	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(path);
		return 0;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	eh = (const Elf64_Ehdr *)(const void *)map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "%s: not a 64-bit ELF file\n", path);
		return 0;
	}
	sh = (const Elf64_Shdr *)(const void *)(map + eh->e_shoff);
	for (size_t i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *sym;
		const char *strtab;
		size_t n;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		sym = (const Elf64_Sym *)(const void *)(map + sh[i].sh_offset);
		strtab = (const char *)(map + sh[sh[i].sh_link].sh_offset);
		n = sh[i].sh_size / sizeof(Elf64_Sym);
		for (size_t j = 0; j < n; j++) {
			const char *name = strtab + sym[j].st_name;
			unsigned char bind = ELF64_ST_BIND(sym[j].st_info);
			size_t k;

			if (sym[j].st_shndx == SHN_UNDEF ||
			    (bind != STB_GLOBAL && bind != STB_WEAK))
				continue;
			for (k = 0; k < NWANTED; k++) {
				if (strcmp(name, wanted[k]) == 0)
					break;
			}
			if (k == NWANTED) {
				printf("unexpected exported symbol: %s\n", name);
				ok = 0;
			} else {
				found[k]++;
			}
		}
	}
	for (size_t k = 0; k < NWANTED; k++) {
		if (found[k] != 1) {
			printf("missing exported symbol: %s\n", wanted[k]);
			ok = 0;
		}
	}
	munmap((void *)(uintptr_t)map, (size_t)st.st_size);
	return ok;
}

int main(int argc, char **argv)
{
	void *h;

	if (argc != 2) {
		fprintf(stderr, "usage: %s MODULE.so\n", argv[0]);
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	expect(h != NULL, "dlopen(RTLD_NOW) resolves every symbol");
	if (h == NULL) {
		fprintf(stderr, "%s\n", dlerror());
	} else {
		expect(dlsym(h, "pam_sm_authenticate") != NULL, "pam_sm_authenticate is exported");
		expect(dlsym(h, "pam_sm_setcred") != NULL, "pam_sm_setcred is exported");
		expect(dlsym(h, "pam_sm_acct_mgmt") != NULL, "pam_sm_acct_mgmt is exported");
		expect(dlsym(h, "options_load") == NULL, "options_load is not exported");
		expect(dlsym(h, "reply_feed") == NULL, "reply_feed is not exported");
		expect(dlsym(h, "ta_outcomes") == NULL, "ta_outcomes is not exported");
		dlclose(h);
	}
	expect(check_dynsym(argv[1]),
	       "dynamic symbol table defines exactly the pam_sm_* entry points");
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
