/* A stand-in for linux-syscall-support (lss), written for coreunwind's
 * tests: Breakpad's core2md calls the few lss functions below, and a
 * process that converts a core file is no signal handler, so libc's
 * wrappers serve as well as lss's raw system calls. Only what core2md's
 * sources use is here. */
#ifndef COREUNWIND_LSS_STANDIN_H
#define COREUNWIND_LSS_STANDIN_H

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Arches without getdents (aarch64) have only getdents64, whose records
 * carry d_type before the name: lss's kernel_dirent is that layout there. */
#ifdef SYS_getdents
struct kernel_dirent {
	long d_ino;
	long d_off;
	unsigned short d_reclen;
	char d_name[256];
};
#define COREUNWIND_SYS_GETDENTS SYS_getdents
#else
struct kernel_dirent {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[256];
};
#define COREUNWIND_SYS_GETDENTS SYS_getdents64
#endif

#define kernel_stat stat
#define kernel_stat64 stat

static inline int sys_open(const char *path, int flags, int mode) { return open(path, flags, mode); }
static inline int sys_close(int fd) { return close(fd); }
static inline ssize_t sys_read(int fd, void *buf, size_t n) { return read(fd, buf, n); }
static inline ssize_t sys_write(int fd, const void *buf, size_t n) { return write(fd, buf, n); }
static inline off_t sys_lseek(int fd, off_t off, int whence) { return lseek(fd, off, whence); }
static inline ssize_t sys_readlink(const char *path, char *buf, size_t n) { return readlink(path, buf, n); }
static inline void *sys_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off) { return mmap(addr, n, prot, flags, fd, off); }
static inline int sys_munmap(void *addr, size_t n) { return munmap(addr, n); }
static inline int sys_stat(const char *path, struct stat *st) { return stat(path, st); }
static inline int sys_fstat(int fd, struct stat *st) { return fstat(fd, st); }
static inline int sys_fstat64(int fd, struct stat *st) { return fstat(fd, st); }
static inline pid_t sys_getpid(void) { return getpid(); }
static inline pid_t sys_waitpid(pid_t pid, int *status, int options) { return waitpid(pid, status, options); }
static inline long sys_ptrace(int req, pid_t pid, void *addr, void *data) {
	return ptrace((enum __ptrace_request)req, pid, addr, data);
}
static inline int sys_getdents(int fd, struct kernel_dirent *d, int n) { return (int)syscall(COREUNWIND_SYS_GETDENTS, fd, d, n); }

#ifdef __cplusplus
}
#endif
#endif
