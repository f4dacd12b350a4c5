/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the consumer selftests (ftrace, perf, trace-cmd, hist,
 * synthetic events, BPF): running tools, persistent events through
 * dynamic_events, and a writer mode of the test binary itself.
 *
 * Events are written with libuser_events, compiled in from its source.
 * Include after kselftest_harness.h and ue_test_util.h; main() of the
 * test returns cu_main(argc, argv) instead of using TEST_HARNESS_MAIN.
 */
#ifndef _UE_CONSUMER_UTIL_H
#define _UE_CONSUMER_UTIL_H

#include <signal.h>
#include <sys/wait.h>

#include "../../../lib/user_events/user_events.c"

#define CU_WRITER_ARG	"--ue-writer"
/* Bound for an external tool run; only a failure bound. */
#define CU_TOOL_SECS	300

/*
 * The event the writer mode writes: every field type a tool must decode.
 * Event i has seq=i neg=-i val=i*1000+7 tag=t<i> dl=dl-<i> rl=rl-<i>.
 */
#define CU_FIELDS "u32 seq; s32 neg; u64 val; char[8] tag; " \
		  "__data_loc char[] dl; __rel_loc char[] rl"

/* How print_fmt based tools (perf, trace-cmd) show event @i */
static inline void cu_expect_text(char *buf, size_t len, int i)
{
	snprintf(buf, len, "seq=%d neg=%d val=%d tag=t%d dl=dl-%d rl=rl-%d",
		 i, -i, i * 1000 + 7, i, i, i);
}

static inline bool cu_have(const char *prog)
{
	char path[PATH_MAX], *dirs, *dir, *save;
	const char *env = getenv("PATH");
	bool found = false;

	dirs = strdup(env ? env : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/%s", dir, prog);
		found = access(path, X_OK) == 0;
	}
	free(dirs);
	return found;
}

#define CU_ARGS_MAX	32

/*
 * Run "@prog args..." (a NULL-terminated list, as execlp()) in /tmp with
 * stdout and stderr to @out (NULL: /dev/null).
 * Returns the exit status, 128 + signal, or -1.
 */
static inline int cu_run(const char *out, const char *prog, ...)
{
	const char *argv[CU_ARGS_MAX + 1];
	struct timespec start;
	int status, fd, n = 0;
	pid_t pid, got;
	va_list ap;

	argv[n++] = prog;
	va_start(ap, prog);
	while (n < CU_ARGS_MAX && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open(out ? out : "/dev/null",
			  O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		if (chdir("/tmp"))
			_exit(126);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}

	clock_gettime(CLOCK_MONOTONIC, &start);
	while ((got = waitpid(pid, &status, WNOHANG)) == 0) {
		if (ue_elapsed(&start) > CU_TOOL_SECS) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(10000);	/* a bounded poll, not a synchronisation */
	}
	if (got != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Path of this test binary, for the writer mode. */
static inline const char *cu_self(void)
{
	static char self[PATH_MAX];
	ssize_t n;

	if (!self[0]) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n > 0)
			self[n] = '\0';
	}
	return self;
}

static inline int cu_dyn_write(const char *cmd)
{
	char path[PATH_MAX];

	ue_tpath(path, sizeof(path), "dynamic_events");
	return ue_write_str(path, cmd, O_APPEND);
}

/* Create the persistent event "u:NAME FIELDS". */
static inline int cu_dyn_add(const char *name, const char *fields)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "u:%s %s", name, fields);
	return cu_dyn_write(cmd);
}

/* Delete a persistent event; EBUSY while tools let go is retried. */
static inline int cu_dyn_del(const char *name)
{
	struct timespec start;
	char cmd[300];
	int ret;

	snprintf(cmd, sizeof(cmd), "-:%s", name);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while ((ret = cu_dyn_write(cmd)) == -EBUSY &&
	       ue_elapsed(&start) < UE_WAIT_SECS)
		sched_yield();
	return ret;
}

/* Lines of the file @path that contain @needle. */
static inline int cu_count_in(const char *path, const char *needle)
{
	char *text = ue_read_all(path), *p;
	int n = 0;

	if (!text)
		return -1;
	for (p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	free(text);
	return n;
}

/* Show the line of @path holding @needle in the test log. */
static inline void cu_show(const char *tool, const char *path,
			   const char *needle)
{
	char *text = ue_read_all(path);
	char line[512];

	if (text && ue_find_line(text, needle, line, sizeof(line)))
		fprintf(stderr, "# %s: %s\n", tool, line);
	free(text);
}

/* Print a tool's output into the test log (for failures). */
static inline void cu_dump(const char *path, int max_lines)
{
	char *text = ue_read_all(path), *line, *save;
	int n = 0;

	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line && n < max_lines;
	     line = strtok_r(NULL, "\n", &save), n++)
		fprintf(stderr, "#   | %s\n", line);
	free(text);
}

/*
 * Writer mode: "<self> --ue-writer NAME COUNT" registers NAME CU_FIELDS,
 * waits (bounded) until a tracer enables it, writes COUNT events, exits.
 * Exit status: 0 ok, 2 register failed, 3 never enabled, 4 write failed.
 */
static inline int cu_writer_main(int argc, char **argv)
{
	char cmd[600], tag[16], dl[32], rl[32];
	struct ue_session *s;
	struct timespec start;
	struct ue_event *e;
	int i, n, ret = 0;

	if (argc < 4)
		return 1;
	n = atoi(argv[3]);
	snprintf(cmd, sizeof(cmd), "%s %s", argv[2], CU_FIELDS);
	if (ue_session_open(NULL, &s))
		return 2;
	if (ue_register(s, cmd, 0, &e)) {
		ue_session_close(s);
		return 2;
	}

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!ue_enabled(e)) {
		if (ue_elapsed(&start) > UE_WAIT_SECS) {
			ue_session_close(s);
			return 3;
		}
		sched_yield();
	}

	for (i = 0; i < n; i++) {
		snprintf(tag, sizeof(tag), "t%d", i);
		snprintf(dl, sizeof(dl), "dl-%d", i);
		snprintf(rl, sizeof(rl), "rl-%d", i);
		if (ue_write(e, (unsigned int)i, -i, (uint64_t)i * 1000 + 7,
			     tag, dl, rl))
			ret = 4;
	}
	ue_session_close(s);
	return ret;
}

/* The writer mode, or the tests. */
static inline int cu_main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], CU_WRITER_ARG))
		return cu_writer_main(argc, argv);
	return test_harness_run(argc, argv);
}

#endif /* _UE_CONSUMER_UTIL_H */
