package refbt

// SampleGDB is gdb's "thread apply all bt" of a two-thread core with a
// signal frame and a C++ frame without debug info (seeds and tests).
const SampleGDB = `[New LWP 6437]
#0  0x000055733f189188 in c (p=0x0) at a.c:5
5	__attribute__((noinline)) void c(int *p){ *p = 1; }

Thread 2 (Thread 0x7f65b63736c0 (LWP 6437)):
#0  0x00007f65b644adf2 in __libc_pause () at ../sysdeps/unix/sysv/linux/pause.c:29
#1  0x000055733f18917a in worker (p=0x0) at a.c:4
#2  0x00007f65b64001f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
#3  0x00007f65b64808ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81

Thread 1 (LWP 6436):
#0  0x000055733f189188 in c (p=0x0) at a.c:5
#1  0x000055733f1891a9 in b (p=0x0) at a.c:6
#2  <signal handler called>
#3  0x00007f8b84aa8e85 in std::terminate() () from /lib/x86_64-linux-gnu/libstdc++.so.6
#4  0x0000000000000000 in ?? ()
`

// SampleEuStack is eu-stack -i -s -a of a similar core.
const SampleEuStack = `PID 6436 - core
TID 6436:
#0  0x000055733f189188     c
    /tmp/exp/a.c:5:46
#1  0x000055733f1891a9 - 1 b
    /tmp/exp/a.c:6:43
#2  0x00007f13e3c28050     __restore_rt
#3  0x00007f8b84aa8e85 - 1 std::terminate()
TID 6437:
#0  0x00007f65b644adf2     __libc_pause
    ../sysdeps/unix/sysv/linux/pause.c:29:10
#1  0x000055733f18917a - 1 worker
`
