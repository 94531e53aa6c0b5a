package triage

// The runtime machinery of each language and of libc: frames between the
// bug and the crash, or below main, that every crash of a fleet shares
// and that therefore say nothing about which bug it is. DefaultPatterns
// adds these to DefaultSkip; a language's support (Go, Python) adds its
// own Machinery here rather than editing the lists of another.

// Machinery is one runtime's frames to skip: by normalized function name
// (whole-name regular expressions, as DefaultSkip) and by the base name
// of the module a frame is in, named or not (an unnamed libstdc++ frame
// is as much machinery as a named one, and its offset moves with every
// libstdc++ update).
type Machinery struct {
	Runtime   string // what the frames are, for --explain
	Functions []string
	Modules   []string
}

// DefaultMachinery is the machinery skipped by default.
var DefaultMachinery = []Machinery{
	{
		// libc's start and thread-start code: below main and every
		// thread's function, in every stack (--frames 3 must not count
		// them).
		Runtime: "libc start",
		Functions: []string{`__libc_start_call_main`, `__libc_start_main`, `__libc_start_main_impl`,
			`__libc_start_main_alias_[0-9]+`, `_start`, `__start`, `_start_c`, `start_thread`,
			`clone`, `clone3`, `__clone`, `__clone3`, `__clone_internal`, `__clone_internal_fallback`,
			`thread_start`, `__thread_start`, `__libc_csu_init`},
	},
	{
		Runtime: "libc abort",
		Functions: []string{`__abort_msg`, `__libc_abort`, `__GI___pthread_kill`, `__pthread_kill_implementation`,
			`__pthread_raise_internal`, `__libc_raise`, `__malloc_assert`, `__libc_assert_fail`,
			`__libc_fatal`, `__libc_dynarray_.*_failure`},
	},
	{
		// C++: throwing, terminating and unwinding, libstdc++'s and
		// libc++'s, named or not.
		Runtime: "C++ runtime",
		Functions: []string{`__cxa_.*`, `__cxxabiv1::.*`, `std::__terminate`, `std::__1::terminate`,
			`__gnu_cxx::.*terminate.*`, `std::__1::__throw_.*`, `_Unwind_.*`, `__gxx_personality_.*`,
			`std::rethrow_exception`, `std::__exception_ptr::.*`, `__clang_call_terminate`,
			`std::__throw_bad_.*`, `demangling_terminate_handler`, `abort_message`},
		Modules: []string{`libstdc\+\+\.so.*`, `libc\+\+\.so.*`, `libc\+\+abi\.so.*`, `libgcc_s\.so.*`, `libunwind\.so.*`},
	},
	{
		// Rust: the panic runtime (its symbols live under __rustc:: since
		// Rust 1.88) and the start code below main.
		Runtime: "Rust runtime",
		Functions: []string{`__rustc::.*`, `core::panicking::.*`, `std::panicking::.*`, `rust_panic`,
			`std::rt::lang_start.*`, `std::rt::lang_start_internal.*`, `core::ops::function::.*call_once.*`,
			`std::sys::backtrace::__rust_begin_short_backtrace`,
			`std::sys_common::backtrace::__rust_begin_short_backtrace`, `std::panic::catch_unwind`,
			`std::panicking::try.*`, `__rust_try`, `std::sys::pal::.*abort.*`, `std::sys::.*::abort_internal`,
			// generic instances keep their "::<T>" (not template
			// arguments after a name), hence the trailing .*
			`std::sys::backtrace::__rust_end_short_backtrace.*`, `std::sys_common::backtrace::__rust_end_short_backtrace.*`,
			// the panicking call itself (#[track_caller]: the panic's
			// location is its caller's)
			`core::option::Option::(unwrap|expect)`, `core::result::Result::(unwrap|expect|unwrap_err|expect_err)`},
	},
}

// machineryFunctions is every function pattern of DefaultMachinery.
func machineryFunctions() []string {
	var out []string
	for _, m := range DefaultMachinery {
		out = append(out, m.Functions...)
	}
	return out
}

// machineryModules is every module pattern of DefaultMachinery.
func machineryModules() []string {
	var out []string
	for _, m := range DefaultMachinery {
		out = append(out, m.Modules...)
	}
	return out
}
