// SPDX-License-Identifier: GPL-2.0
/*
 * htbx-userns - run a command as an unprivileged user that made its own
 * user and network namespaces, as `unshare -Urn` run by that user does:
 * the suites ask the kernel what such a user may do to a qdisc (create a
 * dummy, grafts, changes) with nothing but the capabilities a user
 * namespace gives.
 *
 *   htbx-userns [-u UID] COMMAND [ARGS...]
 *
 * Drops to UID (default 65534, nobody) and its group of the same number,
 * with no supplementary groups, then unshares a user and a network
 * namespace and maps root in them to UID. Exit status: the command's, or
 * 125 when a step before it fails (with the step on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "htbx-userns: %s: %s\n", what, strerror(errno));
	exit(125);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		die(path);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(path);
	close(fd);
}

int main(int argc, char **argv)
{
	unsigned long id = 65534;
	char map[64];
	int arg = 1;

	if (argc > 2 && !strcmp(argv[1], "-u")) {
		id = strtoul(argv[2], NULL, 10);
		arg = 3;
	}
	if (arg >= argc) {
		fprintf(stderr, "usage: htbx-userns [-u UID] COMMAND [ARGS...]\n");
		return 2;
	}
	if (setgroups(0, NULL) || setgid(id) || setuid(id))
		die("dropping to the user");
	/* a process that changed its ids is not dumpable, and its /proc
	 * files (uid_map) stay root's: as a user's own process it is
	 */
	if (prctl(PR_SET_DUMPABLE, 1))
		die("prctl(PR_SET_DUMPABLE)");
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
		die("unshare(CLONE_NEWUSER | CLONE_NEWNET)");
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %lu 1\n", id);
	write_file("/proc/self/uid_map", map);
	write_file("/proc/self/gid_map", map);
	execvp(argv[arg], argv + arg);
	die(argv[arg]);
	return 125;
}
