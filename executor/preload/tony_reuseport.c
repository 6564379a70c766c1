/* libtony-reuseport.so: preloaded (LD_PRELOAD) into a task's user process while its executor
 * keeps the task's reserved port bound with SO_REUSEPORT (the port hold, README "What a task
 * sees"). Linux lets a second socket bind a held port only when it sets SO_REUSEPORT too and
 * belongs to the same user; PyTorch's TCPStore, Horovod's rendezvous, ZeroMQ (MXNet's scheduler)
 * and most servers do not set it, so without this they would fail with EADDRINUSE. This library
 * sets SO_REUSEPORT on a socket just before it is bound to one of the ports listed in
 * TONY_HELD_PORTS (comma-separated), and does nothing else: every other bind, and every bind
 * when the variable is unset, goes to libc untouched.
 *
 * It is C with no dependency but libc and libdl (it is loaded into any program: Python, a JVM
 * launched by the task, a shell) and is built without sanitizers (CMakeLists.txt). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>

#define MAX_HELD_PORTS 16

static uint16_t held_ports[MAX_HELD_PORTS];
static int held_count;

typedef int (*bind_fn)(int, const struct sockaddr*, socklen_t);

/* Parsed once at load time, before any thread of the program runs. A malformed entry ends the
 * list: the hold then simply does not cover it (the bind fails loudly with EADDRINUSE). */
__attribute__((constructor)) static void tony_reuseport_init(void) {
  const char* p = getenv("TONY_HELD_PORTS");
  if (p == NULL) return;
  while (*p != '\0' && held_count < MAX_HELD_PORTS) {
    char* end = NULL;
    unsigned long port = strtoul(p, &end, 10);
    if (end == p || port == 0 || port > 65535) return;
    held_ports[held_count++] = (uint16_t)port;
    if (*end != ',') return;
    p = end + 1;
  }
}

static int is_held(const struct sockaddr* addr, socklen_t len) {
  uint16_t port_be = 0;
  if (addr == NULL) return 0;
  if (addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
    port_be = ((const struct sockaddr_in*)addr)->sin_port;
  } else if (addr->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
    port_be = ((const struct sockaddr_in6*)addr)->sin6_port;
  } else {
    return 0;
  }
  for (int i = 0; i < held_count; ++i) {
    if (htons(held_ports[i]) == port_be) return 1;
  }
  return 0;
}

int bind(int fd, const struct sockaddr* addr, socklen_t len) {
  static bind_fn real_bind;
  if (real_bind == NULL) {
    real_bind = (bind_fn)dlsym(RTLD_NEXT, "bind");
    if (real_bind == NULL) {
      errno = ENOSYS;
      return -1;
    }
  }
  if (held_count > 0 && is_held(addr, len)) {
    int saved = errno;
    int one = 1;
    /* A socket type without SO_REUSEPORT (or a non-socket fd) refuses it; the bind then reports
     * what is wrong by itself. */
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) errno = saved;
  }
  return real_bind(fd, addr, len);
}
