package testenv

// I386 is 32-bit x86, built with Debian's i686 cross compiler
// (gcc-i686-linux-gnu, libc6-dev-i386-cross). Its programs need no qemu:
// the x86_64 kernel runs them natively and writes real i386 cores (use
// Crash). It has no Qemu.
var I386 = CrossArch{Name: "i386", Triple: "i686-linux-gnu"}

// I386Dynamic links a dynamic i386 program at the cross sysroot's loader
// and C library, so that the kernel runs it directly (without
// gcc-multilib's /lib/ld-linux.so.2) and the core's NT_FILE names the
// files it really mapped.
var I386Dynamic = []string{
	"-Wl,--dynamic-linker=/usr/i686-linux-gnu/lib/ld-linux.so.2",
	"-Wl,-rpath,/usr/i686-linux-gnu/lib",
}
