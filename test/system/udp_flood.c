/* udp_flood: a stranger hammering a UDP port, for the doorbell tests (liveness_test.sh,
 * scripts/bench-flood).
 * usage: udp_flood IPV4 PORT RATE SECONDS
 * Sends 8-byte datagrams to IPV4:PORT, RATE per second in batches every millisecond, for
 * SECONDS (or until killed), from an ephemeral port. Prints "udp_flood: sent N datagrams"
 * at the end. Exits 2 on bad arguments, 1 if it cannot make its socket. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop = 0;
static void on_signal(int signo) {
  (void)signo;
  stop = 1;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: udp_flood IPV4 PORT RATE SECONDS\n");
    return 2;
  }
  struct sockaddr_in to;
  memset(&to, 0, sizeof to);
  to.sin_family = AF_INET;
  to.sin_port = htons((uint16_t)atoi(argv[2]));
  const double rate = atof(argv[3]), seconds = atof(argv[4]);
  if (inet_pton(AF_INET, argv[1], &to.sin_addr) != 1 || to.sin_port == 0 || rate <= 0 ||
      seconds <= 0) {
    fprintf(stderr, "udp_flood: bad address, port, rate or duration\n");
    return 2;
  }
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) {
    perror("udp_flood: socket");
    return 1;
  }
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  const uint64_t payload = 0x5354524e47455221ULL; /* a keyed-looking ring */
  const double start = now();
  unsigned long long sent = 0;
  while (!stop) {
    const double elapsed = now() - start;
    if (elapsed >= seconds) break;
    const unsigned long long due = (unsigned long long)(elapsed * rate);
    while (sent < due) {
      (void)sendto(fd, &payload, sizeof payload, MSG_DONTWAIT, (struct sockaddr*)&to, sizeof to);
      ++sent;
    }
    usleep(1000);
  }
  printf("udp_flood: sent %llu datagrams\n", sent);
  close(fd);
  return 0;
}
