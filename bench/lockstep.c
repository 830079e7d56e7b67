/* The benchmark's lockstep driver: starts a command with pipes, writes one line of a URL list,
 * reads one answer line, and so on, then prints the round trips per second. Written in C so
 * the driver's own time is small beside what it measures (a Python loop is 4-8x slower).
 *
 *   lockstep URL_LIST COUNT WARMUP COMMAND [ARG...]
 *
 * The first WARMUP round trips are not timed (start-up, first lookups). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char **read_lines(const char *path, size_t *count) {
  FILE *file = fopen(path, "r");
  if (!file) { perror(path); exit(2); }
  size_t capacity = 1024, n = 0;
  char **lines = malloc(capacity * sizeof *lines);
  char *line = NULL;
  size_t size = 0;
  ssize_t length;
  while ((length = getline(&line, &size, file)) > 0) {
    if (line[length - 1] != '\n') continue;
    if (n == capacity) lines = realloc(lines, (capacity *= 2) * sizeof *lines);
    lines[n++] = strdup(line);
  }
  fclose(file);
  *count = n;
  return lines;
}

/* Writes all of `text`; 0 on success. */
static int write_all(int fd, const char *text, size_t length) {
  while (length > 0) {
    ssize_t n = write(fd, text, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    text += n;
    length -= (size_t)n;
  }
  return 0;
}

/* Reads up to and including one newline (answers are short); 0 on success. */
static int read_line(int fd) {
  static char buffer[65536];
  static size_t start = 0, end = 0;
  for (;;) {
    char *newline = memchr(buffer + start, '\n', end - start);
    if (newline) {
      start = (size_t)(newline - buffer) + 1;
      return 0;
    }
    if (start == end) start = end = 0;
    ssize_t n = read(fd, buffer + end, sizeof buffer - end);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    end += (size_t)n;
  }
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: lockstep URL_LIST COUNT WARMUP COMMAND [ARG...]\n");
    return 2;
  }
  size_t count = 0;
  char **lines = read_lines(argv[1], &count);
  long total = atol(argv[2]), warmup = atol(argv[3]);
  if (count == 0 || total <= 0 || warmup < 0) { fprintf(stderr, "lockstep: nothing to send\n"); return 2; }
  int to_child[2], from_child[2];
  if (pipe(to_child) || pipe(from_child)) { perror("pipe"); return 2; }
  signal(SIGPIPE, SIG_IGN);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(to_child[0], 0);
    dup2(from_child[1], 1);
    close(to_child[0]); close(to_child[1]); close(from_child[0]); close(from_child[1]);
    execvp(argv[4], argv + 4);
    perror(argv[4]);
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  struct timespec begin = {0}, finish;
  for (long i = 0; i < warmup + total; i++) {
    if (i == warmup) clock_gettime(CLOCK_MONOTONIC, &begin);
    const char *line = lines[(size_t)i % count];
    if (write_all(to_child[1], line, strlen(line)) || read_line(from_child[0])) {
      fprintf(stderr, "lockstep: the command stopped answering after %ld lines\n", i);
      return 1;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &finish);
  close(to_child[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  double seconds = (double)(finish.tv_sec - begin.tv_sec) + (double)(finish.tv_nsec - begin.tv_nsec) / 1e9;
  printf("%.1f\n", (double)total / seconds);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
